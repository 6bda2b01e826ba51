package vault

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/check"
)

// fixture writes files (slash paths, contents) under a new folder and returns it. Every
// file gets the same modification time so updated days are fixed.
func fixture(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	when := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, when, when); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// digest summarises a folder's files and contents, to show it did not change.
func digest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintln(h, p)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func validate(t *testing.T, root string) *check.Report {
	t.Helper()
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := check.Brain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestImportBadInput imports a vault holding every kind of bad input the format cannot
// take as it is, and checks that it is imported as far as it can be, every file left out
// is named, and the result validates clean.
func TestImportBadInput(t *testing.T) {
	deep := strings.Repeat("d/", 70) + "deep.md"
	src := fixture(t, map[string]string{
		".obsidian/app.json": "{}",
		"Note.md":            "# Note\n\nSee [[note]] and [[Deep]].\n",
		"note.md":            "lower case twin: [[Note]]\n",
		`back\slash.md`:      "odd name [[Note#Nope]] [[Note#^gone]]\n",
		"ctl\x01char.md":     "control character in the name\n",
		"index.md":           "---\nokf_version: \"0.2\"\n---\nvault index\n",
		"sub/log.md":         "## not a date\n",
		"big.md":             strings.Repeat("a", 4<<20+1),
		"latin.md":           "caf\xe9 [[Note]]\n",
		"cycle/A.md":         "![[B]]\n",
		"cycle/B.md":         "![[A]]\n",
		"badyaml.md":         "---\ntitle: [unclosed\n---\nbody\n",
		"anchors.md":         "---\nbase: &x 1\ncopy: *x\nplain: kept\nplain: twice\ntype: [not, a, word]\nstatus: doing\nupdated: someday\nowner: Ana\n---\nbody\n",
		"conflict.md":        "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n",
		"tags.md":            "---\ntags: \"#one, two/three\"\n---\n#four/five #six and #x\\y\n",
		deep:                 "deep note\n",
		"a/b.png":            "png",
	})
	before := digest(t, src)
	dest := filepath.Join(t.TempDir(), "brain")
	r, err := Import(context.Background(), Options{Source: src, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if got := digest(t, src); got != before {
		t.Error("the source folder changed")
	}
	wantDropped := []Dropped{
		{File: ".obsidian", Reason: "Obsidian's settings folder, not notes"},
		{File: "anchors.md", Key: "copy", Reason: "uses YAML the format refuses (anchors, aliases, custom tags or duplicate keys)"},
		{File: "anchors.md", Key: "base", Reason: "uses YAML the format refuses (anchors, aliases, custom tags or duplicate keys)"},
		{File: "anchors.md", Key: "plain", Reason: "written twice; the first value is kept"},
		{File: "anchors.md", Key: "type", Reason: "a type is 1 to 128 characters of text; the folder's type is used"},
		{File: "anchors.md", Key: "updated", Reason: "not a date; the file's modification day is used"},
		{File: "anchors.md", Key: "owner", Reason: "the brain declares owner as a field, whose values follow its declaration; the source value was left out"},
		{File: "anchors.md", Key: "status", Reason: "OKF status must be draft, stable or deprecated"},
		{File: "badyaml.md", Key: "frontmatter", Reason: "the front matter is not YAML, so none of it was kept"},
		{File: "big.md", Reason: "larger than 4 MiB, the format's note size limit"},
	}
	if diff := cmp.Diff(lines(wantDropped), lines(r.Dropped)); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	wantRenamed := map[string]string{
		`back\slash.md`:  "concepts/back-slash.md",
		"ctl\x01char.md": "concepts/ctl-char.md",
		"index.md":       "concepts/index-1.md",
		"note.md":        "concepts/note-1.md",
		"sub/log.md":     "concepts/sub/log-1.md",
		deep:             "concepts/" + strings.Repeat("d/", 62) + strings.Repeat("d-", 7) + "d/deep.md",
	}
	gotRenamed := map[string]string{}
	for _, rn := range r.Renamed {
		gotRenamed[rn.From] = rn.To
	}
	if diff := cmp.Diff(wantRenamed, gotRenamed); diff != "" {
		t.Errorf("renamed (-want +got):\n%s", diff)
	}
	wantUnresolved := []Unresolved{
		{File: `back\slash.md`, Line: 1, Link: "[[Note#Nope]]", Reason: "no such heading in Note.md; linked to the whole note"},
		{File: `back\slash.md`, Line: 1, Link: "[[Note#^gone]]", Reason: "no block ^gone in Note.md; linked to the whole note"},
	}
	if diff := cmp.Diff(wantUnresolved, r.Unresolved); diff != "" {
		t.Errorf("unresolved (-want +got):\n%s", diff)
	}
	if rep := validate(t, dest); !rep.Valid || len(rep.Warnings) != 0 {
		t.Errorf("the import does not validate clean: %+v", rep)
	}
	for file, want := range map[string]string{
		"concepts/Note.md":       "---\ntype: concept\nupdated: \"2026-03-04\"\n---\n# Note\n\nSee [note](note-1.md) and [Deep](" + strings.Repeat("d/", 62) + strings.Repeat("d-", 7) + "d/deep.md).\n",
		"concepts/note-1.md":     "---\ntitle: note\ntype: concept\nupdated: \"2026-03-04\"\n---\nlower case twin: [Note](Note.md)\n",
		"concepts/back-slash.md": "---\ntitle: back-slash\ntype: concept\nupdated: \"2026-03-04\"\n---\nodd name [Note > Nope](Note.md) [Note](Note.md)\n",
		"concepts/latin.md":      "---\ntitle: latin\ntype: concept\nupdated: \"2026-03-04\"\n---\ncafé [Note](Note.md)\n",
		"concepts/cycle/A.md":    "---\ntitle: A\ntype: concept\nupdated: \"2026-03-04\"\n---\n![B](B.md)\n",
		"concepts/anchors.md":    "---\ntitle: anchors\ntype: concept\nupdated: \"2026-03-04\"\nplain: kept\n---\nbody\n",
		"concepts/tags.md":       "---\ntitle: tags\ntype: concept\nupdated: \"2026-03-04\"\ntags: [one, two.three, four.five, six, x]\n---\n#four/five #six and #x\\y\n",
		// "x" over "=======" is a setext H1, so the note has a title of its own.
		"concepts/conflict.md":                             "---\ntype: concept\nupdated: \"2026-03-04\"\n---\n <<<<<<< ours\nx\n=======\ny\n >>>>>>> theirs\n",
		"concepts/a/b.png":                                 "png",
		"concepts/sub/log-1.md":                            "---\ntitle: log\ntype: concept\nupdated: \"2026-03-04\"\n---\n## not a date\n",
		"concepts/welcome.md":                              read(t, filepath.Join(dest, "concepts/welcome.md")),
		"concepts/badyaml.md":                              "---\ntitle: badyaml\ntype: concept\nupdated: \"2026-03-04\"\n---\nbody\n",
		"concepts/ctl-char.md":                             "---\ntitle: ctl-char\ntype: concept\nupdated: \"2026-03-04\"\n---\ncontrol character in the name\n",
		"concepts/index-1.md":                              "---\ntitle: index\ntype: concept\nupdated: \"2026-03-04\"\nokf_version: \"0.2\"\n---\nvault index\n",
		"concepts/cycle/B.md":                              "---\ntitle: B\ntype: concept\nupdated: \"2026-03-04\"\n---\n![A](A.md)\n",
		"concepts/" + wantRenamed[deep][len("concepts/"):]: "---\ntitle: deep\ntype: concept\nupdated: \"2026-03-04\"\n---\ndeep note\n",
	} {
		if got := read(t, filepath.Join(dest, filepath.FromSlash(file))); got != want {
			t.Errorf("%s:\n got %q\nwant %q", file, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "concepts", "big.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("big.md was written")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".bf-import-*"))
	if len(leftovers) > 0 {
		t.Errorf("staging folders left: %v", leftovers)
	}
}

func lines(ds []Dropped) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.File+" | "+d.Key+" | "+d.Reason)
	}
	slices.Sort(out) // compared as a set: within a file, the order is the order found
	return out
}
