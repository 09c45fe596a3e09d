package archcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxFuncLines is the most lines a function of a package under the
// length rule spans ([LengthRule]).
const MaxFuncLines = 60

// LengthRule lists the module-relative folders whose non-test functions
// may span at most MaxFuncLines lines, each with every package below it:
// the conformance wing and the oracle, which third parties read.
var LengthRule = []string{"conformance", "oracle", "internal/subject", "cmd/limcheck"}

// LongFunc is a function that spans more lines than a limit.
type LongFunc struct {
	Pos   string // file:line of its func keyword
	Name  string // its name; "func literal" for a literal
	Lines int    // from its func keyword to its closing brace
}

// String renders f as "file:line: name spans N lines".
func (f LongFunc) String() string {
	return fmt.Sprintf("%s: %s spans %d lines", f.Pos, f.Name, f.Lines)
}

// LongFuncs returns the functions, declared or literal, of the non-test Go
// files in dir and below it (testdata folders left out) that span more
// than limit lines, from the func keyword to the closing brace, in file
// order. A literal inside a function counts on its own and within that
// function.
func LongFuncs(dir string, limit int) ([]LongFunc, error) {
	var out []LongFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		long, err := longInFile(fset, path, limit)
		out = append(out, long...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("archcheck: function lengths under %s: %w", dir, err)
	}
	return out, nil
}

// longInFile returns the functions of one file longer than limit lines.
func longInFile(fset *token.FileSet, path string, limit int) ([]LongFunc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []LongFunc
	ast.Inspect(f, func(n ast.Node) bool {
		name, body := funcOf(n)
		if body == nil {
			return true
		}
		start := fset.Position(n.Pos())
		if lines := fset.Position(body.Rbrace).Line - start.Line + 1; lines > limit {
			out = append(out, LongFunc{Pos: fmt.Sprintf("%s:%d", path, start.Line), Name: name, Lines: lines})
		}
		return true
	})
	return out, nil
}

// funcOf returns the name and body of a function declaration or literal;
// a nil body for any other node.
func funcOf(n ast.Node) (string, *ast.BlockStmt) {
	switch f := n.(type) {
	case *ast.FuncDecl:
		return f.Name.Name, f.Body
	case *ast.FuncLit:
		return "func literal", f.Body
	}
	return "", nil
}
