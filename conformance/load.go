package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// ErrInvalid is wrapped by every error Load returns for a case file that
// breaks the format.
var ErrInvalid = errors.New("conformance: invalid vector")

// Load reads every case file of fsys, a vectors folder laid out as VEC-1
// says (Vectors is one), in path order. It fails on the first file that is
// not a valid case, naming the file and what is wrong, and on two files with
// one ID.
//
// spec VEC-1: "One case per file, at conformance/vectors/<component>/<id>.json"
func Load(fsys fs.FS) ([]Case, error) {
	paths, err := casePaths(fsys)
	if err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(paths))
	seen := map[string]string{}
	for _, p := range paths {
		c, err := loadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[c.ID]; dup {
			return nil, fmt.Errorf("%w: %s: id %q is also the id of %s", ErrInvalid, p, c.ID, first)
		}
		seen[c.ID] = p
		if err := checkPlace(c, p); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, p, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// casePaths returns the paths of the case files: every .json file in a
// component folder. A folder that names no component is an error; the files
// at the top (schema.json, ids.txt) are not cases.
func casePaths(fsys fs.FS) ([]string, error) {
	top, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("conformance: read vectors: %w", err)
	}
	var paths []string
	for _, d := range top {
		if !d.IsDir() {
			continue
		}
		if !slices.Contains(oracle.Components(), oracle.Component(d.Name())) {
			return nil, fmt.Errorf("%w: %s/: %q is not a component (want one of %v)", ErrInvalid, d.Name(), d.Name(), oracle.Components())
		}
		files, err := fs.Glob(fsys, d.Name()+"/*.json")
		if err != nil {
			return nil, fmt.Errorf("conformance: read vectors: %w", err)
		}
		paths = append(paths, files...)
	}
	return paths, nil
}

// loadFile reads and validates the case file at p.
func loadFile(fsys fs.FS, p string) (Case, error) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return Case{}, fmt.Errorf("conformance: %s: %w", p, err)
	}
	c, err := Parse(data)
	if err != nil {
		return Case{}, fmt.Errorf("%w: %s: %w", ErrInvalid, p, err)
	}
	return c, nil
}

// Parse decodes and validates one case file, wherever it lies (Load also
// checks that its path matches its component and ID). Integers and byte
// strings decode through oracle.Num and oracle.Bytes, which refuse a JSON
// number, a non-canonical decimal and malformed hex.
//
// spec VEC-6: "Every integer ... is a JSON string holding a canonical decimal in [-2^63, 2^64-1]"
// spec VEC-7: "a reader accepts both forms for any byte string"
func Parse(data []byte) (Case, error) {
	var c Case
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("malformed case: %w", err)
	}
	if dec.More() {
		return Case{}, errors.New("malformed case: data after the case object")
	}
	return c, c.validate()
}

// checkPlace checks that the file at p is named after c's component and ID.
//
// spec VEC-1: "<component> is the case's component and <id> its ID"
func checkPlace(c Case, p string) error {
	want := path.Join(string(c.Component), c.ID+".json")
	if p != want {
		return fmt.Errorf("case %s of component %s must be at %s", c.ID, c.Component, want)
	}
	return nil
}

var (
	idRE     = regexp.MustCompile(`^([a-z_]+)-[a-z0-9]+-[0-9]{3,}$`)
	clauseRE = regexp.MustCompile(`^[A-Z]+-[1-9][0-9]*$`)
)

