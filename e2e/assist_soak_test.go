//go:build unix

package e2e

// The soak test of bf watch: on a copy of the example brain with an assistant answering the
// inbox channel through the fake harness, bf watch --json runs for a minute while a message
// arrives every second in one of three conversations. Stopped cleanly afterwards, it must
// have answered every message exactly once, in order within each conversation, with every
// job completed in bf queue and bf status --check passing.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
)

const soakSettings = `
channels:
  inbox:
    send:
      command: [inbox, send, "{{brain}}/outbox.jsonl"]
      idempotent: true
    read:
      command: [inbox, read, "{{brain}}/inbox", "{{start}}", "{{end}}", --allow, me]
assistants:
  helper:
    command: [fakeharness, --context, "{{context}}", answer]
    inputs:
      - {channel: inbox, mode: read, every: 1}
`

// Soak sizes: one message a second for a minute, over three conversations.
const (
	soakMessages      = 60
	soakConversations = 3
)

// liveBrain is a copy of the example brain with extra bf.yaml settings, the prompt of their
// assistant helper, a private HOME and the test binaries first on PATH, registered for
// collection.
type liveBrain struct {
	t     *testing.T
	root  string
	env   []string
	inbox string
}

func newLiveBrain(t *testing.T, settings string) *liveBrain {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := brainfix.Copy(t, filepath.Join(filepath.Dir(filepath.Dir(self)), "examples", "brain"), false)
	cfg, err := os.ReadFile(filepath.Join(root, "bf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	brainfix.WriteFile(t, root, "bf.yaml", append(cfg, settings...), 0o644)
	brainfix.WriteFile(t, root, "prompts/helper.md", []byte("Answer the message.\n"), 0o644)
	l := &liveBrain{t: t, root: root, inbox: filepath.Join(root, "inbox")}
	if err := os.Mkdir(l.inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "BF_BRAIN", "TZ", "PATH", "BF_NOW":
			continue
		}
		l.env = append(l.env, kv)
	}
	l.env = append(l.env, "HOME="+home, "TZ=UTC", "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	l.bf(0, "validate")
	l.bf(0, "register", ".", "--collect")
	return l
}

// bf runs bf in the brain to its end and checks its exit code.
func (l *liveBrain) bf(want int, args ...string) []byte {
	l.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bf"), args...)
	cmd.Dir, cmd.Env = l.root, l.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		l.t.Fatalf("bf %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		l.t.Fatalf("bf %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out.Bytes(), errb.Bytes())
	}
	return out.Bytes()
}

// drop writes message i of conversation conv into the inbox, under a dot name first and
// renamed when complete, timed now.
func (l *liveBrain) drop(i int, conv string) {
	l.t.Helper()
	id := fmt.Sprintf("m%02d", i)
	msg, _ := json.Marshal(map[string]string{"id": id, "sender": "me", "conversation": conv,
		"time": time.Now().UTC().Format(time.RFC3339Nano), "text": "question " + id})
	tmp := filepath.Join(l.inbox, "."+id+".json")
	if err := os.WriteFile(tmp, msg, 0o644); err != nil {
		l.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(l.inbox, id+".json")); err != nil {
		l.t.Fatal(err)
	}
}

// sent counts the lines of the outbox.
func (l *liveBrain) sent() int {
	data, _ := os.ReadFile(filepath.Join(l.root, "outbox.jsonl"))
	return bytes.Count(data, []byte("\n"))
}

// liveWatch is a running bf watch --json whose status lines are read as they come.
type liveWatch struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan []byte
	exited chan error
	stderr bytes.Buffer
	done   bool
	last   struct {
		Brain  string `json:"brain"`
		Cycles int    `json:"cycles"`
	}
}

func (l *liveBrain) watch(args ...string) *liveWatch {
	l.t.Helper()
	w := &liveWatch{t: l.t, lines: make(chan []byte, 1024), exited: make(chan error, 1)}
	w.cmd = exec.Command(filepath.Join(binDir, "bf"), append([]string{"watch", "--json"}, args...)...)
	w.cmd.Dir, w.cmd.Env = l.root, l.env
	w.cmd.Stderr = &w.stderr
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			w.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	l.t.Cleanup(func() {
		if !w.done {
			w.cmd.Process.Kill()
			w.cmd.Wait()
		}
	})
	// The first cycle starts a read input at the current time: only later messages count.
	for w.last.Cycles < 1 {
		if !w.next(2*time.Minute, "the first cycle") {
			l.t.Fatalf("no status line from bf watch within 2 minutes; stderr: %s", w.stderr.Bytes())
		}
	}
	return w
}

// next reads one status line, failing when none comes within d.
func (w *liveWatch) next(d time.Duration, what string) bool {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatalf("bf watch ended while waiting for %s; stderr: %s", what, w.stderr.Bytes())
		}
		if err := json.Unmarshal(line, &w.last); err != nil {
			w.t.Fatalf("bf watch printed a line that is not JSON: %v: %s", err, line)
		}
		return true
	case <-time.After(d):
		return false
	}
}

