package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/compat"
)

func TestReferenceBrainIsValid(t *testing.T) {
	root := brainfix.Copy(t, compat.Dir(t), true)
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
	root := brainfix.Copy(t, compat.Dir(t), true)
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
