// Package brainfix builds the brains tests run against, for tests only (like
// net/http/httptest, it is imported by _test.go files and the e2e harness, never by a
// command): a brain folder on a machine of its own (a temporary home holding the state
// folder), with its bf.yaml, notes and records.
// A test states only what is special about its brain; everything else has one default here.
package brainfix

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/record"
)

// Spec is what a test brain holds.
type Spec struct {
	// Name is the brain's name in the default bf.yaml; "" is "work".
	Name string
	// Folder is the brain folder's name in the temporary home; "" is "brain".
	Folder string
	// Config is bf.yaml's whole text; "" declares only version 8 and the name.
	Config string
	// Notes are files by brain-relative path (notes are Markdown; any file may be given).
	Notes map[string]string
	// Records are JSON objects by source, each naming its "id"; they are written to
	// memories/SOURCE/ under the file name of their id, exactly as given.
	Records map[string][]string
	// ModTime, when set, is the modification time of every file the brain is given.
	ModTime time.Time
	// Trusted records collection trust for the brain on its machine, so collection may run
	// its programs.
	Trusted bool
	// Registered registers the brain under its name on its machine.
	Registered bool
}

// Brain is a test brain.
type Brain struct {
	T    testing.TB
	Root string    // the brain folder
	Name string    // its name
	Env  brain.Env // its machine: the temporary home, XDG_STATE_HOME below it, the real PATH
	// ModTime, when set, is given to every file written.
	ModTime time.Time
}

// New builds the brain s describes.
func New(t testing.TB, s Spec) *Brain {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "PATH": os.Getenv("PATH")}
	b := &Brain{T: t, Root: filepath.Join(home, cmpOr(s.Folder, "brain")), Name: cmpOr(s.Name, "work"),
		Env: brain.Env{Home: home, Getenv: func(k string) string { return vars[k] }}, ModTime: s.ModTime}
	config := s.Config
	if config == "" {
		config = fmt.Sprintf("version: 8\nname: %s\n", b.Name)
	}
	b.Write("bf.yaml", config)
	for _, p := range slices.Sorted(maps.Keys(s.Notes)) {
		b.Write(p, s.Notes[p])
	}
	for _, source := range slices.Sorted(maps.Keys(s.Records)) {
		for _, obj := range s.Records[source] {
			b.RecordJSON(source, obj)
		}
	}
	if s.Trusted {
		b.Trust()
	}
	if s.Registered {
		b.Register()
	}
	return b
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Write writes a file of the brain (mode 0644), creating its folders.
func (b *Brain) Write(rel, data string) { b.T.Helper(); b.WriteMode(rel, data, 0o644) }

// WriteMode writes a file of the brain with mode, whatever the umask.
func (b *Brain) WriteMode(rel, data string, mode os.FileMode) {
	b.T.Helper()
	WriteFile(b.T, b.Root, rel, []byte(data), mode)
	if !b.ModTime.IsZero() {
		if err := os.Chtimes(filepath.Join(b.Root, filepath.FromSlash(rel)), b.ModTime, b.ModTime); err != nil {
			b.T.Fatal(err)
		}
	}
}

// Script writes an executable shell program of the brain.
func (b *Brain) Script(rel, body string) {
	b.T.Helper()
	b.WriteMode(rel, "#!/bin/sh\n"+body+"\n", 0o755)
}

// Record writes record id of source, its other members given as JSON object members
// (`"title":"T","time":"…"`, or "" for none), and returns its brain-relative path.
func (b *Brain) Record(source, id, members string) string {
	b.T.Helper()
	sep := ""
	if members != "" {
		sep = ","
	}
	return b.RecordJSON(source, fmt.Sprintf(`{"id":%q%s%s}`, id, sep, members))
}

// RecordJSON writes a record of source given as a whole JSON object, exactly as given,
// under the file name of its id, and returns its brain-relative path.
func (b *Brain) RecordJSON(source, object string) string {
	b.T.Helper()
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(object), &head); err != nil || head.ID == "" {
		b.T.Fatalf("record of %s needs a JSON object with an id: %s", source, object)
	}
	p := "memories/" + source + "/" + record.FileName(head.ID)
	b.Write(p, object)
	return p
}

// Open opens the brain on its machine.
func (b *Brain) Open() *brain.Brain {
	b.T.Helper()
	br, err := b.Env.Open(b.Root)
	if err != nil {
		b.T.Fatal(err)
	}
	return br
}

// Trust records collection trust for the brain on its machine.
func (b *Brain) Trust() {
	b.T.Helper()
	if err := b.Env.Trust(b.Root); err != nil {
		b.T.Fatal(err)
	}
}

// Register registers the brain under its name on its machine.
func (b *Brain) Register() {
	b.T.Helper()
	reg, err := b.Env.LoadRegistry()
	if err != nil {
		b.T.Fatal(err)
	}
	if _, err := reg.Register(b.Root, b.Name, brain.RegisterOptions{}); err != nil {
		b.T.Fatal(err)
	}
}

// WriteFile creates root/rel with its folders and mode, whatever the umask.
func WriteFile(t testing.TB, root, rel string, data []byte, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// Script writes an executable shell program at root/rel.
func Script(t testing.TB, root, rel, body string) {
	t.Helper()
	WriteFile(t, root, rel, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
}

// Touch sets the modification time of a file of the brain.
func (b *Brain) Touch(rel string, at time.Time) {
	b.T.Helper()
	if err := os.Chtimes(filepath.Join(b.Root, filepath.FromSlash(rel)), at, at); err != nil {
		b.T.Fatal(err)
	}
}

// Copy copies the brain folder src (an example brain, never written to) into a temporary
// folder named "brain" and returns its path. Its cache (.bf) and any .git are left behind;
// files keep their permission bits, made writable. bump rewrites an earlier format's
// "version: 7" line of every .yaml file to 8, for brains whose notes and records are
// unchanged between the two formats.
func Copy(t testing.TB, src string, bump bool) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "brain")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".bf" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bump && strings.HasSuffix(p, ".yaml") {
			data = []byte(strings.Replace(string(data), "version: 7", "version: 8", 1))
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