// validate checks the fields of c, each with its own message.
func (c Case) validate() error {
	checks := []func() error{c.checkFormat, c.checkID, c.checkText, c.checkLevel, c.checkConfig, c.checkOps}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkFormat checks the format and spec version fields.
//
// spec VEC-2: "a reader refuses any other value"
func (c Case) checkFormat() error {
	switch {
	case c.Format == "":
		return errors.New(`"format" is missing`)
	case c.Format != Format:
		return fmt.Errorf("format %q, want %q", c.Format, Format)
	case c.SpecVersion == "":
		return errors.New(`"spec_version" is missing`)
	}
	return nil
}

// checkID checks the component and the ID.
//
// spec VEC-3: "An ID is <component>-<area>-<nnn>"
func (c Case) checkID() error {
	if !slices.Contains(oracle.Components(), c.Component) {
		return fmt.Errorf("unknown component %q (want one of %v)", c.Component, oracle.Components())
	}
	m := idRE.FindStringSubmatch(c.ID)
	switch {
	case c.ID == "":
		return errors.New(`"id" is missing`)
	case m == nil:
		return fmt.Errorf("id %q is not <component>-<area>-<nnn>", c.ID)
	case m[1] != string(c.Component):
		return fmt.Errorf("id %q does not start with its component %q", c.ID, c.Component)
	}
	return nil
}

// checkText checks the clauses and the description.
//
// spec VEC-4: "clauses lists at least one ID ... A case listing a decision DEC-n says in its one-line description on which side"
func (c Case) checkText() error {
	if len(c.Clauses) == 0 {
		return errors.New(`"clauses" is missing or empty`)
	}
	for _, id := range c.Clauses {
		if !clauseRE.MatchString(id) {
			return fmt.Errorf("clause %q is not a spec ID (AREA-n)", id)
		}
	}
	switch {
	case c.Description == "":
		return errors.New(`"description" is missing`)
	case strings.ContainsAny(c.Description, "\r\n"):
		return errors.New("description is not one line")
	}
	for _, id := range c.Clauses {
		if strings.HasPrefix(id, "DEC-") && len(decisionSides(c, id)) == 0 {
			return fmt.Errorf("description does not say on which side of %s the case lies (%q or %q)", id, id+" inside", id+" outside")
		}
	}
	return nil
}

// checkLevel checks the level.
func (c Case) checkLevel() error {
	if c.Level != Core && c.Level != Strict {
		return fmt.Errorf("level %q, want %q or %q", c.Level, Core, Strict)
	}
	return nil
}

// checkConfig checks that a config is present exactly when the component
// needs one, that it decodes, and what expect_open says.
//
// spec VEC-9: "config is present for gate ... and absent for lim"
// spec VEC-11: "such a case has no ops"
func (c Case) checkConfig() error {
	if err := c.checkConfigShape(); err != nil {
		return err
	}
	switch {
	case c.ExpectOpen != "" && c.ExpectOpen != oracle.ErrConfig:
		return fmt.Errorf("expect_open %q, want %q or nothing", c.ExpectOpen, oracle.ErrConfig)
	case c.ExpectOpen != "" && len(c.Ops) > 0:
		return fmt.Errorf("expect_open %q with %d ops: a refused config runs no op", c.ExpectOpen, len(c.Ops))
	}
	return nil
}

// checkConfigShape checks the config against the component.
func (c Case) checkConfigShape() error {
	if c.Component == oracle.Lim {
		if c.Config != nil {
			return errors.New("a lim case has no config")
		}
		return nil
	}
	if c.Config == nil {
		return fmt.Errorf("a %s case needs a config", c.Component)
	}
	var err error
	if c.Component == oracle.Gate {
		_, _, _, _, _, _, err = c.Config.GateConfig()
	} else {
		_, _, _, err = c.Config.ThrottleConfig()
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// checkOps checks that every op is an op of the component with all its
// arguments.
//
// spec VEC-10: "each an object with op (the operation) and its arguments"
func (c Case) checkOps() error {
	if c.Ops == nil {
		return errors.New(`"ops" is missing`)
	}
	for i, s := range c.Ops {
		if err := decodeOp(c.Component, s.Op); err != nil {
			return fmt.Errorf("op %d: %w", i, err)
		}
	}
	return nil
}

// decodeOp decodes op's arguments as its component's adapter would.
func decodeOp(comp oracle.Component, op oracle.Op) error {
	var err error
	switch comp {
	case oracle.Lim:
		_, err = op.Lim()
	case oracle.Gate:
		_, err = op.Gate()
	default:
		_, err = op.Throttle(comp == oracle.ThrottleFaults)
	}
	return err
}

var sideRE = regexp.MustCompile(`\b(DEC-[0-9]+) (inside|outside)\b`)

// decisionSides returns the sides of decision dec ("inside", "outside")
// that c's description says the case lies on.
func decisionSides(c Case, dec string) []string {
	var sides []string
	for _, m := range sideRE.FindAllStringSubmatch(c.Description, -1) {
		if m[1] == dec && !slices.Contains(sides, m[2]) {
			sides = append(sides, m[2])
		}
	}
	return sides
}
