//go:build linux

package e2e

// Kill test of bf import: the real process is killed with SIGKILL at increasing delays
// while it reads, converts, stages and renames a vault. After every kill the destination
// is either absent or the whole import, byte for byte the same as an uninterrupted one;
// the source never changes; anything left behind is one hidden .bf-import-* folder.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// treeDigest lists every file below dir with the SHA-256 of its contents, sorted.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s %x", rel, sha256.Sum256(data)))
		} else if d.IsDir() {
			lines = append(lines, rel+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestImportKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes")
	}
	work := t.TempDir()
	vault := filepath.Join(work, "vault")
	when := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	write := func(rel, body string) {
		p := filepath.Join(vault, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		write(fmt.Sprintf("folder %d/Note %d.md", i%7, i), fmt.Sprintf(
			"---\ntags: [t%d, area/x]\naliases: [N%d]\n---\n# Note %d\n\nSee [[Note %d]], [[Note %d#Part]] and ![[pic %d.png|50]].\n\n## Part\n\n%s\n",
			i%5, i, i, (i+1)%300, (i+7)%300, i%20, strings.Repeat("words to search ", 200)))
	}
	for i := range 20 {
		write(fmt.Sprintf("attachments/pic %d.png", i), strings.Repeat("P", 200_000))
	}
	write(".obsidian/app.json", "{}")
	source := treeDigest(t, vault)

	env := append(os.Environ(), "HOME="+work, "TZ=UTC")
	run := func(dest string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(binDir, "bf"), "import", vault, dest)
		cmd.Env = env
		return cmd
	}
	// The reference: an import that is not interrupted.
	ref := filepath.Join(work, "ref")
	if out, err := run(ref).CombinedOutput(); err != nil {
		t.Fatalf("reference import: %v\n%s", err, out)
	}
	want := treeDigest(t, ref)

	complete, absent := 0, 0
	for i, delay := 0, 2*time.Millisecond; delay < 4*time.Second; i, delay = i+1, delay*3/2 {
		parent := filepath.Join(work, fmt.Sprintf("k%d", i))
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(parent, "ref")
		cmd := run(dest)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		if _, err := os.Stat(dest); err == nil {
			if got := treeDigest(t, dest); got != want {
				t.Fatalf("killed after %v: the destination is not the whole import", delay)
			}
			complete++
		} else {
			absent++
		}
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if e.Name() != "ref" && !strings.HasPrefix(e.Name(), ".bf-import-") {
				t.Fatalf("killed after %v: %s left beside the destination", delay, e.Name())
			}
		}
		if got := treeDigest(t, vault); got != source {
			t.Fatalf("killed after %v: the source changed", delay)
		}
	}
	if absent == 0 {
		t.Error("no kill landed before the import finished; the test proves nothing")
	}
	t.Logf("%d kills left no destination, %d the whole import", absent, complete)

	// The next import beside a killed one removes its staging folder (once it is older
	// than a moment, so a folder a running import just made is never taken for one).
	past := time.Now().Add(-time.Minute)
	parents, _ := filepath.Glob(filepath.Join(work, "k*"))
	left := 0
	for _, parent := range parents {
		stages, _ := filepath.Glob(filepath.Join(parent, ".bf-import-*"))
		left += len(stages)
		for _, s := range stages {
			if err := os.Chtimes(s, past, past); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := run(filepath.Join(parent, "again")).CombinedOutput(); err != nil {
			t.Fatalf("import after a kill: %v\n%s", err, out)
		}
		if stages, _ := filepath.Glob(filepath.Join(parent, ".bf-import-*")); len(stages) > 0 {
			t.Errorf("%s: the next import left the killed import's %s", filepath.Base(parent), filepath.Base(stages[0]))
		}
	}
	t.Logf("%d staging folders of killed imports removed by the next import", left)
}
