package brain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrust(t *testing.T) {
	f := newFixture(t)
	f.vars["XDG_STATE_HOME"] = f.path("state")
	root := f.brain("w", "work")
	env := f.env()
	if ok, err := env.Trusted(root); err != nil || ok {
		t.Fatalf("fresh brain: Trusted = %v, %v", ok, err)
	}
	if _, err := os.Stat(f.path("state")); !os.IsNotExist(err) {
		t.Errorf("Trusted created the state folder")
	}
	if err := env.Trust(root); err != nil {
		t.Fatal(err)
	}
	if ok, err := env.Trusted(root); err != nil || !ok {
		t.Fatalf("after Trust: Trusted = %v, %v", ok, err)
	}
	info, _ := os.Stat(root)
	id := identityOf(info)
	file := filepath.Join(f.path("state/bf/runtime"), id.String(), "trust.json")
	var rec map[string]any
	if err := json.Unmarshal([]byte(readFile(t, file)), &rec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"collect": true, "path": root}, rec); diff != "" {
		t.Errorf("trust.json (-want +got):\n%s", diff)
	}
	if m := mode(t, file); m != 0o600 {
		t.Errorf("trust.json mode %o", m)
	}
	for _, d := range []string{"state/bf", "state/bf/runtime", "state/bf/runtime/" + id.String()} {
		if m := mode(t, f.path(d)); m != 0o700 {
			t.Errorf("%s mode %o", d, m)
		}
	}

	t.Run("through a symlink", func(t *testing.T) {
		f.symlink(root, "link")
		if ok, err := env.Trusted(f.path("link")); err != nil || !ok {
			t.Errorf("Trusted via symlink = %v, %v", ok, err)
		}
	})
	t.Run("copy is not trusted", func(t *testing.T) {
		f.brain("copy", "work")
		if ok, err := env.Trusted(f.path("copy")); err != nil || ok {
			t.Errorf("copy: Trusted = %v, %v", ok, err)
		}
	})
	t.Run("moved brain is not trusted", func(t *testing.T) {
		moved := f.brain("m", "moved")
		if err := env.Trust(moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(moved, f.path("m2")); err != nil {
			t.Fatal(err)
		}
		if ok, err := env.Trusted(f.path("m2")); err != nil || ok {
			t.Errorf("moved: Trusted = %v, %v", ok, err)
		}
	})
	t.Run("another account's state folder", func(t *testing.T) {
		other := env
		other.Geteuid = func() int { return os.Geteuid() + 1000 }
		_, err := other.Trusted(root)
		want := "~/state/bf: the state folder is owned by another account; bf keeps state only in folders you own"
		if diff := cmp.Diff(want, f.errText(err)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if _, err := other.StateDir(); err == nil || !strings.Contains(err.Error(), "owned by another account") {
			t.Errorf("StateDir: %v", err)
		}
	})
	t.Run("garbled record", func(t *testing.T) {
		os.WriteFile(file, []byte("{"), 0o600)
		if _, err := env.Trusted(root); err == nil {
			t.Error("want an error")
		}
	})
	t.Run("not a brain", func(t *testing.T) {
		os.MkdirAll(f.path("plain"), 0o700)
		if err := env.Trust(f.path("plain")); err == nil {
			t.Error("Trust of a plain folder: want an error")
		}
	})
}

func TestStateDirDefault(t *testing.T) {
	for _, v := range []string{"", "relative/state"} {
		f := newFixture(t)
		f.vars["XDG_STATE_HOME"] = v
		got, err := f.env().StateDir()
		if err != nil {
			t.Fatal(err)
		}
		if got != f.path(".local/state/bf") {
			t.Errorf("XDG_STATE_HOME=%q: StateDir = %s", v, f.rel(got))
		}
		if m := mode(t, got); m != 0o700 {
			t.Errorf("mode %o", m)
		}
	}
}
