package durable

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name   string
		before string // "" for no file
		perm   os.FileMode
	}{
		{"creates", "", 0o600},
		{"replaces", "old content", 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "state.json")
			if tt.before != "" {
				if err := os.WriteFile(file, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(file, []byte("new\n"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(file)
			if err != nil || string(got) != "new\n" {
				t.Fatalf("content %q, %v", got, err)
			}
			info, err := os.Stat(file)
			if err != nil || info.Mode().Perm() != tt.perm {
				t.Fatalf("mode %v, want %v (%v)", info.Mode().Perm(), tt.perm, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Fatalf("folder holds %d entries, want only the file: %v", len(entries), entries)
			}
		})
	}
}

func TestWriteFileFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A folder where the file should be makes the rename fail after the temporary file
	// was written.
	target := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("new"), 0o600); err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
	if got, _ := os.ReadFile(file); string(got) != "old" {
		t.Fatalf("other file changed: %q", got)
	}
}

func TestSyncDirMissing(t *testing.T) {
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("syncing a missing folder succeeded")
	}
}
