package brainfix

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/record"
)

func TestNew(t *testing.T) {
	when := time.Date(2026, 9, 20, 9, 0, 0, 0, time.UTC)
	b := New(t, Spec{
		Name:       "ops",
		Notes:      map[string]string{"projects/atlas.md": "# Atlas\n"},
		Records:    map[string][]string{"mail": {`{"id":"m/1","title":"Hello"}`}},
		ModTime:    when,
		Trusted:    true,
		Registered: true,
	})
	b.Script("sensors/run.sh", "echo hi")
	for rel, want := range map[string]string{
		"bf.yaml":           "version: 8\nname: ops\n",
		"projects/atlas.md": "# Atlas\n",
		"memories/mail/" + record.FileName("m/1"): `{"id":"m/1","title":"Hello"}`,
		"sensors/run.sh": "#!/bin/sh\necho hi\n",
	} {
		p := filepath.Join(b.Root, filepath.FromSlash(rel))
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", rel, got, err, want)
		}
		if st, err := os.Stat(p); err != nil || !st.ModTime().Equal(when) {
			t.Errorf("%s: not modified at %v (%v)", rel, when, err)
		}
	}
	if st, _ := os.Stat(filepath.Join(b.Root, "sensors/run.sh")); st.Mode().Perm() != 0o755 {
		t.Errorf("script mode %v, want 0755", st.Mode().Perm())
	}
	if got := b.Record("mail", "m2", ""); got != "memories/mail/"+record.FileName("m2") {
		t.Errorf("Record path %q", got)
	}
	if br := b.Open(); br.Name != "ops" || br.Root != b.Root {
		t.Errorf("Open: name %q root %q, want ops %q", br.Name, br.Root, b.Root)
	}
	if ok, err := b.Env.Trusted(b.Root); !ok || err != nil {
		t.Errorf("Trusted = %v, %v", ok, err)
	}
	reg, err := b.Env.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if root, ok, err := reg.Resolve("ops"); !ok || err != nil || root != b.Root {
		t.Errorf("registry resolves ops to %q, %v, %v; want %q", root, ok, err, b.Root)
	}
}

func TestNewDefaults(t *testing.T) {
	b := New(t, Spec{})
	if b.Name != "work" || filepath.Base(b.Root) != "brain" {
		t.Errorf("name %q folder %q, want work and brain", b.Name, filepath.Base(b.Root))
	}
	if ok, _ := b.Env.Trusted(b.Root); ok {
		t.Error("a brain is trusted only when the spec says so")
	}
	if _, err := os.Stat(filepath.Join(b.Env.Home, "state")); err == nil {
		t.Error("nothing writes the state folder unless asked")
	}
}
