package httplimit_test

import (
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadmeExampleIsExampleNew checks that README.md's Go example (the
// only ```go block of its section "Using the implementation") is, line for
// line, the body of ExampleNew_behindLoadBalancers between its markers, so
// that the README's code is code that compiles (no other test compiles
// it: cmd/limcheck's README test runs the shell and YAML blocks only).
// Leading indentation is ignored; all else must match.
func TestReadmeExampleIsExampleNew(t *testing.T) {
	readme := readFile(t, "../../README.md")
	section := between(t, readme, "## Using the implementation\n", "\n## ")
	block := between(t, section, "```go\n", "```\n")
	checkTrustsAddresses(t, block)
	example := between(t, readFile(t, "example_test.go"), "\t// README begins\n", "\t// README ends\n")
	if diff := cmp.Diff(trimLines(block), trimLines(example)); diff != "" {
		t.Errorf("README.md's example and ExampleNew_behindLoadBalancers differ (-README +example):\n%s", diff)
	}
}

// checkTrustsAddresses fails t unless every trusted proxy prefix the example
// spells is one address: a wider prefix lets every host in it write the
// header and choose its own key.
func checkTrustsAddresses(t *testing.T, code string) {
	t.Helper()
	found := 0
	for _, part := range strings.Split(code, `netip.MustParsePrefix("`)[1:] {
		text, _, _ := strings.Cut(part, `")`)
		p, err := netip.ParsePrefix(text)
		if err != nil || !p.IsSingleIP() {
			t.Errorf("README.md trusts %q as a proxy (%v): trust the proxies' own addresses, /32 or /128", text, err)
		}
		found++
	}
	if found == 0 {
		t.Errorf("README.md's example trusts no proxy: the test no longer sees what it checks")
	}
}

// readFile returns the file's text, failing t on error.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// between returns the text of s after the first start and before the next
// end, failing t when either is missing.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		t.Fatalf("no %q", start)
	}
	inner, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("no %q after %q", end, start)
	}
	return inner
}

// trimLines returns the lines of s without their leading tabs and spaces.
func trimLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	return lines
}
