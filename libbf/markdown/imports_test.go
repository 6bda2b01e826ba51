package markdown_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoExtensionPackage keeps goldmark's extension package out of every command: libbf and
// the command folders beside it import neither it nor goldmark's root package (which brings
// the HTML renderer), outside tests. Node kinds come from goldmark/extension/ast.
func TestNoExtensionPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	banned := map[string]bool{
		"github.com/yuin/goldmark":           true,
		"github.com/yuin/goldmark/extension": true,
	}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			top := strings.Split(filepath.ToSlash(rel), "/")[0]
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root ||
				rel != "." && top != "libbf" && top != "bf" && !strings.HasPrefix(top, "bf-") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); banned[path] {
				t.Errorf("%s imports %s: parse Markdown with libbf/markdown instead", p, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d Go files under %s: is this the repository?", files, root)
	}
}
