// Package limcheck holds spec.md, the specification every other package
// implements or checks, for the tools that report against it (limcheck
// coverage). It imports only the standard library.
package limcheck

import _ "embed"

// Spec is the text of spec.md.
//
//go:embed spec.md
var Spec string
