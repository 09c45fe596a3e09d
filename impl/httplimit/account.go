package httplimit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxAccountLen is the most bytes of an account key's name part: longer
// names are cut at a rune boundary by [NormalizeAccount].
const MaxAccountLen = 64

// Key prefixes of a [LoginGuard] (the seed's convention).
const (
	IPKeyPrefix      = "ip:"
	AccountKeyPrefix = "acct:"
)

// NormalizeAccount returns the account key part of a submitted user name,
// and false when there is none. The rule: the name must be valid UTF-8;
// surrounding white space is trimmed; letters are lowercased
// (strings.ToLower, Unicode simple case mapping); the result is cut to at
// most MaxAccountLen bytes at a rune boundary; a result that is empty or
// holds a control character is refused. Names differing only in case or
// beyond the cap share one key, which only makes limiting stricter. The
// rule must be at least as coarse as the account lookup: if two names reach
// one account (say the user store applies NFKC), apply that first.
func NormalizeAccount(user string) (string, bool) {
	if !utf8.ValidString(user) {
		return "", false
	}
	s := strings.ToLower(strings.TrimSpace(user))
	s = truncateRunes(s, MaxAccountLen)
	if s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", false
	}
	return s, true
}

// truncateRunes cuts the valid UTF-8 string s to at most n bytes without
// splitting a rune.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
