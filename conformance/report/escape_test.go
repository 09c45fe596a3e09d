package report

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// TestCleanEscapesWhatActsAndKeepsWhatShows: clean writes every byte a
// terminal or viewer acts on as an escape, and leaves printable text alone.
func TestCleanEscapesWhatActsAndKeepsWhatShows(t *testing.T) {
	for _, tt := range []struct{ in, want, reason string }{
		{"plain text, spaces and all", "plain text, spaces and all", "printable ASCII is unchanged"},
		{"héllo wörld ✓", "héllo wörld ✓", "printable UTF-8 is unchanged"},
		{"\x1b[2J\x1b]0;owned\x07", `\x1b[2J\x1b]0;owned\x07`, "ESC and BEL: a clear-screen and a window title"},
		{"ok\r243 passed, 0 failed", `ok\r243 passed, 0 failed`, "CR would overwrite the line"},
		{"a\nPASS   lim-vec-001", `a\nPASS   lim-vec-001`, "LF would start a forged report line"},
		{"tab\there", `tab\there`, "tab"},
		{"nul\x00", `nul\x00`, "NUL"},
		{"del\x7f", `del\x7f`, "DEL"},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`, "invalid UTF-8 bytes"},
		{"c1 \u009b2J", `c1 \u009b2J`, "a C1 CSI, which some terminals obey"},
		{"bidi \u202Etxt.exe", `bidi \u202etxt.exe`, "a right-to-left override"},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`, "bidi isolates"},
		{"sep \u2028x", `sep \u2028x`, "a line separator"},
		{"zw \u200bx", `zw \u200bx`, "a zero-width space"},
		{`back\slash`, `back\\slash`, "a backslash is doubled, so an escape the port wrote is tellable"},
		{`\x1b`, `\\x1b`, "a port that writes the escape's text itself"},
	} {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q (%s)", tt.in, got, tt.want, tt.reason)
		}
	}
}

// TestCleanLinesBreaksOnlyAtLineBreaks: stderr keeps its lines, and no
// line can hold a byte that acts.
func TestCleanLinesBreaksOnlyAtLineBreaks(t *testing.T) {
	got := CleanLines("one\r\ntwo\x1b[A\nthree\n")
	want := []string{`one\r`, `two\x1b[A`, "three"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cleanLines = %q, want %q", got, want)
	}
}

// TestPropCleanIsSafeAndLossless: for any bytes, clean's output is valid
// UTF-8 made of printable runes only (no control, no separator, no bidi
// control), and distinct inputs give distinct outputs, so nothing is lost.
func TestPropCleanIsSafeAndLossless(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := string(rapid.SliceOf(rapid.Byte()).Draw(t, "a"))
		b := string(rapid.SliceOf(rapid.Byte()).Draw(t, "b"))
		ca := Clean(a)
		if !utf8.ValidString(ca) {
			t.Fatalf("clean(%q) = %q is not valid UTF-8", a, ca)
		}
		for _, r := range ca {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("clean(%q) = %q holds %U", a, ca, r)
			}
		}
		if a != b && ca == Clean(b) {
			t.Fatalf("clean(%q) = clean(%q) = %q: two inputs are told apart no more", a, b, ca)
		}
	})
}

// TestPropJSONSafeKeepsTheValue: for any string, the JSON encoding/json
// writes of it, made jsonSafe, is byte-clean (ByteClean, as the scripts
// check reports) and decodes to what the plain encoding decodes to.
func TestPropJSONSafeKeepsTheValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s") + string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) + "\u202e\u0085\x7f"
		plain, err := json.Marshal(map[string]string{"s": s})
		if err != nil {
			t.Fatal(err)
		}
		safe := jsonSafe(string(plain))
		if err := ByteClean(safe + "\n"); err != nil {
			t.Fatalf("jsonSafe(%s) = %s: %v", plain, safe, err)
		}
		var want, got map[string]string
		if err := json.Unmarshal(plain, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(safe), &got); err != nil || got["s"] != want["s"] {
			t.Fatalf("jsonSafe(%s) = %s decodes to %q (%v), want %q", plain, safe, got["s"], err, want["s"])
		}
	})
}
