package cache

import (
	"io/fs"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/google/go-cmp/cmp"
)

// A subfolder that cannot be read is skipped and reported; every readable note of its
// root still answers. Tests run as root, whom permissions do not stop: the hook fails
// the read as a user without access would.
func TestUnreadableSubfolder(t *testing.T) {
	f := newFixture(t, map[string]string{
		"concepts/ledger.md":         "# Ledger\n",
		"concepts/people/dana.md":    "# Dana\n",
		"concepts/people/team/ro.md": "# Ro\n",
		"concepts/teams/core.md":     "# Core\n",
	})
	onReadAuthored = func(rel string) error {
		if rel == "concepts/people" {
			return &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission}
		}
		return nil
	}
	defer func() { onReadAuthored = nil }()
	res := f.build()
	if diff := cmp.Diff(BuildResult{Files: 3, Changed: 3, Skipped: 1}, res); diff != "" {
		t.Errorf("build (-want +got):\n%s", diff)
	}
	c := f.open()
	want := []brain.Problem{{Brain: "work", File: "concepts/people", Error: "cannot read folder: inaccessible file or folder; check permissions"}}
	if diff := cmp.Diff(want, c.Status.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"concepts/ledger.md", "concepts/teams/core.md"}, refs(t, c)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	c.Close()
	// Readable again: its notes come back and the problem goes.
	onReadAuthored = nil
	f.touchPast("concepts/people")
	c = f.open()
	if len(c.Status.Problems) != 0 {
		t.Errorf("problems after access is restored: %v", c.Status.Problems)
	}
	if diff := cmp.Diff([]string{"concepts/ledger.md", "concepts/people/dana.md", "concepts/people/team/ro.md", "concepts/teams/core.md"}, refs(t, c)); diff != "" {
		t.Errorf("refs after access is restored (-want +got):\n%s", diff)
	}
}

// A note or folder whose name is not valid UTF-8 is never indexed, so no reply returns a
// ref that cannot be read back; the problem names it with its bad bytes written out.
func TestInvalidUTF8Names(t *testing.T) {
	f := newFixture(t, map[string]string{
		"concepts/good.md":            "# Good\n",
		"concepts/bad\xff\xfename.md": "# Bad name\n",
		"concepts/odd\xc3/inside.md":  "# Inside\n",
	})
	res := f.build()
	if diff := cmp.Diff(BuildResult{Files: 3, Changed: 3, Skipped: 2}, res); diff != "" {
		t.Errorf("build (-want +got):\n%s", diff)
	}
	c := f.open()
	want := []brain.Problem{
		{Brain: "work", File: `concepts/bad\xff\xfename.md`, Error: "file names must be valid UTF-8; rename it"},
		{Brain: "work", File: `concepts/odd\xc3`, Error: "file names must be valid UTF-8; rename it"},
	}
	if diff := cmp.Diff(want, c.Status.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"concepts/good.md"}, refs(t, c)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}
