package report

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxLabel is the most characters of a port's name and version that a
// line of a text report shows (label).
const maxLabel = 80

// plainWord is a name or a version a text report shows as it is: one
// word of letters, digits and . _ + - @ /, that starts with a letter or
// a digit.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+@/-]*$`)

// portLabel is a port's name and version, each clean already, as a line
// of a text report shows them: as they are when each is one plain word
// (limcheck-python 2.0.1), else together in double quotes, so that a name
// never passes for a summary line ("x 1: 322 passed, 0 failed" 1); runs
// of white space collapse to one space, so that none pushes the rest of
// the line off the screen, and past maxLabel characters the text is cut,
// its cut marked with "...".
func portLabel(name, version string) string {
	if plainWord.MatchString(name) && (version == "" || plainWord.MatchString(version)) {
		return cutLabel(strings.TrimSpace(name + " " + version))
	}
	text := cutLabel(strings.Join(strings.Fields(name+" "+version), " "))
	return `"` + strings.ReplaceAll(text, `"`, `\"`) + `"`
}

// cutLabel cuts s to maxLabel characters, "..." included, when it is longer.
func cutLabel(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-3]) + "..."
}

// Label is the report's port as a line of the text report names it
// (portLabel).
func (rep *Run) Label() string { return portLabel(rep.Port.Name, rep.Port.Version) }

// uniqueNames returns names with every repeat made unique by a suffix:
// the second "x" is "x #2", the third "x #3" (and so on, past any name
// that has such a suffix already), so that no two JUnit testsuites of one
// run look the same on a dashboard.
func uniqueNames(names []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		u := n
		for k := 2; seen[u]; k++ {
			u = fmt.Sprintf("%s #%d", n, k)
		}
		seen[u], out[i] = true, u
	}
	return out
}
