package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// ErrLimit is matched (errors.Is) by every error Load, ReadFile and Parse
// return for input over one of the limits below.
var ErrLimit = errors.New("conformance: over a limit")

// limitError is an error of input over a limit: its message names the
// file and the limit.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

func overLimit(format string, args ...any) error {
	return &limitError{fmt.Sprintf(format, args...)}
}

// The limits of what Load and Parse read, so that no input, however
// large, takes a reader's memory: the committed vectors stay far below
// them (their largest file is under 4 KiB, their longest case 11 ops,
// their longest string under 200 bytes; fuzz's counterexamples have at
// most 64 ops).
//
// spec VEC-1: "a case file over 1 MiB, a case of more than 10000 ops or with a string over 1 KiB, and a folder whose case files hold more than 64 MiB or 100000 ops"
const (
	MaxFileSize   = 1 << 20  // bytes of one case file
	MaxOps        = 10_000   // ops of one case
	MaxString     = 1 << 10  // bytes of one string of a case: its ID, a clause, its description, a byte string, an expected verdict
	MaxFolderSize = 64 << 20 // bytes of the case files of one vectors folder
	MaxFolderOps  = 100_000  // ops of the cases of one vectors folder
)

// Load reads every case file of fsys, a vectors folder laid out as VEC-1
// says (Vectors is one), in path order. It fails on the first file that is
// not a valid case, naming the file and what is wrong, on two files with
// one ID, on a case file that is not a regular file (a FIFO would block
// the read forever), and on input over the limits (MaxFileSize and the
// rest: ErrLimit). A component folder may be a symbolic link to a folder.
//
// spec VEC-1: "One case per file, at conformance/vectors/<component>/<id>.json"
func Load(fsys fs.FS) ([]Case, error) {
	paths, err := casePaths(fsys)
	if err != nil {
		return nil, err
	}
	if err := checkFolderSize(fsys, paths); err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(paths))
	seen := map[string]string{}
	var ops int64
	for _, p := range paths {
		c, err := loadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		if ops += int64(len(c.Ops)); ops > MaxFolderOps {
			return nil, overLimit("conformance: %s: the cases up to this one have %d ops: over the limit of %d per vectors folder", p, ops, MaxFolderOps)
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
		dir, err := isDir(fsys, d)
		if err != nil {
			return nil, err
		}
		if !dir {
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

// isDir reports whether the entry d of the top of fsys is a folder, or a
// symbolic link to one: such a link is followed, one level only (Load
// reads no deeper than the files of a component folder), and a loop is an
// error, never a folder silently left out.
func isDir(fsys fs.FS, d fs.DirEntry) (bool, error) {
	if d.Type()&fs.ModeSymlink == 0 {
		return d.IsDir(), nil
	}
	st, err := fs.Stat(fsys, d.Name())
	if err != nil {
		return false, fmt.Errorf("conformance: read vectors: %s: %w", d.Name(), err)
	}
	return st.IsDir(), nil
}

// checkFolderSize refuses case files that hold more than MaxFolderSize
// bytes together, before any is read.
func checkFolderSize(fsys fs.FS, paths []string) error {
	var size int64
	for _, p := range paths {
		st, err := fs.Stat(fsys, p)
		if err != nil {
			return fmt.Errorf("conformance: %w", err)
		}
		if size += st.Size(); size > MaxFolderSize {
			return overLimit("conformance: %s: the case files up to this one hold %d bytes: over the limit of %s per vectors folder", p, size, bytesText(MaxFolderSize))
		}
	}
	return nil
}

// loadFile reads and validates the case file at p.
func loadFile(fsys fs.FS, p string) (Case, error) {
	data, err := ReadFile(fsys, p)
	if err != nil {
		return Case{}, err
	}
	c, err := Parse(data)
	if errors.Is(err, ErrLimit) {
		return Case{}, overLimit("conformance: %s: %v", p, err)
	}
	if err != nil {
		return Case{}, fmt.Errorf("%w: %s: %w", ErrInvalid, p, err)
	}
	return c, nil
}

// ReadFile reads the case file name of fsys: a regular file of at most
// MaxFileSize bytes. Anything else is an error naming the file, returned
// before it is opened (a FIFO's open would block until a writer came).
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("conformance: %w", err)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("conformance: %s: not a regular file", name)
	case st.Size() > MaxFileSize:
		return nil, fileTooBig(name, st.Size())
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("conformance: %s: %w", name, err)
	case len(data) > MaxFileSize: // it grew since the Stat
		return nil, fileTooBig(name, int64(len(data)))
	}
	return data, nil
}

// fileTooBig is the error of a case file of size bytes.
func fileTooBig(name string, size int64) error {
	return overLimit("conformance: %s: %d bytes: over the limit of %s per case file", name, size, bytesText(MaxFileSize))
}

// bytesText renders a limit of n bytes, a whole number of KiB or MiB.
func bytesText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Parse decodes and validates one case file, wherever it lies (Load also
// checks that its path matches its component and ID). Integers and byte
// strings decode through oracle.Num and oracle.Bytes, which refuse a JSON
// number, a non-canonical decimal and malformed hex.
//
// spec VEC-6: "Every integer ... is a JSON string holding a canonical decimal in [-2^63, 2^64-1]"
// spec VEC-7: "a reader accepts both forms for any byte string"
//
// It refuses data over MaxFileSize, a case of more than MaxOps ops and a
// string over MaxString bytes, with errors that wrap ErrLimit.
func Parse(data []byte) (Case, error) {
	if len(data) > MaxFileSize {
		return Case{}, overLimit("%d bytes: over the limit of %s per case file", len(data), bytesText(MaxFileSize))
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("malformed case: %w", err)
	}
	if dec.More() {
		return Case{}, errors.New("malformed case: data after the case object")
	}
	if err := c.checkLimits(); err != nil {
		return Case{}, err
	}
	return c, c.validate()
}

// checkLimits checks the case against MaxOps and MaxString.
func (c Case) checkLimits() error {
	if len(c.Ops) > MaxOps {
		return overLimit("%d ops: over the limit of %d per case", len(c.Ops), MaxOps)
	}
	long := func(what string, n int) error {
		return overLimit("%s: a string of %d bytes: over the limit of %s per string", what, n, bytesText(MaxString))
	}
	for _, f := range []struct{ name, s string }{{"id", c.ID}, {"description", c.Description}, {"component", string(c.Component)}, {"level", string(c.Level)}} {
		if len(f.s) > MaxString {
			return long(f.name, len(f.s))
		}
	}
	for i, id := range c.Clauses {
		if len(id) > MaxString {
			return long(fmt.Sprintf("clause %d", i), len(id))
		}
	}
	for i, s := range c.Ops {
		for _, b := range opStrings(s) {
			if len(b) > MaxString {
				return long(fmt.Sprintf("op %d", i), len(b))
			}
		}
	}
	return nil
}

// opStrings returns the strings of a step: its op's kind and byte
// strings, and its expected verdict, response and error class.
func opStrings(s Step) []string {
	out := []string{string(s.Kind), s.Expect.Verdict, string(s.Expect.Error)}
	for _, b := range []*oracle.Bytes{s.IP, s.Key, s.Expect.Response} {
		if b != nil {
			out = append(out, string(*b))
		}
	}
	for _, k := range s.Keys {
		out = append(out, string(k))
	}
	for _, f := range s.Faults {
		out = append(out, f.Op)
		for _, k := range f.Keys {
			out = append(out, string(k))
		}
	}
	return out
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
	// spec VEC-15: "A twin case's config is accepted."
	case c.Twin && c.ExpectOpen != "":
		return fmt.Errorf("twin with expect_open %q: a twin case's config is accepted", c.ExpectOpen)
	case c.Twin && c.Component == oracle.Lim:
		return errors.New("twin on lim: lim's functions have no instance to share state with")
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
		_, _, _, _, _, _, _, err = c.Config.GateConfig()
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
