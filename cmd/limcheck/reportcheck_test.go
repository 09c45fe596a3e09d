package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands that check limcheck's reports as a CI tool or a
// terminal receives them (registered in TestScripts).

// cmdByteClean is `byteclean FILE`: it fails unless FILE (or stdout, the
// last command's) is text no terminal or viewer acts on: valid UTF-8, no
// byte below 0x20 but LF (a tab neither), no DEL, no C1 control, no bidi
// or line-breaking rune, and a final LF.
func cmdByteClean(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: byteclean FILE")
	}
	if err := byteClean(ts.ReadFile(args[0])); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
}

// byteClean returns what in s a terminal would act on, or nil.
func byteClean(s string) error {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return fmt.Errorf("no LF at the end")
	}
	for line, l := range strings.Split(s, "\n") {
		for i := 0; i < len(l); {
			r, n := utf8.DecodeRuneInString(l[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				return fmt.Errorf("line %d, byte %d: invalid UTF-8 %#x: %q", line+1, i, l[i], l)
			case r < 0x20 || r == 0x7f || unsafeRune(r):
				return fmt.Errorf("line %d, byte %d: %U: %q", line+1, i, r, l)
			}
			i += n
		}
	}
	return nil
}
