package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strings"
)

// IssuedID is one line of ids.txt: an ID once issued, and whether its case
// was removed.
type IssuedID struct {
	ID      string
	Retired bool
}

// retiredSuffix marks a removed ID in ids.txt.
const retiredSuffix = " retired"

// ReadIDs reads IDsFile at the top of fsys: one ID a line, a removed one
// followed by " retired". A line that is neither, or an ID listed twice, is
// an error.
//
// spec VEC-3: "ids.txt lists every ID ever issued, one a line, a removed one followed by retired"
func ReadIDs(fsys fs.FS) ([]IssuedID, error) {
	data, err := fs.ReadFile(fsys, IDsFile)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	return ParseIDs(data)
}

// ParseIDs parses the contents of an ids.txt.
func ParseIDs(data []byte) ([]IssuedID, error) {
	var ids []IssuedID
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		id, retired := strings.CutSuffix(sc.Text(), retiredSuffix)
		if !idRE.MatchString(id) {
			return nil, fmt.Errorf("conformance: %s:%d: %q is not an ID, optionally followed by %q", IDsFile, n, sc.Text(), retiredSuffix)
		}
		if seen[id] {
			return nil, fmt.Errorf("conformance: %s:%d: %s is listed twice", IDsFile, n, id)
		}
		seen[id] = true
		ids = append(ids, IssuedID{ID: id, Retired: retired})
	}
	return ids, sc.Err()
}

// FormatIDs returns the contents of an ids.txt listing ids in order.
func FormatIDs(ids []IssuedID) []byte {
	var b bytes.Buffer
	for _, id := range ids {
		b.WriteString(id.ID)
		if id.Retired {
			b.WriteString(retiredSuffix)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// CheckIDs returns one error for each break of the ID rules between the
// issued ids and the cases: a case whose ID is not listed or is retired, a
// listed live ID with no case. (Load already refuses two files with one ID.)
//
// spec VEC-3: "every case's ID is listed and not retired, and every listed ID not retired has a file"
func CheckIDs(ids []IssuedID, cases []Case) []error {
	issued := map[string]IssuedID{}
	for _, id := range ids {
		issued[id.ID] = id
	}
	have := map[string]bool{}
	var errs []error
	for _, c := range cases {
		have[c.ID] = true
		switch id, ok := issued[c.ID]; {
		case !ok:
			errs = append(errs, fmt.Errorf("conformance: case %s is not listed in %s", c.ID, IDsFile))
		case id.Retired:
			errs = append(errs, fmt.Errorf("conformance: case %s has an ID %s lists as retired", c.ID, IDsFile))
		}
	}
	for _, id := range ids {
		if !id.Retired && !have[id.ID] {
			errs = append(errs, fmt.Errorf("conformance: %s lists %s, which has no case file", IDsFile, id.ID))
		}
	}
	return errs
}
