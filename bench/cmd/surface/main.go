// Command surface measures libbf's exported surface: for each package of the libbf module,
// how many exported top-level names it declares (constants, variables, types and functions
// in its package scope; methods and fields are not top-level) and how many of them are used
// outside the package.
//
// A name is used outside its package when an identifier denoting it appears in a file of
// another package of the workspace (every module go.work lists: libbf itself, the commands,
// e2e, bench, examples), test files of those other packages included. The package's own
// files do not count, and neither do its tests: its internal _test.go files and its
// external test package (package NAME_test). Only linux files are read (the build
// constraints of the machine running it).
//
// It prints one line per package and the total, and exits 1 when the share of exported
// names used outside falls below -min percent: names nothing outside needs belong
// unexported (or behind libbf/internal/), so that go doc of a package reads as its API.
// Run it from the workspace root (make lint does).
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/types"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/tools/go/packages"
)

// libbfPath is the import path of the module whose surface is measured.
const libbfPath = "github.com/bfgo/bf/libbf"

func main() {
	min := flag.Float64("min", 0, "exit 1 when the share of exported names used outside their package is below this percent")
	list := flag.Bool("list", false, "also list, per package, the exported names used only inside it")
	flag.Parse()
	pkgs, err := load(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "surface:", err)
		os.Exit(2)
	}
	s := measure(pkgs)
	s.print(os.Stdout, *list)
	if share := s.share(); share < *min {
		fmt.Fprintf(os.Stderr, "surface: %.1f %% of libbf's exported names are used outside their package, below %.0f %%: unexport the names only their package uses (bench/cmd/surface -list names them)\n", share, *min)
		os.Exit(1)
	}
}

// load type-checks every package of the workspace with its tests. patterns default to
// "work", the packages of every module go.work lists.
func load(patterns []string) ([]*packages.Package, error) {
	if len(patterns) == 0 {
		patterns = []string{"work"}
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	var problems []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			problems = append(problems, e.Error())
		}
	})
	if len(problems) > 0 {
		return nil, fmt.Errorf("the workspace does not type-check (run go vet for details):\n%s", strings.Join(problems, "\n"))
	}
	return pkgs, nil
}

// surface holds, per libbf package path, its exported top-level names and which of them
// are used outside it.
type surface struct {
	exported map[string][]string        // package path -> sorted exported names
	outside  map[string]map[string]bool // package path -> names used outside
}

func measure(pkgs []*packages.Package) surface {
	s := surface{exported: map[string][]string{}, outside: map[string]map[string]bool{}}
	for _, p := range pkgs {
		if !inLibbf(p.PkgPath) || p.Name == "main" || isTestVariant(p) {
			continue
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if ast.IsExported(name) {
				s.exported[p.PkgPath] = append(s.exported[p.PkgPath], name)
			}
		}
		s.outside[p.PkgPath] = map[string]bool{}
	}
	for _, p := range pkgs {
		if isTestMain(p) {
			continue // go test's generated main names the test functions
		}
		home := homePath(p)
		for _, obj := range p.TypesInfo.Uses {
			path, name, ok := topLevel(obj)
			if !ok || path == home || !inLibbf(path) {
				continue
			}
			if used, ok := s.outside[path]; ok {
				used[name] = true
			}
		}
	}
	return s
}

// topLevel reports the package path and name of obj when it is an exported name declared
// in a package scope.
func topLevel(obj types.Object) (path, name string, ok bool) {
	switch o := obj.(type) {
	case *types.Func:
		obj = o.Origin()
	case *types.Var:
		obj = o.Origin()
	}
	if obj.Pkg() == nil || !obj.Exported() || obj.Parent() != obj.Pkg().Scope() {
		return "", "", false
	}
	return obj.Pkg().Path(), obj.Name(), true
}

// homePath is the package a loaded package's files belong to: an external test package
// (path NAME_test) and a test variant ("NAME [NAME.test]") belong to the package they test.
func homePath(p *packages.Package) string {
	return strings.TrimSuffix(p.PkgPath, "_test")
}

// isTestVariant reports whether p is a package compiled with test files (its ID names the
// test, as in "PATH [PATH.test]"), an external test package or a generated test main.
func isTestVariant(p *packages.Package) bool {
	return p.ID != p.PkgPath
}

func isTestMain(p *packages.Package) bool {
	return p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test")
}

func inLibbf(path string) bool {
	return path == libbfPath || strings.HasPrefix(path, libbfPath+"/")
}

func (s surface) share() float64 {
	exported, used := s.totals()
	if exported == 0 {
		return 100
	}
	return 100 * float64(used) / float64(exported)
}

func (s surface) totals() (exported, used int) {
	for path, names := range s.exported {
		exported += len(names)
		used += len(s.outside[path])
	}
	return exported, used
}

func (s surface) print(w io.Writer, list bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "package\texported\tused outside\tshare\t")
	paths := make([]string, 0, len(s.exported))
	for path := range s.exported {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		names, used := s.exported[path], len(s.outside[path])
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", strings.TrimPrefix(path, libbfPath+"/"), len(names), used, percent(used, len(names)))
	}
	exported, used := s.totals()
	fmt.Fprintf(tw, "libbf\t%d\t%d\t%s\t\n", exported, used, percent(used, exported))
	tw.Flush()
	if !list {
		return
	}
	for _, path := range paths {
		var inside []string
		for _, name := range s.exported[path] {
			if !s.outside[path][name] {
				inside = append(inside, name)
			}
		}
		if len(inside) > 0 {
			fmt.Fprintf(w, "%s: %s\n", strings.TrimPrefix(path, libbfPath+"/"), strings.Join(inside, " "))
		}
	}
}

func percent(part, whole int) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(part)/float64(whole))
}
