package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecover(t *testing.T) {
	a, b := fn("a"), fn("b")
	manifestOf := func(complete string, changes string) string {
		return `{"changes":[` + changes + `],"complete":` + complete + `,"source":"mail","version":1}`
	}
	existedA := `{"existed":true,"name":"` + a + `"}`
	createdB := `{"existed":false,"name":"` + b + `"}`
	tests := []struct {
		name    string
		files   map[string]string // under memories/, before
		link    [2]string         // a hard link to make, [from, to], under memories/
		want    map[string]string // memories/ after
		wantErr string
	}{
		{
			name: "incomplete: backups restored, created files deleted, temporary files swept",
			files: map[string]string{
				"mail/" + a:                  "new a",
				"mail/" + b:                  "created b",
				"mail/.write-" + hex32:       "temp",
				"mail/notes.txt":             "mine",
				".pending/0.before":          "old a",
				".pending/.write-" + hex32:   "temp",
				".pending/manifest.json":     manifestOf("false", existedA+","+createdB),
				"other/" + a:                 "another source",
				"other/.write-" + hex32[:31]: "not ours to sweep",
			},
			want: map[string]string{
				"mail/": "", "mail/" + a: "old a", "mail/notes.txt": "mine",
				"other/": "", "other/" + a: "another source", "other/.write-" + hex32[:31]: "not ours to sweep",
			},
		},
		{
			name: "incomplete: a deleted file comes back",
			files: map[string]string{
				"mail/notes.txt":         "mine",
				".pending/0.before":      "old a",
				".pending/manifest.json": manifestOf("false", existedA),
			},
			want: map[string]string{"mail/": "", "mail/" + a: "old a", "mail/notes.txt": "mine"},
		},
		{
			name: "incomplete: the whole source folder had gone",
			files: map[string]string{
				".pending/0.before":      "old a",
				".pending/manifest.json": manifestOf("false", existedA),
			},
			want: map[string]string{"mail/": "", "mail/" + a: "old a"},
		},
		{
			name: "incomplete: a file still holding its backup is left alone",
			files: map[string]string{
				"mail/" + a:              "old a",
				".pending/manifest.json": manifestOf("false", existedA),
			},
			link: [2]string{"mail/" + a, ".pending/0.before"},
			want: map[string]string{"mail/": "", "mail/" + a: "old a"},
		},
		{
			name: "complete: only cleared",
			files: map[string]string{
				"mail/" + a:              "new a",
				"mail/.write-" + hex32:   "temp",
				".pending/0.before":      "old a",
				".pending/manifest.json": manifestOf("true", existedA),
			},
			want: map[string]string{"mail/": "", "mail/" + a: "new a"},
		},
		{
			name: "no manifest: nothing had changed",
			files: map[string]string{
				"mail/" + a:                "a",
				".pending/0.before":        "a",
				".pending/.write-" + hex32: "half a manifest",
			},
			want: map[string]string{"mail/": "", "mail/" + a: "a"},
		},
		{
			name:  "an empty journal",
			files: map[string]string{".pending/": ""},
			want:  map[string]string{},
		},
		{
			name: "an unexpected file",
			files: map[string]string{
				"mail/" + a:              "new a",
				".pending/notes.txt":     "mine",
				".pending/manifest.json": manifestOf("false", ""),
			},
			wantErr: `unexpected file in memories/.pending ("notes.txt"); bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build`,
		},
		{
			name: "an unexpected folder",
			files: map[string]string{
				".pending/0.before/x":    "mine",
				".pending/manifest.json": manifestOf("true", ""),
			},
			wantErr: "cannot clear memories/.pending/0.before: directory not empty",
		},
		{
			name:    "the journal is a file",
			files:   map[string]string{".pending": "x"},
			wantErr: "unexpected file in memories/.pending (memories/.pending is not a folder); bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build",
		},
		{
			name: "an invalid manifest",
			files: map[string]string{
				"mail/" + a:              "new a",
				".pending/manifest.json": manifestOf("false", `{"existed":true,"name":"../x"}`),
			},
			wantErr: "invalid memories/.pending manifest (changes.0: name must be a record file name or .collected); bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build",
		},
		{
			name: "a manifest that is not JSON",
			files: map[string]string{
				".pending/manifest.json": `{"changes":[`,
			},
			wantErr: "invalid memories/.pending manifest (not valid JSON); bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build",
		},
		{
			name: "a missing backup changes nothing",
			files: map[string]string{
				"mail/" + a:              "new a",
				"mail/" + b:              "created b",
				".pending/manifest.json": manifestOf("false", createdB+","+existedA),
			},
			wantErr: "cannot read backup 1.before in memories/.pending: no such file or directory; bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build",
		},
		{
			name: "a source folder that became a link",
			files: map[string]string{
				"elsewhere/":             "",
				"mail":                   "->elsewhere",
				".pending/0.before":      "old a",
				".pending/manifest.json": manifestOf("false", existedA),
			},
			wantErr: "memories/mail is a symbolic link; bf writes records only into real folders inside the brain: replace it with a folder, then retry; memories/.pending was preserved",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mem := filepath.Join(root, "memories")
			files := map[string]string{}
			for p, s := range tt.files {
				files["memories/"+p] = s
			}
			writeTree(t, root, files)
			if tt.link[0] != "" {
				if err := os.Link(filepath.Join(mem, tt.link[0]), filepath.Join(mem, tt.link[1])); err != nil {
					t.Fatal(err)
				}
			}
			before := tree(t, mem)
			nodes := inodes(t, filepath.Join(mem, "mail"))
			err := Recover(context.Background(), root)
			if errText(err) != tt.wantErr {
				t.Fatalf("Recover = %q, want %q", errText(err), tt.wantErr)
			}
			want := tt.want
			if err != nil {
				want = before // a journal recovery cannot trust changes nothing
			}
			if diff := cmp.Diff(want, tree(t, mem)); diff != "" {
				t.Errorf("memories after (-want +got):\n%s", diff)
			}
			if tt.link[0] != "" {
				if diff := cmp.Diff(nodes[filepath.Join(mem, tt.link[0])], inodes(t, filepath.Join(mem, "mail"))[filepath.Join(mem, tt.link[0])]); diff != "" {
					t.Errorf("the file holding its backup was rewritten: %s", diff)
				}
			}
			if err != nil {
				return
			}
			// Recovering again is a no-op.
			after := inodes(t, mem)
			if err := Recover(context.Background(), root); err != nil {
				t.Fatalf("second Recover = %v", err)
			}
			if diff := cmp.Diff(after, inodes(t, mem)); diff != "" {
				t.Errorf("second Recover changed files (-before +after):\n%s", diff)
			}
		})
	}
}

