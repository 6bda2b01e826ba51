package memory

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGitStatus: the brief's code lines outside a repository, in one without a commit, on
// a clean tree and with changes.
func TestGitStatus(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", dir)
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	g := git{BrainRoot: t.TempDir(), Dir: repo}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if got := g.Status(ctx); got != nil {
		t.Errorf("outside a repository: %q, want none", got)
	}
	run("init", "-q", "-b", "trunk")
	if got := g.Status(ctx); got != nil {
		t.Errorf("no commit yet: %q, want none", got)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.md")
	run("commit", "-q", "-m", "First note\n\nBody.")
	head := regexp.MustCompile(`^branch trunk at [0-9a-f]{8}: First note$`)
	got := g.Status(ctx)
	if len(got) != 2 || !head.MatchString(got[0]) || got[1] != "working tree clean" {
		t.Errorf("clean tree: %q", got)
	}
	for _, f := range []string{"a.md", "b.md", "c.md"} {
		if err := os.WriteFile(filepath.Join(repo, f), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got = g.Status(ctx)
	if len(got) != 2 || !head.MatchString(got[0]) {
		t.Fatalf("changed tree: %q", got)
	}
	if diff := cmp.Diff("3 uncommitted changes", got[1]); diff != "" {
		t.Errorf("changed tree (-want +got):\n%s", diff)
	}
}
