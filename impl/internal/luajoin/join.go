// Package luajoin joins a library of Lua functions into a script of
// impl/'s Redis packages, so that each script sent by EVALSHA stands alone
// on the server while its shared functions are written once.
package luajoin

import "strings"

// Join returns the text the server runs for script with lib's functions:
// script's first line when it is a shebang ("#!lua ..."), which Redis
// reads only there, then lib, then the rest of script. A test that plants
// a bug in either file joins the texts the same way, to find the loaded
// script by the SHA-1 of its text.
func Join(lib, script string) string {
	if !strings.HasPrefix(script, "#!") {
		return lib + script
	}
	head, rest, _ := strings.Cut(script, "\n")
	return head + "\n" + lib + rest
}