func TestInterrupted(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"no journal", nil, false},
		{"journal without manifest", map[string]string{".pending/0.before": "x"}, false},
		{"complete", map[string]string{".pending/manifest.json": `{"changes":[],"complete":true,"source":"mail","version":1}`}, false},
		{"incomplete", map[string]string{".pending/manifest.json": `{"changes":[],"complete":false,"source":"mail","version":1}`}, true},
		{"not JSON", map[string]string{".pending/manifest.json": `not json`}, true},
		{"complete but invalid", map[string]string{".pending/manifest.json": `{"changes":[],"complete":true,"source":"Mail","version":1}`}, true},
		{"manifest is a folder", map[string]string{".pending/manifest.json/": ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			for p, s := range tt.files {
				files["memories/"+p] = s
			}
			writeTree(t, root, files)
			got, err := Interrupted(root)
			if err != nil || got != tt.want {
				t.Errorf("Interrupted = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestParseManifest(t *testing.T) {
	a, b := fn("a"), fn("b")
	tests := []struct {
		in      string
		want    *manifest
		wantErr string // the detail inside the parentheses
	}{
		{in: `{"changes":[],"complete":false,"source":"mail","version":1}`,
			want: &manifest{Changes: []entry{}, Source: "mail", Version: 1}},
		{in: `{"version":1,"source":"mail","complete":true,"changes":[{"name":"` + a + `","existed":true},{"existed":false,"name":"` + b + `"}]}` + "\n",
			want: &manifest{Changes: []entry{{true, a}, {false, b}}, Complete: true, Source: "mail", Version: 1}},
		{in: ``, wantErr: "not valid JSON"},
		{in: `{"changes":[{"name":"` + a + `",`, wantErr: "changes.0: not valid JSON"},
		{in: `"x"`, wantErr: "not a JSON object"},
		{in: `[]`, wantErr: "not a JSON object"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":1}{}`, wantErr: "data after the object"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":1} x`, wantErr: "data after the object"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":2}`, wantErr: "version must be 1"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":1.0}`, wantErr: "version must be 1"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":"1"}`, wantErr: "version must be 1"},
		{in: `{"changes":[],"complete":false,"source":"mail"}`, wantErr: "version is missing"},
		{in: `{"changes":[],"complete":false,"version":1}`, wantErr: "source is missing"},
		{in: `{"changes":[],"source":"mail","version":1}`, wantErr: "complete is missing"},
		{in: `{"complete":false,"source":"mail","version":1}`, wantErr: "changes is missing"},
		{in: `{"changes":[],"complete":null,"source":"mail","version":1}`, wantErr: "complete must be true or false"},
		{in: `{"changes":[],"complete":false,"source":"../x","version":1}`, wantErr: "source must be a source name"},
		{in: `{"changes":[],"complete":false,"source":"mail","version":1,"version":1}`, wantErr: `key "version" appears twice`},
		{in: `{"changes":[],"complete":false,"source":"mail","Version":1}`, wantErr: `unknown key "Version"`},
		{in: `{"changes":{},"complete":false,"source":"mail","version":1}`, wantErr: "changes must be a list"},
		{in: `{"changes":[{"name":"` + a + `"}],"complete":false,"source":"mail","version":1}`, wantErr: "changes.0: name and existed are required"},
		{in: `{"changes":[{"name":"` + a + `","existed":1}],"complete":false,"source":"mail","version":1}`, wantErr: "changes.0: existed must be true or false"},
		{in: `{"changes":[{"name":"` + a + `","existed":true,"size":1}],"complete":false,"source":"mail","version":1}`, wantErr: `changes.0: unknown key "size"`},
		{in: `{"changes":[{"name":"` + a + `","existed":true,"name":"` + b + `"}],"complete":false,"source":"mail","version":1}`, wantErr: `changes.0: key "name" appears twice`},
		{in: `{"changes":[{"name":"` + a + `","existed":true},{"name":"` + a + `","existed":false}],"complete":false,"source":"mail","version":1}`, wantErr: "changes.1: the file is listed twice"},
		{in: `{"changes":[{"name":"` + a[:10] + `","existed":true}],"complete":false,"source":"mail","version":1}`, wantErr: "changes.0: name must be a record file name or .collected"},
	}
	for _, tt := range tests {
		got, err := parseManifest([]byte(tt.in))
		wantErr := ""
		if tt.wantErr != "" {
			wantErr = "invalid memories/.pending manifest (" + tt.wantErr + "); bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build"
		}
		if errText(err) != wantErr {
			t.Errorf("%s: error %q, want %q", tt.in, errText(err), wantErr)
			continue
		}
		if err != nil && !errors.Is(err, errManifest) {
			t.Errorf("%s: error is not ErrManifest", tt.in)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}
