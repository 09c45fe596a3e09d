package speccheck

import (
	"cmp"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// fix turns a fixture written with "~" into one with "-", so that the IDs
// of fixtures are not whole-word IDs of this file when the real repository
// is checked.
func fix(s string) string {
	return strings.ReplaceAll(s, "~", "-")
}

// baseSpec defines a model clause, a retired one, a clause of another area,
// a property and a finding.
const baseSpec = `# Limits
- **LIM~1** Tokens never exceed cap.
- **LIM~2** (retired) Old cap rule.
**VEC~1** Vectors are dense.
* **PROP~1** Caps hold under any schedule.
  **FIND~1** A burst once overran the cap.
`

// baseDecisions is the decision register beside baseSpec: a decision that
// mentions IDs baseSpec defines.
const baseDecisions = `# Decisions
- **DEC~1** Keep caps; carried by LIM~1, VEC~1.
  Checked by PROP~1; unrelated UTF~8 and SHA~256 are ignored.
`

const rapidTest = `package model

import (
	"testing"

	"pgregory.net/rapid"
)

// PROP~1
func TestCap(t *testing.T) { rapid.Check(t, nil) }
`

// baseFiles satisfies every rule for baseSpec.
var baseFiles = map[string]string{
	"model/lim.go":       "package model\n\n// spec LIM~1: \"Tokens never exceed cap.\"\n",
	"model/lim_test.go":  "package model\n\nvar rows = []string{\"LIM~1\", \"FIND~1\"}\n",
	"model/prop_test.go": rapidTest,
	"impl/vec.go":        "package impl\n\n// spec VEC~1\n",
	"impl/vec_test.go":   "package impl\n\n// VEC~1\n",
}

// fixture returns a file system holding spec (baseSpec when empty),
// decisions (baseDecisions when empty) and baseFiles overlaid with files,
// where an empty content deletes a file.
func fixture(spec, decisions string, files map[string]string) fstest.MapFS {
	spec = cmp.Or(spec, baseSpec)
	decisions = cmp.Or(decisions, baseDecisions)
	fsys := fstest.MapFS{SpecFile: {Data: []byte(fix(spec))}, DecisionsFile: {Data: []byte(fix(decisions))}}
	all := maps.Clone(baseFiles)
	maps.Copy(all, files)
	for name, src := range all {
		if src != "" {
			fsys[name] = &fstest.MapFile{Data: []byte(fix(src))}
		}
	}
	return fsys
}

// checkTest is one row of TestCheck: a fixture and the problems it has.
type checkTest struct {
	name   string
	reason string
	spec   string            // baseSpec when empty
	decs   string            // baseDecisions when empty
	files  map[string]string // overlaid on baseFiles; "" deletes
	want   []string          // Problem strings, written with "~"
}

// checkTests holds one row per rule of Check.
var checkTests = []checkTest{
	{
		name:   "passing",
		reason: "a repository that cites and tests every live ID has no problems",
	},
	{
		name:   "uncited model clause",
		reason: "a model-area clause must be cited under model/, not elsewhere",
		files:  map[string]string{"model/lim.go": "package model\n", "impl/lim.go": "package impl\n\n// spec LIM~1\n"},
		want:   []string{"spec.md:2: clause LIM~1 is not cited by any non-test file under model/"},
	},
	{
		name:   "model clause cited only by a test",
		reason: "a citation in a test file exercises a clause but does not implement it",
		files:  map[string]string{"model/lim.go": "package model\n", "model/lim_test.go": "package model\n\n// spec LIM~1 FIND~1\n"},
		want:   []string{"spec.md:2: clause LIM~1 is not cited by any non-test file under model/"},
	},
	{
		name:   "clause with no test",
		reason: "every live clause must be mentioned by some test",
		files:  map[string]string{"model/lim_test.go": "package model\n\n// FIND~1\n"},
		want:   []string{"spec.md:2: clause LIM~1 is not exercised by any test"},
	},
	{
		name:   "uncited clause of another area",
		reason: "a clause of an area without implementer must still be cited somewhere",
		files:  map[string]string{"impl/vec.go": "package impl\n"},
		want:   []string{"spec.md:4: clause VEC~1 is not cited by any non-test file"},
	},
	{
		name:   "unknown ID cited",
		reason: "an ID of a defined prefix that spec.md does not define is an error where it occurs",
		files:  map[string]string{"impl/vec.go": "package impl\n\n// spec VEC~1\n// spec VEC~9\n"},
		want:   []string{"impl/vec.go:4: VEC~9 is not defined in spec.md or spec-decisions.md"},
	},
	{
		name:   "citation of an undefined prefix",
		reason: "an explicit citation must name a defined ID even when its prefix is unknown",
		files:  map[string]string{"impl/vec.go": "package impl\n\n// spec VEC~1 and spec VCE~1; UTF~8\n"},
		want:   []string{"impl/vec.go:3: VCE~1 is not defined in spec.md or spec-decisions.md"},
	},
	{
		name:   "unknown ID in a test",
		reason: "test files are checked for unknown IDs too",
		files:  map[string]string{"impl/vec_test.go": "package impl\n\nvar _ = \"VEC~1 LIM~3\"\n"},
		want:   []string{"impl/vec_test.go:3: LIM~3 is not defined in spec.md or spec-decisions.md"},
	},
	{
		name:   "retired ID cited",
		reason: "a retired clause must no longer be cited",
		files:  map[string]string{"model/old.go": "package model\n\n// spec LIM~2\n"},
		want:   []string{"model/old.go:3: LIM~2 is retired (spec.md:3)"},
	},
	{
		name:   "duplicate definition",
		reason: "an ID is defined at most once, retired or not",
		spec:   baseSpec + "- **LIM~2** Reused number.\n",
		want:   []string{"spec.md:7: LIM~2 is defined again (first at spec.md:3)"},
	},
	{
		name:   "duplicate across files",
		reason: "spec.md and its decision register share one set of IDs",
		spec:   baseSpec + "- **DEC~1** Keep caps here too.\n",
		want:   []string{"spec-decisions.md:2: DEC~1 is defined again (first at spec.md:7)"},
	},
	{
		name:   "property tested without rapid",
		reason: "a property must be mentioned by a test importing rapid",
		files:  map[string]string{"model/prop_test.go": "", "model/lim_test.go": "package model\n\n// LIM~1 FIND~1 PROP~1\n"},
		want:   []string{"spec.md:5: property PROP~1 is not exercised by any test importing pgregory.net/rapid"},
	},
	{
		name:   "finding with no test",
		reason: "a finding must be mentioned by some test",
		files:  map[string]string{"model/lim_test.go": "package model\n\n// LIM~1\n"},
		want:   []string{"spec.md:6: finding FIND~1 is not exercised by any test"},
	},
	{
		name:   "decision mentions unknown clause",
		reason: "every ID a decision mentions, on its line or after, must exist",
		decs:   strings.Replace(baseDecisions, "Checked by", "Replaces LIM~7; checked by", 1),
		want:   []string{"spec-decisions.md:3: decision DEC~1 mentions LIM~7, which is not defined in spec.md or spec-decisions.md"},
	},
	{
		name:   "decision mentions retired clause",
		reason: "a decision must not lean on a retired clause",
		decs:   strings.Replace(baseDecisions, "LIM~1, VEC~1", "LIM~1, LIM~2", 1),
		want:   []string{"spec-decisions.md:2: decision DEC~1 mentions LIM~2, which is retired (spec.md:3)"},
	},
	{
		name:   "decision scope ends at heading",
		reason: "IDs after the next heading belong to no decision",
		decs:   baseDecisions + "# Notes\nLIM~7 is mentioned in prose only.\n",
	},
	{
		name:   "word boundary",
		reason: "a citation or test of LIM~12 is neither one of LIM~1",
		spec:   strings.Replace(baseSpec, "- **LIM~2**", "- **LIM~12** Another cap.\n- **LIM~2**", 1),
		files: map[string]string{
			"model/lim.go":      "package model\n\n// spec LIM~12\n",
			"model/lim_test.go": "package model\n\n// LIM~12 FIND~1\n",
		},
		want: []string{
			"spec.md:2: clause LIM~1 is not cited by any non-test file under model/",
			"spec.md:2: clause LIM~1 is not exercised by any test",
		},
	},
	{
		name:   "non-model area cited outside model",
		reason: "areas without implementer may be cited by any non-test file",
		files:  map[string]string{"impl/vec.go": "", "cmd/vec/main.go": "package main\n\n// spec VEC~1\n"},
	},
	{
		name:   "skipped directories",
		reason: "testdata, vendor and dot directories are not scanned",
		files: map[string]string{
			"model/testdata/x.go": "// spec LIM~9\n",
			"vendor/v/v.go":       "// spec LIM~9\n",
			".work/w.go":          "// spec LIM~9\n",
		},
	},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkTests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reason == "" {
				t.Fatalf("row %q has no reason", tc.name)
			}
			got := problems(t, fixture(tc.spec, tc.decs, tc.files))
			want := fixAll(tc.want)
			if !slices.Equal(got, want) {
				t.Errorf("Check(Load(%s)) =\n\t%s\nwant\n\t%s", tc.name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// problems loads and checks fsys and returns its problems as strings.
func problems(t *testing.T, fsys fstest.MapFS) []string {
	t.Helper()
	spec, refs, err := Load(fsys)
	if err != nil {
		t.Fatalf("Load(fixture) error: %v", err)
	}
	var got []string
	for _, p := range Check(spec, refs) {
		got = append(got, p.String())
	}
	return got
}

// fixAll applies fix to each of ss.
func fixAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, fix(s))
	}
	return out
}

// parseTests holds one row per definition form Parse accepts or rejects;
// want is "ID kind retired", or "" for no definition.
var parseTests = []struct {
	name, reason, line, want string
}{
	{"plain", "a bold ID at line start defines it", "**THR~12** Threads.", "THR~12 clause false"},
	{"dash", "a dash list marker may precede the ID", "- **LIM~3** Cap.", "LIM~3 clause false"},
	{"star", "a star list marker may precede the ID", "* **PROP~2** P.", "PROP~2 property false"},
	{"indented", "leading spaces are allowed", "    - **FIND~4** F.", "FIND~4 finding false"},
	{"retired", "(retired) anywhere on the line retires it", "**DEC~5** Old. (retired)", "DEC~5 decision true"},
	{"mid-line", "a bold ID inside prose is a mention, not a definition", "See **LIM~3** here.", ""},
	{"not bold", "an unbolded ID does not define", "- LIM~3 Cap.", ""},
	{"lowercase", "prefixes are capital letters", "**lim~3** Cap.", ""},
}

func TestParse(t *testing.T) {
	for _, tc := range parseTests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reason == "" {
				t.Fatalf("row %q has no reason", tc.name)
			}
			if got, want := parseLine(fix(tc.line)), fix(tc.want); got != want {
				t.Errorf("Parse(%q) defines %q, want %q", fix(tc.line), got, want)
			}
		})
	}
}