// drain reads status lines for d, so the watcher never blocks on its stdout.
func (w *liveWatch) drain(d time.Duration) {
	w.t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); {
		w.next(time.Until(end), "status lines")
	}
}

// until drains status lines until cond holds, failing after a generous limit that only
// guards against a hang.
func (w *liveWatch) until(what string, cond func() bool) {
	w.t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); !cond(); {
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out waiting for %s; stderr: %s", what, w.stderr.Bytes())
		}
		w.drain(100 * time.Millisecond)
	}
}

// stop sends SIGTERM and expects a clean stop (exit 130) within 60 seconds.
func (w *liveWatch) stop() {
	w.t.Helper()
	go func() {
		for range w.lines {
		}
	}()
	go func() { w.exited <- w.cmd.Wait() }()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		w.t.Fatal(err)
	}
	select {
	case err := <-w.exited:
		w.done = true
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			w.t.Fatalf("bf watch after SIGTERM: %v, want exit 130; stderr: %s", err, w.stderr.Bytes())
		}
	case <-time.After(60 * time.Second):
		w.t.Fatal("bf watch did not stop within 60 seconds of SIGTERM")
	}
}

// checkAnswered asserts that messages 1…n, message i in conversation conv(i), were each
// answered exactly once in its own conversation, in order within each conversation, and
// that bf queue lists one completed message job and one delivered answer for each.
func (l *liveBrain) checkAnswered(n int, conv func(int) string) {
	t := l.t
	t.Helper()
	data, err := os.ReadFile(filepath.Join(l.root, "outbox.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	answered := map[int]int{}
	lastIn := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var d struct {
			Text         string `json:"text"`
			Conversation string `json:"conversation"`
		}
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("outbox line %s: %v", line, err)
		}
		var i int
		if _, err := fmt.Sscanf(d.Text, "answer to question m%d", &i); err != nil || i < 1 || i > n {
			t.Fatalf("outbox holds an answer to no message: %s", line)
		}
		if want := conv(i); d.Conversation != want {
			t.Errorf("the answer to m%02d went to conversation %q, want %q", i, d.Conversation, want)
		}
		answered[i]++
		if i <= lastIn[d.Conversation] {
			t.Errorf("in conversation %s, the answer to m%02d came after the one to m%02d", d.Conversation, i, lastIn[d.Conversation])
		}
		lastIn[d.Conversation] = i
	}
	for i := 1; i <= n; i++ {
		if answered[i] != 1 {
			t.Errorf("m%02d was answered %d times, want once", i, answered[i])
		}
	}
	var q struct {
		Items []struct {
			ID           string `json:"id"`
			Type         string `json:"type"`
			Kind         string `json:"kind"`
			State        string `json:"state"`
			Conversation string `json:"conversation"`
		} `json:"items"`
	}
	if err := json.Unmarshal(l.bf(0, "queue"), &q); err != nil {
		t.Fatalf("bf queue: %v", err)
	}
	jobs := map[string]int{}
	deliveries := 0
	for _, it := range q.Items {
		switch {
		case it.Type == "delivery":
			deliveries++
			if it.State != "delivered" {
				t.Errorf("delivery %s is %s, want delivered", it.ID, it.State)
			}
		case it.Kind == "message":
			jobs[it.Conversation]++
			if it.State != "completed" {
				t.Errorf("job %s is %s, want completed", it.ID, it.State)
			}
		default:
			t.Errorf("bf queue lists an unexpected item %+v", it)
		}
	}
	if deliveries != n {
		t.Errorf("bf queue lists %d deliveries, want %d", deliveries, n)
	}
	want := map[string]int{}
	for i := 1; i <= n; i++ {
		want[conv(i)]++
	}
	for c, k := range want {
		if jobs[c] != k {
			t.Errorf("bf queue lists %d message jobs of conversation %s, want %d", jobs[c], c, k)
		}
	}
}

func TestWatchSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs for a minute")
	}
	t.Parallel()
	l := newLiveBrain(t, soakSettings)
	w := l.watch("--interval", "5", "--poll-interval", "1")
	if w.last.Brain != "acme" {
		t.Fatalf("status line names brain %q, want acme", w.last.Brain)
	}
	for i := 1; i <= soakMessages; i++ {
		l.drop(i, soakConversation(i))
		w.drain(time.Second)
	}
	// Let the watcher answer the rest (each of its cycles reads the inbox), then stop it.
	w.until("every message answered", func() bool { return l.sent() >= soakMessages })
	w.stop()
	l.checkAnswered(soakMessages, soakConversation)
	l.bf(0, "status", "--check")
}

// soakConversation is the conversation of message i.
func soakConversation(i int) string { return fmt.Sprintf("c%d", i%soakConversations+1) }
