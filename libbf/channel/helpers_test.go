package channel

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// writeFile creates root/rel with its folders.
func writeFile(t *testing.T, root, rel string, data []byte, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
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

// script writes an executable shell script under the brain.
func script(t *testing.T, root, rel, body string) {
	t.Helper()
	writeFile(t, root, rel, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
}

// endpoint returns channel "chat" of a new empty brain.
func endpoint(t *testing.T, ch config.Channel) *Endpoint {
	t.Helper()
	root := t.TempDir()
	return &Endpoint{Name: "chat", Root: root, Home: root, Config: &ch}
}

// capability declares command with bf.yaml's defaults for op.
func capability(op string, cmd ...string) *config.Capability {
	c := &config.Capability{Command: config.Command(cmd), Timeout: config.DefaultTimeout, MaxBytes: config.DefaultChannelBytes}
	if op == config.OpStream {
		c.Timeout, c.MaxBytes = config.DefaultStreamTimeout, config.DefaultFrameBytes
	}
	return c
}

var (
	stampRE   = regexp.MustCompile(`== \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z `)
	elapsedRE = regexp.MustCompile(` after \d+\.\ds ==`)
)

// readLog returns a log with its run times replaced, so entries compare exactly.
func readLog(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, proc.LogPath(name)))
	if err != nil {
		t.Fatalf("reading log: %v", err)
	}
	s := stampRE.ReplaceAllString(string(b), "== TIME ")
	return elapsedRE.ReplaceAllString(s, " after N.Ns ==")
}

// waitFile waits until a test program creates root/rel, which tells the test it reached
// a known point, and reports an error if that never happens. It may run in a goroutine
// of its own.
func waitFile(t *testing.T, root, rel string) {
	t.Helper()
	for range 4000 {
		if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("the test program never created %s", rel)
}

// inboxAdapter copies the example inbox adapter into the brain, or skips the test when
// no python3 can run it.
func inboxAdapter(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH; the inbox example adapter needs it")
	}
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "..", "..", "examples", "channels", "inbox")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("reading the example adapter: %v", err)
	}
	writeFile(t, root, "channels/inbox", data, 0o755)
}
