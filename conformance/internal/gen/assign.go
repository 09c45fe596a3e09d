package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limcheck/limcheck/conformance"
)

// Entry is a filled case waiting for its ID, with the area its ID takes.
type Entry struct {
	Area string
	Case conformance.Case
}

// key is the identity of a case across generator runs.
func key(c conformance.Case) string { return string(c.Component) + "\x00" + c.Description }

// Assign gives each entry's case its ID. prev maps the key (component and
// description) of each committed case to its ID; issued is ids.txt. It
// returns the cases, in entry order, and the new ids.txt: the old lines in
// order, with each ID no entry keeps marked retired, then the new IDs.
//
// spec VEC-3: "IDs are unique, never renumbered and never reused"
func Assign(prev map[string]string, issued []conformance.IssuedID, entries []Entry) ([]conformance.Case, []conformance.IssuedID, error) {
	ids := slices.Clone(issued)
	live := map[string]bool{}
	for _, id := range ids {
		live[id.ID] = !id.Retired
	}
	used := map[string]bool{}
	seen := map[string]bool{}
	cases := make([]conformance.Case, 0, len(entries))
	for _, e := range entries {
		c := e.Case
		if seen[key(c)] {
			return nil, nil, fmt.Errorf("gen: two %s cases are described %q: a description names one case", c.Component, c.Description)
		}
		seen[key(c)] = true
		if id, ok := prev[key(c)]; ok && live[id] && !used[id] {
			c.ID = id
		} else {
			c.ID = next(ids, string(c.Component)+"-"+e.Area+"-")
			ids = append(ids, conformance.IssuedID{ID: c.ID})
		}
		used[c.ID] = true
		cases = append(cases, c)
	}
	for n := range ids {
		ids[n].Retired = ids[n].Retired || !used[ids[n].ID]
	}
	return cases, ids, nil
}

// next returns the ID after the highest number ids has ever listed with
// prefix.
func next(ids []conformance.IssuedID, prefix string) string {
	top := 0
	for _, id := range ids {
		if n, err := strconv.Atoi(strings.TrimPrefix(id.ID, prefix)); err == nil && strings.HasPrefix(id.ID, prefix) {
			top = max(top, n)
		}
	}
	return fmt.Sprintf("%s%03d", prefix, top+1)
}
