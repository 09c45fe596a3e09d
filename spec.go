// Package limcheck holds spec.md and its decision register,
// spec-decisions.md, the specification every other package implements or
// checks, for the tools that report against it (limcheck coverage). It
// imports only the standard library.
package limcheck

import (
	"embed"
)

// Spec is the text of spec.md.
//
//go:embed spec.md
var Spec string

// Decisions is the text of spec-decisions.md, the decision register that
// belongs to spec.md: its DEC-n entries.
//
//go:embed spec-decisions.md
var Decisions string

// Files holds spec.md and spec-decisions.md at its root, as
// internal/speccheck's ReadSpec reads them.
//
//go:embed spec.md spec-decisions.md
var Files embed.FS
