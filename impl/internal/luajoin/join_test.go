package luajoin

import "testing"

// TestJoin checks where Join puts the library: after a shebang line, which
// Redis reads only as a script's first line, else in front.
func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		script, want, reason string
	}{
		{"#!lua\nB\n", "#!lua\nA\nB\n", "a script's shebang stays first"},
		{"#!lua flags=no-writes\nB", "#!lua flags=no-writes\nA\nB", "a shebang's flags stay with it"},
		{"#!lua", "#!lua\nA\n", "a shebang alone gets its line end"},
		{"B\n", "A\nB\n", "no shebang: the library goes in front"},
		{"", "A\n", "an empty script is the library alone"},
	} {
		if got := Join("A\n", tc.script); got != tc.want {
			t.Errorf("Join(%q, %q) = %q, want %q (%s)", "A\n", tc.script, got, tc.want, tc.reason)
		}
	}
}
