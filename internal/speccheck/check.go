package speccheck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one violation of the clause rules, located in a file of the
// specification or in a .go file.
type Problem struct {
	File    string
	Line    int
	Message string
}

// String renders p as "file:line: message".
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
}

// coverage records, per ID, the files that cite and test it.
type coverage struct {
	cited  map[string][]string // non-test files citing "spec ID"
	tested map[string][]string // test files mentioning ID
	rapid  map[string][]string // rapid test files mentioning ID
}

// newCoverage indexes refs by ID.
func newCoverage(refs *Refs) coverage {
	c := coverage{cited: map[string][]string{}, tested: map[string][]string{}, rapid: map[string][]string{}}
	for _, f := range refs.Files {
		c.addFile(f)
	}
	return c
}

// addFile records the citations and mentions of f.
func (c coverage) addFile(f File) {
	if !f.Test {
		for _, r := range f.Cites {
			c.cited[r.ID] = appendOnce(c.cited[r.ID], f.Path)
		}
		return
	}
	for _, r := range f.Tokens {
		c.tested[r.ID] = appendOnce(c.tested[r.ID], f.Path)
		if f.Rapid {
			c.rapid[r.ID] = appendOnce(c.rapid[r.ID], f.Path)
		}
	}
}

// appendOnce appends s to list unless it is already its last element.
func appendOnce(list []string, s string) []string {
	if len(list) > 0 && list[len(list)-1] == s {
		return list
	}
	return append(list, s)
}

// Check applies the clause rules to spec and refs and returns the problems
// found, sorted by file, line and message.
func Check(spec *Spec, refs *Refs) []Problem {
	c := newCoverage(refs)
	var ps []Problem
	for _, d := range spec.Duplicates {
		first, _ := spec.Lookup(d.ID)
		ps = append(ps, specProblem(d, "%s is defined again (first at %s:%d)", d.ID, first.File, first.Line))
	}
	for _, d := range spec.Defs {
		ps = append(ps, checkDef(spec, c, d)...)
	}
	for _, f := range refs.Files {
		ps = append(ps, checkFile(spec, f)...)
	}
	sortProblems(ps)
	return ps
}

// specProblem returns a problem located at d's line in the file that
// defines it.
func specProblem(d Definition, format string, args ...any) Problem {
	return Problem{File: d.File, Line: d.Line, Message: fmt.Sprintf(format, args...)}
}

// checkDef returns the problems of the live definition d.
func checkDef(spec *Spec, c coverage, d Definition) []Problem {
	if d.Retired {
		return nil
	}
	switch d.Kind {
	case KindDecision:
		return checkMentions(spec, d)
	case KindProperty:
		return need(d, c.rapid, "exercised by any test importing "+rapidPath)
	case KindFinding:
		return need(d, c.tested, "exercised by any test")
	}
	ps := need(d, c.tested, "exercised by any test")
	return append(checkCited(c, d), ps...)
}

// need returns a problem unless files lists some file for d's ID.
func need(d Definition, files map[string][]string, what string) []Problem {
	if len(files[d.ID]) > 0 {
		return nil
	}
	return []Problem{specProblem(d, "%s %s is not %s", d.Kind, d.ID, what)}
}

// checkCited returns a problem unless a non-test file of the clause's
// implementer directory cites it.
func checkCited(c coverage, d Definition) []Problem {
	dir := Implementer(d.Area)
	if dir == "" {
		return need(d, c.cited, "cited by any non-test file")
	}
	for _, p := range c.cited[d.ID] {
		if strings.HasPrefix(p, dir+"/") {
			return nil
		}
	}
	return []Problem{specProblem(d, "%s %s is not cited by any non-test file under %s/", d.Kind, d.ID, dir)}
}

// checkMentions returns a problem for each ID the decision d mentions that
// is undefined or retired.
func checkMentions(spec *Spec, d Definition) []Problem {
	var ps []Problem
	for _, r := range d.Mentions {
		if msg := status(spec, r.ID); msg != "" {
			ps = append(ps, Problem{File: d.File, Line: r.Line, Message: fmt.Sprintf("decision %s mentions %s, which %s", d.ID, r.ID, msg)})
		}
	}
	return ps
}

// status describes what is wrong with referring to id, or returns "".
func status(spec *Spec, id string) string {
	d, ok := spec.Lookup(id)
	switch {
	case !ok:
		return "is not defined in " + SpecFile + " or " + DecisionsFile
	case d.Retired:
		return fmt.Sprintf("is retired (%s:%d)", d.File, d.Line)
	}
	return ""
}

// checkFile returns a problem for each undefined or retired ID that f
// refers to: any ID whose prefix the specification defines, and any ID cited as
// "spec AREA-n" whatever its prefix.
func checkFile(spec *Spec, f File) []Problem {
	var ps []Problem
	for _, r := range f.Tokens {
		if spec.HasArea(areaOf(r.ID)) {
			ps = append(ps, fileProblem(spec, f, r)...)
		}
	}
	for _, r := range f.Cites {
		if !spec.HasArea(areaOf(r.ID)) {
			ps = append(ps, fileProblem(spec, f, r)...)
		}
	}
	return ps
}

// fileProblem returns a problem if the reference r of f is undefined or
// retired.
func fileProblem(spec *Spec, f File, r Ref) []Problem {
	msg := status(spec, r.ID)
	if msg == "" {
		return nil
	}
	return []Problem{{File: f.Path, Line: r.Line, Message: r.ID + " " + msg}}
}

// sortProblems orders ps by file, line and message.
func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Message, b.Message))
	})
}
