package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/compat"
)

// copyBrain copies the shared example brain into a temporary folder, bumping its format
// lines to version 8: its notes and records are unchanged between the two formats.
func copyBrain(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".yaml") {
			data = []byte(strings.Replace(string(data), "version: 7", "version: 8", 1))
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReferenceBrainIsValid(t *testing.T) {
	root := copyBrain(t, compat.Dir(t))
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Brain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || r.Notes != 14 || r.Records != 6 || len(r.Warnings) != 0 || len(r.Unresolved) != 0 {
		t.Errorf("report = %+v", r)
	}
}

func TestBrokenLinkInReferenceBrain(t *testing.T) {
	root := copyBrain(t, compat.Dir(t))
	p := filepath.Join(root, "projects", "atlas.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, "\nSee [gone](gone.md#x).\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Brain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{Error: "broken link: gone.md#x", File: "projects/atlas.md"}}
	if r.Valid || len(r.Problems) != 1 || r.Problems[0] != want[0] {
		t.Errorf("problems = %+v", r.Problems)
	}
}

func TestBody(t *testing.T) {
	tests := []struct {
		data string
		line int
		want string
	}{
		{"no front matter", 1, "no front matter"},
		{"---\na: 1\n---\nbody\n", 4, "body\n"},
		{"---\r\na: 1\r\n---\r\nbody", 4, "body"},
		{"---\ra\r---\rbody", 4, "body"},
		{"short", 5, ""},
	}
	for _, tt := range tests {
		if got := body([]byte(tt.data), tt.line); got != tt.want {
			t.Errorf("body(%q, %d) = %q, want %q", tt.data, tt.line, got, tt.want)
		}
	}
}
