package judge

import (
	"strings"
	"testing"
)

// TestCutTextOnceKeepsTheTrueCount: a string cut to a limit and cut again
// to the same limit (the protocol client, then the search) is unchanged by
// the second cut, so its note still counts the bytes the first one cut.
func TestCutTextOnceKeepsTheTrueCount(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	once := CutText(long, 4096)
	if want := strings.Repeat("x", 4096) + " ... (5904 bytes cut)"; once != want {
		t.Fatalf("CutText(10000 x, 4096) ends %q, want %q", once[4090:], want[4090:])
	}
	if twice := CutText(once, 4096); twice != once {
		t.Errorf("CutText(CutText(s, 4096), 4096) ends %q, want it unchanged, ending %q", twice[4090:], once[4090:])
	}
	if short := CutText("ok ... (3 bytes cut)", 4096); short != "ok ... (3 bytes cut)" {
		t.Errorf("CutText of a short string = %q, want it unchanged", short)
	}
}

// TestCutTextForgedMark: a port that ends its own string in a cut mark
// gains nothing by it. Only a string of CutText's shape (at most limit
// bytes, the mark, a canonical count, in at most limit+cutNoteMax bytes)
// is left whole; a forged mark with a million leading zeros, or far past
// the limit, is cut like any long string.
func TestCutTextForgedMark(t *testing.T) {
	const limit = 1024
	x := strings.Repeat("x", 1010) // with a note, past the limit
	for _, tc := range []struct {
		name, s string
		whole   bool
		reason  string
	}{
		{"zeros", x + " ... (" + strings.Repeat("0", 1<<20) + "1 bytes cut)", false, "a count with a million leading zeros is no count CutText writes"},
		{"padded", x + " ... (" + strings.Repeat("0", 30) + "1 bytes cut)", false, "a leading zero is not canonical, even within the length bound"},
		{"signed", x + " ... (+5 bytes cut)", false, "a sign is not canonical"},
		{"zero count", x + " ... (0 bytes cut)", false, "CutText cuts at least 1 byte"},
		{"huge count", strings.Repeat("x", limit) + " ... (99999999999999999999 bytes cut)", false, "20 digits: more than CutText ever writes"},
		{"short", strings.Repeat("x", 10) + " ... (5 bytes cut)", true, "at most limit bytes: left alone as any short string"},
		{"inner mark", strings.Repeat("x", 500) + " ... (5 bytes cut)" + strings.Repeat("y", 1<<20) + " ... (5 bytes cut)", false, "the last mark is past the limit"},
		{"honest", CutText(strings.Repeat("é", 1<<19), limit), true, "CutText's own cut, at a rune boundary, is left whole"},
	} {
		got := CutText(tc.s, limit)
		if len(got) > limit+cutNoteMax {
			t.Errorf("%s: CutText(%d bytes, %d) keeps %d bytes, want at most %d (%s)", tc.name, len(tc.s), limit, len(got), limit+cutNoteMax, tc.reason)
		}
		if (got == tc.s) != tc.whole {
			t.Errorf("%s: CutText(%d bytes, %d) left whole %v, want %v (%s)", tc.name, len(tc.s), limit, got == tc.s, tc.whole, tc.reason)
		}
	}
}
