package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const rec = "8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json"

func TestBrain(t *testing.T) {
	root := t.TempDir()
	write(t, root,
		"bf.yaml",
		"projects/a.md", "projects/sub/b.md", "projects/notes.txt", "projects/.hidden.md",
		"projects/.git/x.md",
		"concepts/index.md",
		"actions/2026-09-01_x/ACTION.md", "actions/2026-09-01_x/inputs/in.md", "actions/README.md",
		"memories/meetings/"+rec, "memories/meetings/notes.txt", "memories/meetings/.write-0123",
		"memories/.pending/manifest.json", "memories/Bad/"+rec, "memories/loose.json",
		"memories/empty/",
	)
	if err := os.Symlink(filepath.Join(root, "projects/a.md"), filepath.Join(root, "concepts/link.md")); err != nil {
		t.Fatal(err)
	}
	tree, err := Brain(root)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, n := range tree.Notes {
		notes = append(notes, n.Path)
	}
	want := []string{
		"actions/2026-09-01_x/ACTION.md", "actions/2026-09-01_x/inputs/in.md", "actions/README.md",
		"concepts/index.md", "projects/a.md", "projects/sub/b.md",
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"actions/2026-09-01_x", "actions/2026-09-01_x/inputs", "projects/sub"}, tree.Folders); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
	if len(tree.Sources) != 2 || tree.Sources[0].Name != "empty" || tree.Sources[1].Name != "meetings" ||
		len(tree.Sources[1].Records) != 1 || tree.Sources[1].Records[0].Path != "memories/meetings/"+rec {
		t.Errorf("sources = %+v", tree.Sources)
	}
	var stray []string
	for _, f := range tree.Stray {
		stray = append(stray, f.Path)
	}
	if diff := cmp.Diff([]string{"memories/loose.json", "memories/meetings/notes.txt"}, stray); diff != "" {
		t.Errorf("stray (-want +got):\n%s", diff)
	}
	if len(tree.Leftover) != 1 || tree.Leftover[0].Path != "memories/meetings/.write-0123" {
		t.Errorf("leftover = %+v", tree.Leftover)
	}
	wantProblems := []Problem{
		{"concepts/link.md", "symbolic links are not followed; move the file into the brain"},
		{"memories/Bad", "record source folders must be named like sensors: lowercase letters, digits and hyphens"},
	}
	if diff := cmp.Diff(wantProblems, tree.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// A folder past the depth limit is skipped and named; the rest of its root stays listed.
func TestDepth(t *testing.T) {
	root := t.TempDir()
	deep := "projects/" + strings.Repeat("d/", MaxDepth) + "x.md"
	write(t, root, deep)
	write(t, root, "projects/a.md")
	tree, err := Brain(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{"projects/" + strings.Repeat("d/", MaxDepth-1) + "d", MsgTooDeep}}
	if diff := cmp.Diff(want, tree.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(tree.Notes) != 1 || tree.Notes[0].Path != "projects/a.md" {
		t.Errorf("notes = %+v", tree.Notes)
	}
}

// A symbolic link in place of memories/ or an authored root is not followed.
func TestLinkedRoots(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	write(t, elsewhere, "m/src/"+strings.Repeat("a", 64)+".json")
	write(t, elsewhere, "c/x.md")
	if err := os.Symlink(filepath.Join(elsewhere, "m"), filepath.Join(root, "memories")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "c"), filepath.Join(root, "concepts")); err != nil {
		t.Fatal(err)
	}
	tree, err := Brain(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{"concepts", MsgSymlinkFolder}, {"memories", MsgSymlinkFolder}}
	if diff := cmp.Diff(want, tree.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(tree.Notes) != 0 || len(tree.Sources) != 0 {
		t.Errorf("followed a link: notes %+v, sources %+v", tree.Notes, tree.Sources)
	}
}

// A note or folder whose name is not valid UTF-8 cannot be addressed: it is skipped and
// named with its bad bytes written out.
func TestInvalidNames(t *testing.T) {
	root := t.TempDir()
	write(t, root, "concepts/bad\xff\xfename.md")
	write(t, root, "concepts/odd\xc3/inside.md")
	write(t, root, "concepts/good.md")
	write(t, root, "concepts/other\xff.txt")
	tree, err := Brain(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{`concepts/bad\xff\xfename.md`, MsgInvalidName},
		{`concepts/odd\xc3`, MsgInvalidName},
	}
	if diff := cmp.Diff(want, tree.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(tree.Folders) != 0 {
		t.Errorf("folders = %q, want none", tree.Folders)
	}
	if len(tree.Notes) != 1 || tree.Notes[0].Path != "concepts/good.md" {
		t.Errorf("notes = %+v", tree.Notes)
	}
}
