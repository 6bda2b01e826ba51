package cache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/record"
	"github.com/google/go-cmp/cmp"
)

func TestRecoverPending(t *testing.T) {
	a, b := record.FileName("a"), record.FileName("b")
	tests := []struct {
		name    string
		files   map[string]string // written before recovery
		want    map[string]string // memories/mail after recovery ("" = absent)
		wantErr string
		kept    bool // the journal must still be there
	}{
		{
			name: "incomplete: restore backups, delete created files",
			files: map[string]string{
				"memories/mail/" + a:                "new a",
				"memories/mail/" + b:                "created b",
				"memories/.pending/0.before":        "old a",
				"memories/.pending/.write-" + hex32: "temp",
				"memories/.pending/manifest.json":   `{"changes":[{"existed":true,"name":"` + a + `"},{"existed":false,"name":"` + b + `"}],"complete":false,"source":"mail","version":1}`,
			},
			want: map[string]string{a: "old a", b: ""},
		},
		{
			name: "restored file whose target was deleted",
			files: map[string]string{
				"memories/.pending/0.before":      "old a",
				"memories/.pending/manifest.json": `{"changes":[{"existed":true,"name":"` + a + `"}],"complete":false,"source":"mail","version":1}`,
			},
			want: map[string]string{a: "old a"},
		},
		{
			name: "complete: only clean up",
			files: map[string]string{
				"memories/mail/" + a:              "new a",
				"memories/.pending/0.before":      "old a",
				"memories/.pending/manifest.json": `{"changes":[{"existed":true,"name":"` + a + `"}],"complete":true,"source":"mail","version":1}`,
			},
			want: map[string]string{a: "new a"},
		},
		{
			name: "no manifest yet: nothing was changed",
			files: map[string]string{
				"memories/mail/" + a:         "a",
				"memories/.pending/0.before": "a",
			},
			want: map[string]string{a: "a"},
		},
		{
			name: "unexpected file",
			files: map[string]string{
				"memories/mail/" + a:              "new a",
				"memories/.pending/notes.txt":     "mine",
				"memories/.pending/manifest.json": `{"changes":[],"complete":false,"source":"mail","version":1}`,
			},
			want:    map[string]string{a: "new a"},
			wantErr: "unexpected file in memories/.pending; preserve it and repair the pending transaction",
			kept:    true,
		},
		{
			name: "invalid manifest",
			files: map[string]string{
				"memories/mail/" + a:              "new a",
				"memories/.pending/manifest.json": `{"changes":[{"existed":true,"name":"../x"}],"complete":false,"source":"mail","version":1}`,
			},
			want:    map[string]string{a: "new a"},
			wantErr: "invalid memories/.pending manifest; preserve it and repair the pending transaction",
			kept:    true,
		},
		{
			name: "missing backup changes nothing",
			files: map[string]string{
				"memories/mail/" + a:              "new a",
				"memories/mail/" + b:              "created b",
				"memories/.pending/manifest.json": `{"changes":[{"existed":false,"name":"` + b + `"},{"existed":true,"name":"` + a + `"}],"complete":false,"source":"mail","version":1}`,
			},
			want:    map[string]string{a: "new a", b: "created b"},
			wantErr: "cannot read backup 1.before in memories/.pending: no such file or directory; preserve the folder and repair the pending transaction",
			kept:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for p, s := range tt.files {
				full := filepath.Join(root, filepath.FromSlash(p))
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := recoverPending(root)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Fatalf("error = %q, want %q", got, tt.wantErr)
			}
			files := map[string]string{}
			for name := range tt.want {
				data, err := os.ReadFile(filepath.Join(root, "memories/mail", name))
				if err == nil {
					files[name] = string(data)
				} else {
					files[name] = ""
				}
			}
			if diff := cmp.Diff(tt.want, files); diff != "" {
				t.Errorf("memories/mail (-want +got):\n%s", diff)
			}
			_, err = os.Stat(filepath.Join(root, "memories/.pending"))
			if kept := !errors.Is(err, os.ErrNotExist); kept != tt.kept {
				t.Errorf("journal kept = %v, want %v", kept, tt.kept)
			}
			left, _ := filepath.Glob(filepath.Join(root, "memories/mail/.write-*"))
			if len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

const hex32 = "0123456789abcdef0123456789abcdef"

func TestInterrupted(t *testing.T) {
	tests := []struct {
		manifest string
		want     bool
	}{
		{"", false},
		{`{"changes":[],"complete":true,"source":"mail","version":1}`, false},
		{`{"changes":[],"complete":false,"source":"mail","version":1}`, true},
		{`not json`, true},
	}
	for _, tt := range tests {
		root := t.TempDir()
		if tt.manifest != "" {
			os.MkdirAll(filepath.Join(root, "memories/.pending"), 0o755)
			os.WriteFile(filepath.Join(root, "memories/.pending/manifest.json"), []byte(tt.manifest), 0o644)
		}
		got, err := interrupted(root)
		if err != nil || got != tt.want {
			t.Errorf("%q: interrupted = %v, %v; want %v", tt.manifest, got, err, tt.want)
		}
	}
}
