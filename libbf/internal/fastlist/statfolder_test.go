package fastlist

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// StatFolder lists and stats what os.ReadDir and os.Lstat would, entry for entry.
func TestStatFolderIsReadDirAndLstat(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.md": "two", "a.md": "one", ".hidden.md": "", "c.json": "{}"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	want := func(name string, typ fs.FileMode) bool { return !typ.IsDir() && strings.HasSuffix(name, ".md") }
	got, err := StatFolder(dir, want)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var expect []FolderFile
	for _, e := range entries {
		f := FolderFile{Name: e.Name(), Type: e.Type()}
		if want(e.Name(), e.Type()) {
			info, err := os.Lstat(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			f.Stated, f.Size, f.ModTime = true, info.Size(), info.ModTime().UnixNano()
		}
		expect = append(expect, f)
	}
	if diff := cmp.Diff(expect, got); diff != "" {
		t.Errorf("entries (-os +StatFolder):\n%s", diff)
	}
	if len(got) != 6 {
		t.Errorf("%d entries, want 6", len(got))
	}
}

// Its errors are those of os.ReadDir: a missing folder is fs.ErrNotExist, a file is not
// a folder, and a link to a folder is followed.
func TestStatFolderErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "self")); err != nil {
		t.Fatal(err)
	}
	none := func(string, fs.FileMode) bool { return false }
	for _, p := range []string{filepath.Join(dir, "missing"), file, filepath.Join(dir, "self")} {
		_, err := StatFolder(p, none)
		_, osErr := os.ReadDir(p)
		if (err == nil) != (osErr == nil) || (err != nil && err.Error() != osErr.Error()) {
			t.Errorf("%s: StatFolder error %v, os.ReadDir error %v", filepath.Base(p), err, osErr)
		}
	}
	if _, err := StatFolder(filepath.Join(dir, "missing"), none); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v, want fs.ErrNotExist", err)
	}
}
