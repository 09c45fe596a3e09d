package speccheck

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// SpecFile is the name of the specification at the repository root.
const SpecFile = "spec.md"

// DecisionsFile is the name of the specification's decision register, a
// file beside SpecFile that belongs to it: its DEC-n entries are
// definitions like those of SpecFile.
const DecisionsFile = "spec-decisions.md"

// Files are the files that define the specification's IDs, in the order
// Load and ReadSpec parse them.
var Files = []string{SpecFile, DecisionsFile}

// Source is one file of the specification: its name (for problems and
// definitions) and its text.
type Source struct {
	Name string
	Text []byte
}

// Kind classifies a definition by its ID prefix.
type Kind int

// The kinds of definition.
const (
	KindClause   Kind = iota // a normative clause of some area
	KindProperty             // PROP: a property, tested with rapid
	KindFinding              // FIND: a finding, pinned by a test
	KindDecision             // DEC: a decision-register entry
)

// String returns the kind's lowercase name.
func (k Kind) String() string {
	switch k {
	case KindProperty:
		return "property"
	case KindFinding:
		return "finding"
	case KindDecision:
		return "decision"
	}
	return "clause"
}

// kindOf returns the kind of definitions with the given prefix.
func kindOf(area string) Kind {
	switch area {
	case "PROP":
		return KindProperty
	case "FIND":
		return KindFinding
	case "DEC":
		return KindDecision
	}
	return KindClause
}

// implementers maps a clause area to the directory whose non-test .go files
// must cite its clauses. Areas not listed may be cited anywhere.
var implementers = map[string]string{
	"LIM":   "model",
	"GATE":  "model",
	"THR":   "model",
	"STORE": "model",
	"DIST":  "impl", // the Redis-backed gate and store (impl/redisgate, impl/throttle/redisstore)
}

// Implementer returns the slash-separated directory whose non-test .go files
// must cite the clauses of area, or "" when any non-test file may.
func Implementer(area string) string {
	return implementers[area]
}

// Ref is one occurrence of an ID: in a file of the specification, or in a
// .go file.
type Ref struct {
	ID   string
	Line int
}

// Definition is one ID defined in a file of the specification.
type Definition struct {
	ID       string
	Area     string // the prefix before the dash
	Kind     Kind
	File     string // the Source that defines it: SpecFile or DecisionsFile
	Line     int
	Retired  bool
	NoVector bool  // a decision marked "(no vector)": no op can express it (spec VEC-14)
	Mentions []Ref // for a decision: the IDs of defined prefixes it mentions
}

// Spec is a parsed specification: spec.md and its decision register.
type Spec struct {
	Defs       []Definition // first definitions, in file order
	Duplicates []Definition // later definitions of an ID already defined
	index      map[string]int
	areas      map[string]bool
}

// Lookup returns the first definition of id.
func (s *Spec) Lookup(id string) (Definition, bool) {
	i, ok := s.index[id]
	if !ok {
		return Definition{}, false
	}
	return s.Defs[i], true
}

// HasArea reports whether the specification defines any ID with the given
// prefix.
func (s *Spec) HasArea(area string) bool {
	return s.areas[area]
}

var (
	defRE     = regexp.MustCompile(`^[ \t]*(?:[-*] +)?\*\*([A-Z]+-[0-9]+)\*\*`)
	headingRE = regexp.MustCompile(`^[ \t]*#+(?:[ \t]|$)`)
	idRE      = regexp.MustCompile(`\b[A-Z]+-[0-9]+\b`)
)

// Parse reads the definitions of the specification's files, in order: an
// ID defined in two of them, or twice in one, is a duplicate. It fails
// only when they define no ID at all; duplicate definitions are kept for
// Check to report.
func Parse(srcs ...Source) (*Spec, error) {
	s := &Spec{index: map[string]int{}, areas: map[string]bool{}}
	lines := map[string][]string{}
	for _, src := range srcs {
		lines[src.Name] = strings.Split(strings.ReplaceAll(string(src.Text), "\r\n", "\n"), "\n")
		for i, line := range lines[src.Name] {
			if m := defRE.FindStringSubmatch(line); m != nil {
				s.add(newDefinition(m[1], src.Name, i+1, line))
			}
		}
	}
	if len(s.Defs) == 0 {
		return nil, errors.New("speccheck: " + SpecFile + " defines no clause IDs")
	}
	s.collectMentions(lines)
	return s, nil
}

// ReadSpec parses the specification's Files at the root of fsys.
func ReadSpec(fsys fs.FS) (*Spec, error) {
	var srcs []Source
	for _, name := range Files {
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("speccheck: %w", err)
		}
		srcs = append(srcs, Source{Name: name, Text: text})
	}
	return Parse(srcs...)
}

// newDefinition builds the definition of id found on line number n of
// file.
func newDefinition(id, file string, n int, line string) Definition {
	area := areaOf(id)
	return Definition{
		ID:      id,
		Area:    area,
		Kind:    kindOf(area),
		File:    file,
		Line:    n,
		Retired: strings.Contains(line, "(retired)"),
		// spec VEC-14: "A decision marked (no vector) rules on what no op can express"
		NoVector: strings.Contains(line, "(no vector)"),
	}
}

// areaOf returns the prefix of id, before its dash.
func areaOf(id string) string {
	area, _, _ := strings.Cut(id, "-")
	return area
}

// add records d, as a duplicate when its ID is already defined.
func (s *Spec) add(d Definition) {
	s.areas[d.Area] = true
	if _, ok := s.index[d.ID]; ok {
		s.Duplicates = append(s.Duplicates, d)
		return
	}
	s.index[d.ID] = len(s.Defs)
	s.Defs = append(s.Defs, d)
}

// collectMentions fills in the mentions of every decision, from the lines
// of each file by name.
func (s *Spec) collectMentions(lines map[string][]string) {
	for i := range s.Defs {
		if s.Defs[i].Kind == KindDecision {
			s.Defs[i].Mentions = s.mentions(s.Defs[i], lines[s.Defs[i].File])
		}
	}
}

// mentions returns the IDs of defined prefixes that d's section mentions:
// its own line and those after it, up to the next definition or heading.
func (s *Spec) mentions(d Definition, lines []string) []Ref {
	var refs []Ref
	for n := d.Line; n <= len(lines); n++ {
		line := lines[n-1]
		if n > d.Line && (defRE.MatchString(line) || headingRE.MatchString(line)) {
			break
		}
		for _, r := range s.tokens(line, n) {
			if r.ID != d.ID {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// tokens returns the whole-word IDs on line n whose prefix the
// specification defines.
func (s *Spec) tokens(line string, n int) []Ref {
	var refs []Ref
	for _, r := range wordIDs(line, n) {
		if s.HasArea(areaOf(r.ID)) {
			refs = append(refs, r)
		}
	}
	return refs
}

// wordIDs returns every whole-word AREA-n token on line n, once each.
func wordIDs(line string, n int) []Ref {
	var refs []Ref
	seen := map[string]bool{}
	for _, id := range idRE.FindAllString(line, -1) {
		if !seen[id] {
			seen[id] = true
			refs = append(refs, Ref{ID: id, Line: n})
		}
	}
	return refs
}
