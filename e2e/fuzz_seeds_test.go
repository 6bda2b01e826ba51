package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Every fuzz target of the repository carries its own seeds — f.Add calls or files in
// testdata/fuzz/FuzzNAME beside it — and never skips itself, so `go test` runs each on a
// real corpus in a fresh clone, without the shared folder beside the checkout.
func TestFuzzTargetsHaveSeeds(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self))
	targets := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "cache" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || fn.Body == nil {
				continue
			}
			targets++
			if problem := fuzzTargetProblem(fn, filepath.Join(filepath.Dir(path), "testdata", "fuzz", fn.Name.Name)); problem != "" {
				t.Errorf("%s: %s %s", rel, fn.Name.Name, problem)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets == 0 {
		t.Fatal("found no fuzz targets")
	}
}

// fuzzTargetProblem says what is wrong with one fuzz target, or "" when it has seeds and
// cannot skip before fuzzing.
func fuzzTargetProblem(fn *ast.FuncDecl, corpus string) string {
	var param string
	if ps := fn.Type.Params.List; len(ps) == 1 && len(ps[0].Names) == 1 {
		param = ps[0].Names[0].Name
	}
	if param == "" {
		return "takes no *testing.F parameter"
	}
	adds, skip := 0, ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit != nil {
			return false // the fuzz function itself may skip single inputs
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch {
		case x.Name == param && sel.Sel.Name == "Add":
			adds++
		case x.Name == param && strings.HasPrefix(sel.Sel.Name, "Skip"):
			skip = "skips itself"
		case x.Name == "compat" && sel.Sel.Name == "Dir":
			skip = "depends on the shared folder beside the checkout, and skips without it"
		}
		return true
	})
	if skip != "" {
		return skip
	}
	if adds > 0 {
		return ""
	}
	if entries, err := os.ReadDir(corpus); err == nil && len(entries) > 0 {
		return ""
	}
	return "has no seeds: add f.Add calls or files in " + filepath.Join("testdata", "fuzz", fn.Name.Name)
}
