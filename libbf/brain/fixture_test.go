package brain

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture is a temporary home with its own environment; nothing reads the real home.
type fixture struct {
	t    *testing.T
	home string
	vars map[string]string
	wd   string
	euid int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	// Resolve /tmp symlinks (macOS) so paths compare as written.
	home, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, home: home, vars: map[string]string{}, wd: home, euid: os.Geteuid()}
}

func (f *fixture) env() Env {
	return Env{
		Getenv:  func(k string) string { return f.vars[k] },
		Getwd:   func() (string, error) { return f.wd, nil },
		Home:    f.home,
		Geteuid: func() int { return f.euid },
	}
}

// path joins a slash-separated path below home.
func (f *fixture) path(rel string) string {
	return filepath.Join(f.home, filepath.FromSlash(rel))
}

func (f *fixture) write(rel, content string) string {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) symlink(target, rel string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		f.t.Fatal(err)
	}
}

// brain creates a brain folder at rel named name, with brains: references (name → path).
func (f *fixture) brain(rel, name string, refs ...string) string {
	f.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "version: 8\nname: %s\n", name)
	if len(refs) > 0 {
		b.WriteString("brains:\n")
		for i := 0; i+1 < len(refs); i += 2 {
			fmt.Fprintf(&b, "  %s:\n    path: %q\n", refs[i], refs[i+1])
		}
	}
	f.write(rel+"/bf.yaml", b.String())
	return f.path(rel)
}

// register writes a registry with name → path pairs (paths as written).
func (f *fixture) register(pairs ...string) {
	f.t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	var b strings.Builder
	b.WriteString("brains:\n")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "  %s:\n    path: %q\n", k, m[k])
	}
	f.write(".config/bf/config.yaml", b.String())
}

// rel shows a path or a message with the home folder as ~.
func (f *fixture) rel(s string) string {
	return strings.ReplaceAll(s, f.home, "~")
}

func (f *fixture) errText(err error) string {
	if err == nil {
		return ""
	}
	return f.rel(err.Error())
}
