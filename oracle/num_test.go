package oracle

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumErrorQuotesAPrefix: an integer a port or a file writes may be 1
// MiB long; the error that refuses it quotes its first bytes and says how
// long it is, so that it stays a line.
func TestNumErrorQuotesAPrefix(t *testing.T) {
	big := "1" + strings.Repeat("0", 1<<20)
	for _, tc := range []struct {
		name, json, want, reason string
	}{
		{"string", `"` + big + `"`, `"1000000000000000000000000000000000000000"... (1048577 bytes) is not a canonical`, "a decimal string out of range (VEC-6)"},
		{"number", big, `integer 1000000000000000000000000000000000000000... (1048577 bytes) must be a decimal string`, "a JSON number (VEC-6)"},
		{"short", `"01"`, `"01" is not a canonical`, "a short value is quoted whole"},
	} {
		var n Num
		err := json.Unmarshal([]byte(tc.json), &n)
		if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Unmarshal(%d bytes) = %.200v (%d bytes), want an error of at most 200 bytes with %q (%s)", tc.name, len(tc.json), err, len(errText(err)), tc.want, tc.reason)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
