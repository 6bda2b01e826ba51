package bfdir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPrepare(t *testing.T) {
	explain := func(err error) error { return errors.New("explained") }
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
		owner int
		want  string // the error, or "" for a prepared folder
	}{
		{"missing: created", func(*testing.T, string) {}, os.Geteuid(), ""},
		{"loose mode: tightened", func(t *testing.T, root string) { mkdir(t, root, 0o755) }, os.Geteuid(), ""},
		{"symbolic link", func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, "elsewhere"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("elsewhere", filepath.Join(root, Name)); err != nil {
				t.Fatal(err)
			}
		}, os.Geteuid(), MsgSymlink + ", then retry"},
		{"a file", func(t *testing.T, root string) {
			if err := os.WriteFile(filepath.Join(root, Name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, os.Geteuid(), msgNotDir + ", then retry"},
		{"another owner", func(t *testing.T, root string) { mkdir(t, root, 0o700) }, os.Geteuid() + 1, msgOtherUser + ", then retry"},
		{"unreadable parent", func(t *testing.T, root string) {
			if err := os.Chmod(root, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(root, 0o700) })
		}, os.Geteuid(), "explained"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "explained" && os.Geteuid() == 0 {
				t.Skip("root writes anywhere")
			}
			root := t.TempDir()
			tc.setup(t, root)
			dir, err := Prepare(root, tc.owner, ", then retry", explain)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("error %q, want %q", got, tc.want)
			}
			if tc.want != "" {
				return
			}
			st, err := os.Lstat(dir)
			if err != nil || dir != filepath.Join(root, Name) || !st.IsDir() || st.Mode().Perm() != 0o700 {
				t.Fatalf("Prepare made %s (%v, %v), want %s/.bf with mode 0700", dir, st.Mode(), err, root)
			}
		})
	}
}

// mkdir creates dir/.bf with mode.
func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, Name)
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
