package channel

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

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

// inboxAdapter builds the example inbox adapter (examples/channels/inbox) once per test
// run and copies it into the brain.
func inboxAdapter(t *testing.T, root string) {
	t.Helper()
	inbox.once.Do(func() {
		_, here, _, _ := runtime.Caller(0)
		repo := filepath.Join(filepath.Dir(here), "..", "..")
		dir, err := os.MkdirTemp("", "bf-channel-inbox-")
		if err != nil {
			inbox.err = err
			return
		}
		// go test puts the go command that runs it first on the PATH.
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "inbox"), "./examples/channels/inbox")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			inbox.err = fmt.Errorf("building the example adapter: %v\n%s", err, out)
			return
		}
		inbox.data, inbox.err = os.ReadFile(filepath.Join(dir, "inbox"))
		os.RemoveAll(dir)
	})
	if inbox.err != nil {
		t.Fatal(inbox.err)
	}
	brainfix.WriteFile(t, root, "channels/inbox", inbox.data, 0o755)
}

// inbox holds the built example adapter.
var inbox struct {
	once sync.Once
	data []byte
	err  error
}