// parseLine parses line after a fixed first definition and describes the
// definition line makes, or returns "" when it makes none.
func parseLine(line string) string {
	spec, err := Parse(Source{Name: SpecFile, Text: []byte(fix("**ZZ~1** Anchor.\n") + line + "\n")})
	if err != nil || len(spec.Defs) < 2 {
		return ""
	}
	d := spec.Defs[1]
	return strings.Join([]string{d.ID, d.Kind.String(), map[bool]string{true: "true", false: "false"}[d.Retired]}, " ")
}

func TestParseNoDefinitions(t *testing.T) {
	if _, err := Parse(Source{Name: SpecFile, Text: []byte("# Spec\nNothing defined yet.\n")}); err == nil {
		t.Errorf("Parse(spec without definitions) error = nil, want an error")
	}
}

func TestLoadMissingSpec(t *testing.T) {
	for _, name := range Files {
		fsys := fixture("", "", nil)
		delete(fsys, name)
		if _, _, err := Load(fsys); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Load(repository without %s) error = %v, want an error naming it", name, err)
		}
	}
}

func TestReport(t *testing.T) {
	spec, refs, err := Load(fixture("", "", nil))
	if err != nil {
		t.Fatalf("Load(fixture) error: %v", err)
	}
	got := Report(spec, refs)
	for _, want := range []string{
		fix("LIM~1   clause            spec.md:2            model/lim.go  model/lim_test.go"),
		fix("LIM~2   clause (retired)  spec.md:3            -             -"),
		fix("PROP~1  property          spec.md:5            -             model/prop_test.go"),
		fix("DEC~1   decision          spec-decisions.md:2  -             -"),
		"6 definitions, 1 retired",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Report(fixture) =\n%s\nwant a line containing %q", got, want)
		}
	}
}

// TestSpecClauses checks the real repository. It fails while spec.md is
// missing, defines nothing, or has clauses not yet cited and tested.
func TestSpecClauses(t *testing.T) {
	spec, refs, err := Load(os.DirFS("../.."))
	if err != nil {
		t.Fatalf("Load(repository root) error: %v", err)
	}
	for _, p := range Check(spec, refs) {
		t.Error(p)
	}
	t.Log("\n" + Report(spec, refs))
}
