package httplimit_test

import (
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadmeExampleIsExampleNew checks that README.md's Go examples (the
// ```go blocks of its section "Using the implementation") are, line for
// line, the code of example_test.go between its markers: the first the body
// of ExampleNew_behindLoadBalancers, the second newServer (run by
// ExampleLimiter_NewPolicy), so that the README's code is code that
// compiles, and that each block stands alone (it names nothing declared
// outside its markers but the packages it imports). No other test compiles
// them: cmd/limcheck's README test runs the shell and YAML blocks only.
// Leading indentation is ignored; all else must match.
func TestReadmeExampleIsExampleNew(t *testing.T) {
	readme := readFile(t, "../../README.md")
	section := between(t, readme, "## Using the implementation\n", "\n## ")
	blocks := strings.Split(section, "```go\n")[1:]
	if len(blocks) != 2 {
		t.Fatalf("README.md's section has %d Go blocks, want 2 (the Limiter, then policies)", len(blocks))
	}
	examples := readFile(t, "example_test.go")
	for i, markers := range [][2]string{
		{"\t// README begins\n", "\t// README ends\n"},
		{"// README policies begin\n", "// README policies end\n"},
	} {
		block, _, ok := strings.Cut(blocks[i], "```\n")
		if !ok {
			t.Fatalf("README.md's Go block %d is not closed", i+1)
		}
		example := between(t, examples, markers[0], markers[1])
		if diff := cmp.Diff(trimLines(strings.TrimSpace(block)), trimLines(strings.TrimSpace(example))); diff != "" {
			t.Errorf("README.md's Go block %d and example_test.go between %q differ (-README +example):\n%s", i+1, markers[0], diff)
		}
	}
	checkTrustsAddresses(t, blocks[0])
	for _, name := range []string{"rejected", "mux"} {
		if !strings.Contains(blocks[0], name+" :=") && !strings.Contains(blocks[0], "var "+name+" ") {
			t.Errorf("README.md's first Go block uses %s without declaring it", name)
		}
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
