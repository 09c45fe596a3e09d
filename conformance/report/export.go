package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
)

// Export copies the embedded vectors folder (conformance.Vectors), the
// port protocol's schema and the report schema ([Schema]) to dir, for
// limcheck vectors export, and returns the number of case files. It writes
// through no symbolic link: one where it would write a file or make a
// folder (planted in a folder that was not empty) is refused by name
// before anything is written, and every write goes through an os.Root of
// dir, so that a link planted meanwhile cannot take it outside dir. Nor
// through a hard link: each file is written anew and renamed over its name.
func Export(dir string) (int, error) {
	paths, err := exportPaths()
	if err != nil {
		return 0, err
	}
	if err := refuseLinks(dir, paths); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	n := 0
	for _, p := range paths {
		if filepath.Ext(p) == ".json" && strings.Contains(p, "/") {
			n++
		}
		if err := exportOne(root, p); err != nil {
			return n, err
		}
	}
	return n, nil
}

// protocolSchemaFile is the name Export gives protocol.ProtocolSchema.
const protocolSchemaFile = "protocol.schema.json"

// exportPaths lists what Export writes, slash-separated and relative to
// its folder, each folder before what it holds.
func exportPaths() ([]string, error) {
	var paths []string
	err := fs.WalkDir(conformance.Vectors, ".", func(p string, d fs.DirEntry, err error) error {
		if p != "." {
			paths = append(paths, p)
		}
		return err
	})
	return append(paths, protocolSchemaFile, SchemaFile), err
}

// exportOne makes the folder or writes the file p in root.
func exportOne(root *os.Root, p string) error {
	var data []byte
	switch p {
	case protocolSchemaFile:
		data = protocol.ProtocolSchema
	case SchemaFile:
		data = Schema
	default:
		st, err := fs.Stat(conformance.Vectors, p)
		if err != nil {
			return err
		}
		if st.IsDir() {
			if err := root.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			return nil
		}
		if data, err = fs.ReadFile(conformance.Vectors, p); err != nil {
			return err
		}
	}
	return replaceFile(root, p, data)
}

// replaceFile writes data to a new file beside p in root and renames it
// over p, so that a p hard-linked to a file elsewhere is replaced, not
// written through: the other name keeps its content.
func replaceFile(root *os.Root, p string, data []byte) error {
	tmp := p + ".limcheck-tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, p)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// refuseLinks returns an error naming every path of paths in dir that is
// a symbolic link, with its target, and none for what lies under one.
func refuseLinks(dir string, paths []string) error {
	var links []string
	for _, p := range paths {
		if under(p, links) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			links = append(links, p)
		}
	}
	if len(links) == 0 {
		return nil
	}
	named := make([]string, len(links))
	for i, p := range links {
		full := filepath.Join(dir, filepath.FromSlash(p))
		to, _ := os.Readlink(full)
		named[i] = fmt.Sprintf("%s is a symbolic link (to %s)", Clean(full), Clean(to))
	}
	them := "it"
	if len(links) > 1 {
		them = "them"
	}
	return fmt.Errorf("%s: it would write through %s; remove %s, or export to another folder", strings.Join(named, ", "), them, them)
}

// under reports whether p lies under one of the folders dirs.
func under(p string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") })
}
