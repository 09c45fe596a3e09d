package conformance

import (
	"embed"
	"io/fs"
)

//go:generate go run ./cmd/genvectors -spec ../spec.md -dir vectors

//go:embed vectors
var embedded embed.FS

// Vectors is the committed vectors folder (VEC-1): a folder per component
// holding its case files, schema.json and ids.txt at the top. Read its cases
// with Load.
var Vectors fs.FS = mustSub(embedded, "vectors")

// SchemaFile and IDsFile are the names of the schema and the ID list at the
// top of a vectors folder.
const (
	SchemaFile = "schema.json"
	IDsFile    = "ids.txt"
)

// mustSub returns the subtree dir of fsys; it panics only if dir is not a
// valid path, a programming error.
func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
