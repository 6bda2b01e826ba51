package memory

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A POSIX shell reads every quoted word back as it was, whatever it holds.
func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, c := range []struct{ word, quoted string }{
		{"channel:deploy", "channel:deploy"},
		{"/home/ana/brain", "/home/ana/brain"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's $HOME", `'it'\''s $HOME'`},
		{"a\nb `x` \\ \"q\"", "'a\nb `x` \\ \"q\"'"},
		{"café", "'café'"},
	} {
		got := shellQuote(c.word)
		if got != c.quoted {
			t.Errorf("shellQuote(%q) = %q, want %q", c.word, got, c.quoted)
		}
		out, err := exec.Command(sh, "-c", "printf %s "+got).Output()
		if err != nil || string(out) != c.word {
			t.Errorf("sh read %q back as %q (%v)", got, out, err)
		}
	}
}

// A save removes the temporary files of killed saves, and only those: old enough, named
// as durable.WriteFile names them.
func TestRememberRemovesLeftovers(t *testing.T) {
	s := newStore(t)
	dir := filepath.Join(s.Brain.Root, Folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * leftoverAge)
	files := map[string]time.Time{
		".a.md.123.tmp":   old,        // left by a killed save
		".b.md.9.tmp":     time.Now(), // a save may still be writing it
		".c.md.tmp":       old,        // not durable's name
		".d.md.12x.tmp":   old,
		"e.md.123.tmp":    old,
		".f.yaml.123.tmp": old,
	}
	for name, at := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Remember(context.Background(), RememberRequest{Type: "fact", Title: "Wiki moved", Body: "Now on the intranet."}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".b.md.9.tmp", ".c.md.tmp", ".d.md.12x.tmp", ".f.yaml.123.tmp", "e.md.123.tmp", "wiki-moved.md"}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("left in %s (-want +got):\n%s", Folder, diff)
	}
}
