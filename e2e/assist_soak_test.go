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
    text: Answer the message.
    inputs:
      - {channel: inbox, mode: read, every: 1}
`

// Soak sizes: one message a second for a minute, over three conversations.
const (
	soakMessages      = 60
	soakConversations = 3
)

func TestWatchSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs for a minute")
	}
	t.Parallel()
	_, self, _, _ := runtime.Caller(0)
	brain := copyTree(t, filepath.Join(filepath.Dir(filepath.Dir(self)), "examples", "brain"), false)
	cfg, err := os.ReadFile(filepath.Join(brain, "bf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(brain, "bf.yaml"), append(cfg, soakSettings...), 0o644); err != nil {
		t.Fatal(err)
	}
	inbox := filepath.Join(brain, "inbox")
	if err := os.Mkdir(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "BF_BRAIN", "TZ", "PATH", "BF_TEST_NOW":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "TZ=UTC", "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	bf := func(want int, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "bf"), args...)
		cmd.Dir, cmd.Env = brain, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("bf %s: %v", strings.Join(args, " "), err)
		}
		if code != want {
			t.Fatalf("bf %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out.Bytes(), errb.Bytes())
		}
		return out.Bytes()
	}
	bf(0, "validate")
	bf(0, "register", ".", "--collect")

	watch := exec.Command(filepath.Join(binDir, "bf"), "watch", "--json", "--interval", "5", "--poll-interval", "1")
	watch.Dir, watch.Env = brain, env
	var stderr bytes.Buffer
	watch.Stderr = &stderr
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	// lines receives each status line; the reader ends with the watcher's stdout.
	lines := make(chan []byte, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	exited := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			watch.Process.Kill()
			<-exited
		}
	}()
	var last struct {
		Brain  string `json:"brain"`
		Cycles int    `json:"cycles"`
	}
	next := func(what string) {
		t.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("bf watch ended while waiting for %s; stderr: %s", what, stderr.Bytes())
			}
			if err := json.Unmarshal(line, &last); err != nil {
				t.Fatalf("bf watch printed a line that is not JSON: %v: %s", err, line)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("no status line from bf watch while waiting for %s", what)
		}
	}
	// The first cycle starts the input at the current time: only later messages are read.
	for next("the first cycle"); last.Cycles < 1; next("the first cycle") {
	}
	if last.Brain != "acme" {
		t.Fatalf("status line names brain %q, want acme", last.Brain)
	}

	// A message a second, each written under a dot name and renamed when complete. The
	// status lines are drained meanwhile so the watcher never blocks on its stdout.
	drain := func(d time.Duration) {
		for end := time.After(d); ; {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("bf watch ended during the soak; stderr: %s", stderr.Bytes())
				}
				json.Unmarshal(line, &last)
			case <-end:
				return
			}
		}
	}
	for i := 1; i <= soakMessages; i++ {
		id := fmt.Sprintf("m%02d", i)
		msg, _ := json.Marshal(map[string]string{"id": id, "sender": "me", "conversation": soakConversation(i),
			"time": time.Now().UTC().Format(time.RFC3339Nano), "text": "question " + id})
		tmp := filepath.Join(inbox, "."+id+".json")
		if err := os.WriteFile(tmp, msg, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(inbox, id+".json")); err != nil {
			t.Fatal(err)
		}
		drain(time.Second)
	}
	// Let the watcher answer the rest (each of its cycles reads the inbox), then stop it.
	outbox := filepath.Join(brain, "outbox.jsonl")
	for deadline := time.Now().Add(3 * time.Minute); soakSent(outbox) < soakMessages; {
		if time.Now().After(deadline) {
			t.Fatalf("after the soak, %d of %d messages were answered", soakSent(outbox), soakMessages)
		}
		drain(time.Second)
	}
	go func() {
		for range lines {
		}
	}()
	go func() { exited <- watch.Wait() }()
	if err := watch.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Fatalf("bf watch after SIGTERM: %v, want exit 130; stderr: %s", err, stderr.Bytes())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("bf watch did not stop within 60 seconds of SIGTERM")
	}

	// Every message answered exactly once, in order within its conversation.
	data, err := os.ReadFile(outbox)
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]int{}
	lastIn := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var d struct {
			Text         string `json:"text"`
			Conversation string `json:"conversation"`
		}
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("outbox line %s: %v", line, err)
		}
		var n int
		if _, err := fmt.Sscanf(d.Text, "answer to question m%d", &n); err != nil || n < 1 || n > soakMessages {
			t.Fatalf("outbox holds an answer to no message: %s", line)
		}
		if want := soakConversation(n); d.Conversation != want {
			t.Errorf("the answer to m%02d went to conversation %q, want %q", n, d.Conversation, want)
		}
		answered[d.Text]++
		if n <= lastIn[d.Conversation] {
			t.Errorf("in conversation %s, the answer to m%02d came after the one to m%02d", d.Conversation, n, lastIn[d.Conversation])
		}
		lastIn[d.Conversation] = n
	}
	for i := 1; i <= soakMessages; i++ {
		if c := answered[fmt.Sprintf("answer to question m%02d", i)]; c != 1 {
			t.Errorf("m%02d was answered %d times, want once", i, c)
		}
	}

	// The queue agrees: one completed message job per message and one delivered answer
	// each, nothing waiting.
	var q struct {
		Items []struct {
			ID           string `json:"id"`
			Type         string `json:"type"`
			Kind         string `json:"kind"`
			State        string `json:"state"`
			Conversation string `json:"conversation"`
		} `json:"items"`
	}
	if err := json.Unmarshal(bf(0, "queue"), &q); err != nil {
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
	if deliveries != soakMessages {
		t.Errorf("bf queue lists %d deliveries, want %d", deliveries, soakMessages)
	}
	for c := 1; c <= soakConversations; c++ {
		conv := soakConversation(c)
		if jobs[conv] != soakMessages/soakConversations {
			t.Errorf("bf queue lists %d message jobs of conversation %s, want %d", jobs[conv], conv, soakMessages/soakConversations)
		}
	}
	bf(0, "status", "--check")
}

// soakConversation is the conversation of message i.
func soakConversation(i int) string { return fmt.Sprintf("c%d", i%soakConversations+1) }

// soakSent counts the lines of the outbox.
func soakSent(outbox string) int {
	data, _ := os.ReadFile(outbox)
	return bytes.Count(data, []byte("\n"))
}
