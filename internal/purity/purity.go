package purity

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports package-level mutable variables, func init, goroutines,
// selects, channels, impure imports and wall-clock uses in the non-test
// files of a package.
var Analyzer = &analysis.Analyzer{
	Name: "purity",
	Doc:  "purity: enforce no package-level mutable variables, goroutines, locks, wall clock or randomness",
	Run:  run,
}

// run checks every non-test file of the pass.
func run(pass *analysis.Pass) (any, error) {
	if isTestMain(pass.Pkg) {
		return nil, nil
	}
	for _, f := range pass.Files {
		if !strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			checkFile(pass, f)
		}
	}
	return nil, nil
}

// isTestMain reports whether pkg is the main package that go test
// generates to run a package's tests (path "p.test").
func isTestMain(pkg *types.Package) bool {
	return pkg.Name() == "main" && strings.HasSuffix(pkg.Path(), ".test")
}

// checkFile reports the file's declarations, imports and statements.
func checkFile(pass *analysis.Pass, f *ast.File) {
	for _, imp := range f.Imports {
		checkImport(pass, imp)
	}
	for _, d := range f.Decls {
		checkDecl(pass, d)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		checkNode(pass, n)
		return true
	})
}

// checkImport reports an import of a forbidden package.
func checkImport(pass *analysis.Pass, imp *ast.ImportSpec) {
	path, err := strconv.Unquote(imp.Path.Value)
	if err != nil {
		return
	}
	if what, ok := forbiddenImports[path]; ok {
		pass.Reportf(imp.Pos(), "purity: import of %q brings in %s; %s", path, what, rulePure)
	}
}

// checkDecl reports package-level variables and func init.
func checkDecl(pass *analysis.Pass, d ast.Decl) {
	switch d := d.(type) {
	case *ast.GenDecl:
		if d.Tok == token.VAR {
			checkVars(pass, d)
		}
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.Name == "init" {
			pass.Reportf(d.Pos(), "purity: func init %s", ruleInit)
		}
	}
}

// checkVars reports every non-blank name of a package-level var
// declaration.
func checkVars(pass *analysis.Pass, d *ast.GenDecl) {
	for _, spec := range d.Specs {
		for _, name := range spec.(*ast.ValueSpec).Names {
			if name.Name != "_" {
				pass.Reportf(name.Pos(), "purity: package-level variable %q %s", name.Name, ruleState)
			}
		}
	}
}

// checkNode reports concurrency constructs and wall-clock uses.
func checkNode(pass *analysis.Pass, n ast.Node) {
	switch n := n.(type) {
	case *ast.GoStmt:
		pass.Reportf(n.Pos(), "purity: go statement starts a goroutine; %s", ruleSequential)
	case *ast.SelectStmt:
		pass.Reportf(n.Pos(), "purity: select statement waits on channels; %s", ruleSequential)
	case *ast.SendStmt:
		pass.Reportf(n.Pos(), "purity: channel send communicates between goroutines; %s", ruleSequential)
	case *ast.ChanType:
		pass.Reportf(n.Pos(), "purity: channel type communicates between goroutines; %s", ruleSequential)
	case *ast.Ident:
		checkClock(pass, n)
	}
}

// checkClock reports id if it refers to a wall-clock function of package
// time, however the package was imported.
func checkClock(pass *analysis.Pass, id *ast.Ident) {
	fn, ok := pass.TypesInfo.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return
	}
	if fn.Signature().Recv() != nil {
		return
	}
	if what, ok := wallClock[fn.Name()]; ok {
		pass.Reportf(id.Pos(), "purity: time.%s %s; %s", fn.Name(), what, ruleClock)
	}
}
