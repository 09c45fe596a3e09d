package oracle

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Num is an integer in [-2^63, 2^64-1], the union of the int64 and uint64
// domains, carried in JSON as a decimal string so that no language loses
// precision (a JavaScript JSON.parse would round a 64-bit number). The zero
// Num is absent: it is left out of JSON by omitzero and reported missing by
// the op that needs it. Build one with [I] or [U].
type Num struct {
	set bool
	neg bool   // negative: the value is -abs
	abs uint64 // magnitude; at most 2^63 when neg
}

// I returns the Num of an int64.
func I(v int64) Num {
	if v < 0 {
		return Num{set: true, neg: true, abs: uint64(-(v + 1)) + 1}
	}
	return Num{set: true, abs: uint64(v)}
}

// U returns the Num of a uint64.
func U(v uint64) Num { return Num{set: true, abs: v} }

// IsZero reports whether n is absent (encoding/json's omitzero calls it).
func (n Num) IsZero() bool { return !n.set }

// Int64 returns n as an int64, or false when it is absent or out of range.
func (n Num) Int64() (int64, bool) {
	switch {
	case !n.set:
		return 0, false
	case n.neg:
		return -int64(n.abs-1) - 1, true // abs <= 2^63 by construction
	case n.abs > math.MaxInt64:
		return 0, false
	}
	return int64(n.abs), true
}

// Uint64 returns n as a uint64, or false when it is absent or negative.
func (n Num) Uint64() (uint64, bool) { return n.abs, n.set && !n.neg }

// String returns the decimal form, or "absent".
func (n Num) String() string {
	switch {
	case !n.set:
		return "absent"
	case n.neg:
		return "-" + strconv.FormatUint(n.abs, 10)
	}
	return strconv.FormatUint(n.abs, 10)
}

// AppendText appends the decimal form ("absent" when n is absent), as
// String returns it, without allocating.
func (n Num) AppendText(b []byte) ([]byte, error) {
	switch {
	case !n.set:
		return append(b, "absent"...), nil
	case n.neg:
		b = append(b, '-')
	}
	return strconv.AppendUint(b, n.abs, 10), nil
}

// MarshalJSON writes the decimal string.
func (n Num) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(n.String())), nil }

// UnmarshalJSON reads a decimal string in [-2^63, 2^64-1]. A JSON number is
// refused: it may already have lost precision in the writer.
func (n *Num) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("oracle: integer %s must be a decimal string", cutPrefix(string(b)))
	}
	v, err := ParseNum(s)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// ParseNum parses a decimal integer in [-2^63, 2^64-1]: an optional '-', then
// digits, no '+', no spaces, no leading zeros but for "0" itself.
func ParseNum(s string) (Num, error) {
	digits, neg := s, false
	if len(s) > 0 && s[0] == '-' {
		digits, neg = s[1:], true
	}
	bad := digits == "" || len(digits) > 1 && digits[0] == '0' || neg && digits == "0"
	abs, err := strconv.ParseUint(digits, 10, 64)
	if bad || err != nil || neg && abs > 1<<63 {
		return Num{}, fmt.Errorf("oracle: %s is not a canonical decimal integer in [-2^63, 2^64-1]", quotePrefix(s))
	}
	return Num{set: true, neg: neg, abs: abs}, nil
}

// quotePrefix quotes s as %q does, cut by cutPrefix.
func quotePrefix(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + cutPrefix(s)[maxQuoted:]
}

// cutPrefix returns s, or, when it is longer than maxQuoted bytes, its
// first maxQuoted and how long it is: an error about a value from outside
// (a port may write an integer of 1 MiB) stays a line.
func cutPrefix(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:maxQuoted], len(s))
}

// maxQuoted is the most bytes of a value an error quotes: a canonical
// integer has at most 20.
const maxQuoted = 40

// Bytes is a byte string, not necessarily UTF-8 (an address, a key, a
// response). JSON carries valid UTF-8 as a plain string and anything else as
// {"hex": "..."}; readers accept both forms for any value.
type Bytes string

// MarshalJSON writes a string, or {"hex": ...} when b is not valid UTF-8.
func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(b)) {
		return json.Marshal(string(b))
	}
	return json.Marshal(struct {
		Hex string `json:"hex"`
	}{hex.EncodeToString([]byte(b))})
}

// UnmarshalJSON reads either form.
//
// spec VEC-7: "a reader refuses it as malformed, as it refuses an odd-length or non-hex hex value"
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		if loneSurrogate(data) {
			return fmt.Errorf("oracle: byte string %s has a lone surrogate escape, which has no UTF-8 bytes", data)
		}
		*b = Bytes(s)
		return nil
	}
	var h map[string]json.RawMessage // exact keys: {"HEX": ...} is not the hex form
	var digits string
	if err := json.Unmarshal(data, &h); err != nil || string(h["hex"]) == "null" || json.Unmarshal(h["hex"], &digits) != nil {
		return fmt.Errorf("oracle: byte string %s must be a string or {\"hex\": ...}", data)
	}
	raw, err := hex.DecodeString(digits)
	if err != nil {
		return fmt.Errorf("oracle: byte string hex %q: %w", digits, err)
	}
	*b = Bytes(raw)
	return nil
}

// loneSurrogate reports whether the JSON string literal data has a \u
// escape of a UTF-16 surrogate that is not half of a high-low pair.
func loneSurrogate(data []byte) bool {
	high := false // the previous escape was a high surrogate
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			if high {
				return true
			}
			continue
		}
		if i+6 > len(data) || data[i+1] != 'u' {
			if high {
				return true
			}
			i++
			continue
		}
		v, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
		if err != nil {
			return false // not a valid string: json.Unmarshal refused it already
		}
		i += 5
		switch {
		case v >= 0xd800 && v < 0xdc00:
			if high {
				return true
			}
			high = true
		case v >= 0xdc00 && v < 0xe000:
			if !high {
				return true
			}
			high = false
		default:
			if high {
				return true
			}
		}
	}
	return high
}

// Equal reports whether n and m are the same integer, or both absent
// (go-cmp uses it).
func (n Num) Equal(m Num) bool { return n == m }
