package starter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/config"
	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "brain")
	res, err := Write(dir, Options{Name: "brain"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitattributes", ".gitignore", "AGENTS.md", "actions/", "bf.yaml", "concepts/index.md", "concepts/welcome.md", "evals/retrieval.yaml", "projects/"}
	if diff := cmp.Diff(want, res.Created); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	cfg, err := config.Load(dir)
	if err != nil || cfg.Name != "brain" || len(cfg.Relations()) != 4 {
		t.Fatalf("bf.yaml: %+v, %v", cfg, err)
	}
	suite, err := os.ReadFile(filepath.Join(dir, "evals", "retrieval.yaml"))
	if err != nil || !strings.Contains(string(suite), "version: 8\n") || !strings.Contains(string(suite), "read: bf://brain/concepts/welcome.md") {
		t.Errorf("suite = %s, %v", suite, err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode = %v, %v", st.Mode(), err)
	}
}

func TestWriteFull(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, Options{Name: "b", Full: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range fullFolders {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || !st.IsDir() {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestWriteRefusesNonEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, Options{Name: "b"}); err != nil {
		t.Fatalf("a folder holding only .git: %v", err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(other, Options{Name: "b"}); !errors.Is(err, errNotEmpty) {
		t.Fatalf("err = %v, want ErrNotEmpty", err)
	}
	entries, _ := os.ReadDir(other)
	if len(entries) != 1 {
		t.Errorf("the refused folder changed: %v", entries)
	}
}

func TestNote(t *testing.T) {
	tests := []struct{ rel, want string }{
		{"projects/tax-rules.md", "---\ntype: project\ntitle: Tax rules\nstatus: draft\n---\n\n# Tax rules\n"},
		{"concepts/a/b_c.md", "---\ntype: concept\ntitle: B c\nstatus: draft\n---\n\n# B c\n"},
		{"actions/2026-01-01_x/ACTION.md", "---\ntype: action\ntitle: ACTION\nstatus: draft\n---\n\n# ACTION\n"},
	}
	for _, tt := range tests {
		if got := string(Note(tt.rel, TitleOf(tt.rel))); got != tt.want {
			t.Errorf("Note(%q) = %q, want %q", tt.rel, got, tt.want)
		}
	}
	if got := string(Note("projects/x.md", "A: b")); !strings.Contains(got, "title: \"A: b\"\n") {
		t.Errorf("a title with a colon is not quoted: %q", got)
	}
}
