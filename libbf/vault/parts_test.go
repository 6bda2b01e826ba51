package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/starter"
)

func TestRelDest(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"concepts/a.md", "concepts/b.md", "b.md"},
		{"concepts/x/a.md", "concepts/b c.md", "../b%20c.md"},
		{"concepts/a.md", "concepts/Q&A: x.md", "./Q%26A:%20x.md"},
		{"concepts/a.md", "concepts/dir:1/n.md", "./dir:1/n.md"},
		{"concepts/a.md", "concepts/caf\u00e9#1.md", "caf%C3%A9%231.md"},
		{"concepts/a.md", "concepts/a.md", "a.md"},
	}
	for _, tt := range tests {
		if got := relDest(tt.from, tt.to); got != tt.want {
			t.Errorf("relDest(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestHeadingKey(t *testing.T) {
	same := [][2]string{
		{"Design Notes", "design  notes"},
		{"The **bold** part", "The bold part"},
		{"Q&A: what?", "q a what"},
		{"Café — menu", "café menu"},
	}
	for _, p := range same {
		if headingKey(p[0]) != headingKey(p[1]) {
			t.Errorf("headingKey(%q) = %q, headingKey(%q) = %q", p[0], headingKey(p[0]), p[1], headingKey(p[1]))
		}
	}
	if headingKey("Design") == headingKey("Designs") {
		t.Error("different words compare equal")
	}
}

func TestWithAliases(t *testing.T) {
	tests := []struct{ body, want string }{
		{"# T\nText\n", "# T\n\nAlso known as: A, B\n\nText\n"},
		{"\n# T\n\nText\n", "\n# T\n\nAlso known as: A, B\n\nText\n"},
		{"# T", "# T\n\nAlso known as: A, B\n"},
		{"Text first\n", "Also known as: A, B\n\nText first\n"},
		{"## Not a title\n", "Also known as: A, B\n\n## Not a title\n"},
	}
	for _, tt := range tests {
		if got := withAliases(tt.body, []string{"A", "B"}); got != tt.want {
			t.Errorf("withAliases(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
	if got := withAliases("x\n", nil); got != "x\n" {
		t.Errorf("no aliases changed the body: %q", got)
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Plain name.md":   "Plain name.md",
		"a\\b.md":         "a-b.md",
		"tab\there.md":    "tab-here.md",
		"zero\u200bw.md":  "zero-w.md",
		"bad\xffutf8.md":  "bad-utf8.md",
		"   ":             "untitled",
		"Q&A: été?.md":    "Q&A: été?.md",
		"emoji 🚀 name.md": "emoji 🚀 name.md",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTypes(t *testing.T) {
	src := fixture(t, map[string]string{
		"Projects/p.md":           "p",
		"Projects/Daily/d.md":     "d",
		"Other/o.md":              "o",
		"typed.md":                "---\ntype: person\n---\nx",
		"projects-lookalike/x.md": "x",
	})
	dest := filepath.Join(t.TempDir(), "b")
	_, err := Import(context.Background(), Options{Source: src, Dest: dest, Types: map[string]string{"projects": "project", "Projects/Daily": "action"}})
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"Projects/p.md":           "project",
		"Projects/Daily/d.md":     "action",
		"Other/o.md":              "concept",
		"typed.md":                "person",
		"projects-lookalike/x.md": "concept",
	} {
		text := read(t, filepath.Join(dest, "concepts", filepath.FromSlash(file)))
		if !strings.Contains(text, "\ntype: "+want+"\n") {
			t.Errorf("%s: want type %s in\n%s", file, want, text)
		}
	}
}

func TestDestinations(t *testing.T) {
	src := fixture(t, map[string]string{"n.md": "# N\n"})
	parent := t.TempDir()
	b := filepath.Join(parent, "brain")
	if _, err := starter.Write(b, starter.Options{Name: "brain"}); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(parent, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		arg  string // argument an InputError names; "" for success
	}{
		{"brain root", Options{Dest: b}, "DEST"},
		{"not empty", Options{Dest: full}, "DEST"},
		{"outside authored roots", Options{Dest: filepath.Join(b, "memories", "x")}, "DEST"},
		{"hidden folder", Options{Dest: filepath.Join(b, "concepts", ".hidden")}, "DEST"},
		{"into disagrees", Options{Dest: filepath.Join(b, "concepts", "v"), Into: "projects"}, "--into"},
		{"name in a brain", Options{Dest: filepath.Join(b, "concepts", "v"), Name: "x"}, "--name"},
		{"bad into", Options{Dest: filepath.Join(parent, "new"), Into: "actions"}, "--into"},
		{"bad name", Options{Dest: filepath.Join(parent, "new"), Name: "Bad Name"}, "--name"},
		{"underived name", Options{Dest: filepath.Join(parent, "___")}, "--name"},
		{"bad from", Options{Dest: filepath.Join(parent, "new"), From: "notion"}, "--from"},
		{"bad type", Options{Dest: filepath.Join(parent, "new"), Types: map[string]string{"x": " "}}, "--type"},
		{"source inside", Options{Dest: filepath.Join(src, "out")}, "DEST"},
		{"existing brain projects root", Options{Dest: filepath.Join(b, "projects")}, ""},
		{"dry run", Options{Dest: filepath.Join(parent, "dry"), DryRun: true}, ""},
	}
	for _, tt := range tests {
		tt.opt.Source = src
		_, err := Import(context.Background(), tt.opt)
		var in *InputError
		switch {
		case tt.arg == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.arg != "" && (!errors.As(err, &in) || in.Argument != tt.arg):
			t.Errorf("%s: got %v, want invalid %s", tt.name, err, tt.arg)
		}
	}
	if _, err := os.Stat(filepath.Join(parent, "dry")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a dry run wrote its destination")
	}
	if text := read(t, filepath.Join(b, "projects", "n.md")); text != "---\ntype: project\nupdated: \"2026-03-04\"\n---\n# N\n" {
		t.Errorf("projects/n.md = %q", text)
	}
	if rep := validate(t, b); !rep.Valid {
		t.Errorf("existing brain after import: %+v", rep)
	}
	if _, err := Import(context.Background(), Options{Source: filepath.Join(parent, "absent"), Dest: filepath.Join(parent, "n2")}); !errors.As(err, new(*InputError)) {
		t.Errorf("absent source: %v", err)
	}
}

func TestCancelled(t *testing.T) {
	src := fixture(t, map[string]string{"n.md": "x"})
	dest := filepath.Join(t.TempDir(), "b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Import(ctx, Options{Source: src, Dest: dest}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Error("a cancelled import wrote its destination")
	}
}

// A killed import leaves its staging folder: the next import removes it, but never a
// folder a running import holds nor one created a moment ago.
func TestAbandonedStagesRemoved(t *testing.T) {
	src := fixture(t, map[string]string{"n.md": "# N\n"})
	parent := t.TempDir()
	old := time.Now().Add(-time.Minute)
	stage := func(name string, when time.Time) string {
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "concepts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "concepts", "x.md"), []byte("# X\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, when, when); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	killed := stage(".bf-import-111", old)
	running := stage(".bf-import-222", old)
	fresh := stage(".bf-import-333", time.Now())
	other := stage(".keep-me", old)
	// A running import holds a lock on its staging folder.
	held, err := os.Open(running)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(context.Background(), Options{Source: src, Dest: filepath.Join(parent, "b")}); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{killed: false, running: true, fresh: true, other: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v (%v)", filepath.Base(dir), got, want, err)
		}
	}
	list, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{".bf-import-222", ".bf-import-333", ".keep-me", "b"}, names); diff != "" {
		t.Errorf("parent folder (-want +got):\n%s", diff)
	}
}
