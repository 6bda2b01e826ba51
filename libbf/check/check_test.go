package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/compat"
	"github.com/bfgo/bf/libbf/store"
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
	// Its records came from another tool, not from this brain's collection: each is named
	// until a person adopts it.
	if !r.Valid || r.Notes != 14 || r.Records != 6 || len(r.Warnings) != 6 || len(r.Unresolved) != 0 {
		t.Errorf("report = %+v", r)
	}
	for _, w := range r.Warnings {
		if !strings.HasPrefix(w.Warning, "collection did not write this record") || !strings.Contains(w.Warning, "bf review --accept "+w.File) {
			t.Errorf("warning = %+v", w)
		}
	}
	for _, src := range []string{"calendar", "catalog", "documents", "meetings"} {
		if _, err := store.Adopt(context.Background(), root, src, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if r, err = Brain(b, nil); err != nil || !r.Valid || len(r.Warnings) != 0 {
		t.Errorf("after adopting: report = %+v, %v", r, err)
	}
	// A record changed since collection wrote it is unconfirmed again.
	f := filepath.Join(root, "memories", "meetings", "8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err = Brain(b, nil); err != nil || len(r.Warnings) != 1 || r.Warnings[0].File != "memories/meetings/8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json" {
		t.Errorf("after a change: report = %+v, %v", r, err)
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

func TestSupersedesCycle(t *testing.T) {
	config := "version: 8\nname: acme\nfields:\n  supersedes:\n    description: The note this one replaces.\n    type: identity\n    cardinality: many\n    relation: true\n"
	notes := map[string]string{
		// k and l replace each other, by a typed link and by a field.
		"concepts/k.md": "---\ntype: concept\n---\n# K\n\n[Replaces](bf://acme/concepts/l.md?rel=supersedes)\n",
		"concepts/l.md": "---\ntype: concept\nfields:\n  supersedes: [\"bf://acme/concepts/k.md\"]\n---\n# L\n",
		// A chain is no cycle.
		"concepts/m1.md": "---\ntype: concept\n---\n# M1\n",
		"concepts/m2.md": "---\ntype: concept\n---\n# M2\n\n[Replaces](bf://acme/concepts/m1.md?rel=supersedes)\n",
	}
	b := brainfix.New(t, brainfix.Spec{Config: config, Notes: notes}).Open()
	r, err := Brain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{File: "concepts/k.md", Error: "supersedes cycle: concepts/k.md → concepts/l.md → concepts/k.md; a note cannot replace what replaces it: remove one of these supersedes links"},
		{File: "concepts/l.md", Error: "supersedes cycle: concepts/l.md → concepts/k.md → concepts/l.md; a note cannot replace what replaces it: remove one of these supersedes links"},
	}
	if diff := cmp.Diff(want, r.Problems); diff != "" || r.Valid {
		t.Errorf("valid = %v, problems (-want +got):\n%s", r.Valid, diff)
	}
}
