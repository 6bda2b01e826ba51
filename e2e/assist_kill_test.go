//go:build linux

package e2e

// Kill tests of bf watch and bf run with assistants: the real process is killed with
// SIGKILL (or stopped with SIGTERM) at many points — at increasing delays after its start,
// while the harness runs after it acted, while a delivery is being sent, while the queue
// commits — and later cycles must then leave every accepted message answered exactly once
// or waiting visibly as failed or uncertain, with nothing delivered twice and no run
// recorded twice.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
)

const assistAdapter = `#!/bin/sh
# channels/chat read START END prints the messages of messages.tsv (TIME, tab, envelope)
# inside the window; send appends a delivery to the outbox once per delivery ID (an
# idempotent adapter), holding first while run/hold.send exists.
case "$1" in
read)
  awk -F '\t' -v s="$2" -v e="$3" 'BEGIN { printf "{\"messages\":[" } $1 >= s && $1 < e { if (n++) printf ","; printf "%s", $2 } END { print "]}" }' messages.tsv
  ;;
send)
  read -r line
  id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
  conv=$(printf '%s' "$line" | sed 's/.*"conversation":"\([^"]*\)".*/\1/')
  echo "$id" >> calls.log
  if [ -e run/hold.send ]; then : > "run/ready.send.$$"; while [ ! -e run/go.send ]; do sleep 0.01; done; fi
  if ! grep -qx "$id" outbox.ids 2>/dev/null; then
    printf '%s\n' "$line" >> outbox.jsonl
    echo "$id" >> outbox.ids
  fi
  printf '{"id":"sent-%s","conversation":"%s"}\n' "$id" "$conv"
  ;;
esac
`

const assistConfig = `version: 8
name: brain
channels:
  chat:
    send:
      command: [channels/chat, send]
      idempotent: true
    read:
      command: [channels/chat, read, "{{start}}", "{{end}}"]
assistants:
  bot:
    command: [fakeharness, --context, "{{context}}", act, acted.log, hold, answer]
    inputs:
      - {channel: chat, mode: read, every: 10}
  solo:
    command: [fakeharness, act, acted.log, hold, say, done]
`

// The clock of the watch runs: T0 starts the input, T1 reads the messages, later ones
// recover (each far enough apart for any delivery backoff).
var (
	killT0 = time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
	killT1 = killT0.Add(time.Minute)
)

var killMessages = []struct{ id, conv string }{{"m1", "a"}, {"m2", "a"}, {"m3", "b"}}

func newAssistRig(t *testing.T) *killRig {
	t.Helper()
	return newRig(t, brainfix.Spec{Config: assistConfig,
		Notes: map[string]string{"prompts/bot.md": "Answer.\n", "prompts/solo.md": "Run by hand.\n"}},
		map[string]string{"channels/chat": assistAdapter})
}

// at runs bf with the clock fixed at t.
func (r *killRig) at(t time.Time, want int, args ...string) []byte {
	r.t.Helper()
	saved := r.env
	r.env = append(append([]string{}, saved...), "BF_NOW="+t.Format(time.RFC3339))
	defer func() { r.env = saved }()
	return r.bf(want, "", args...)
}

// started is a bf process a test started; done closes once it is reaped.
type started struct {
	*os.Process
	done chan struct{}
}

func (r *killRig) startAt(t time.Time, args ...string) *started {
	r.t.Helper()
	saved := r.env
	r.env = append(append([]string{}, saved...), "BF_NOW="+t.Format(time.RFC3339))
	cmd, _, _ := r.command("", args...)
	r.env = saved
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	s := &started{Process: cmd.Process, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	return s
}

// reaped waits until a started process has been reaped. A killed Go process shows as a
// zombie while its other threads still exit and still hold its files, and with them its
// locks; once reaped, the whole process is gone.
func (r *killRig) reaped(s *started, what string) {
	r.t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("timed out waiting for %s", what)
	}
}

// prepare starts the input at T0 and drops the messages.
func (r *killRig) prepare() {
	r.t.Helper()
	r.at(killT0, 0, "watch", "--json", "--cycles", "1")
	var b strings.Builder
	for i, m := range killMessages {
		at := killT0.Add(time.Duration(i+1) * time.Second).Format("2006-01-02T15:04:05.000000Z")
		fmt.Fprintf(&b, "%s\t{\"id\":%q,\"sender\":\"me\",\"conversation\":%q,\"time\":%q,\"text\":\"question %s\"}\n", at, m.id, m.conv, at, m.id)
	}
	if err := os.WriteFile(filepath.Join(r.brain, "messages.tsv"), []byte(b.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// releaseAll lets held harnesses and sends go on, and waits until none is left running.
func (r *killRig) releaseAll() {
	r.t.Helper()
	os.Remove(filepath.Join(r.brain, "run", "hold.harness"))
	os.Remove(filepath.Join(r.brain, "run", "hold.send"))
	r.touch("run/go.harness")
	r.touch("run/go.send")
	r.waitFor("held programs to end", func() bool {
		entries, _ := os.ReadDir(filepath.Join(r.brain, "run"))
		for _, e := range entries {
			var pid int
			if _, err := fmt.Sscanf(e.Name(), "ready.harness.%d", &pid); err == nil && groupAlive(pid) {
				return false
			}
			if _, err := fmt.Sscanf(e.Name(), "ready.send.%d", &pid); err == nil && groupAlive(pid) {
				return false
			}
		}
		return true
	})
	os.Remove(filepath.Join(r.brain, "run", "go.harness"))
	os.Remove(filepath.Join(r.brain, "run", "go.send"))
	ready, _ := filepath.Glob(filepath.Join(r.brain, "run", "ready.*"))
	for _, f := range ready {
		os.Remove(f)
	}
}

type jobItem struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	State        string `json:"state"`
	Error        string `json:"error"`
	Kind         string `json:"kind"`
	Conversation string `json:"conversation"`
	Job          string `json:"job"`
}

func (r *killRig) items() []jobItem {
	r.t.Helper()
	var l struct {
		Items []jobItem `json:"items"`
	}
	if err := json.Unmarshal(r.bf(0, "", "queue"), &l); err != nil {
		r.t.Fatalf("bf queue: %v", err)
	}
	return l.Items
}

// checkAnswered asserts the invariants once recovery cycles ran: every message has one
// job; it was delivered exactly once, or its job is failed or uncertain and nothing was
// delivered for it; no delivery ID reached the outbox twice; no run record is repeated.
func (r *killRig) checkAnswered(point string) {
	r.t.Helper()
	out, _ := os.ReadFile(filepath.Join(r.brain, "outbox.jsonl"))
	delivered := map[string]int{}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var d struct {
			ID      string `json:"id"`
			ReplyTo string `json:"reply_to"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			r.t.Fatalf("%s: outbox line %q: %v", point, line, err)
		}
		if seen[d.ID] {
			r.t.Fatalf("%s: delivery %s reached the outbox twice", point, d.ID)
		}
		seen[d.ID] = true
		delivered[d.ReplyTo]++
	}
	items := r.items()
	for _, m := range killMessages {
		var jobs []jobItem
		for _, it := range items {
			if it.Type == "job" && it.Kind == "message" && it.Conversation == m.conv && strings.HasPrefix(it.ID, "m-") &&
				strings.Contains(it.ID, "T09000"+strings.TrimPrefix(m.id, "m")+".") {
				jobs = append(jobs, it)
			}
		}
		if len(jobs) != 1 {
			r.t.Fatalf("%s: message %s has %d jobs, want 1: %+v", point, m.id, len(jobs), items)
		}
		j := jobs[0]
		switch {
		case delivered[m.id] > 1:
			r.t.Fatalf("%s: message %s answered %d times", point, m.id, delivered[m.id])
		case delivered[m.id] == 1 && j.State != "completed":
			r.t.Fatalf("%s: message %s delivered but its job is %s", point, m.id, j.State)
		case delivered[m.id] == 0 && j.State != "failed" && j.State != "uncertain" && j.State != "pending":
			r.t.Fatalf("%s: message %s not delivered and its job is %s (%s)", point, m.id, j.State, j.Error)
		}
		if delivered[m.id] == 0 && j.State == "pending" {
			// Pending only behind an earlier job of its conversation that waits visibly.
			held := false
			for _, it := range items {
				if it.Type == "job" && it.Conversation == m.conv && it.ID < j.ID && (it.State == "failed" || it.State == "uncertain") {
					held = true
				}
			}
			if !held {
				r.t.Fatalf("%s: message %s waits as pending with nothing holding it", point, m.id)
			}
		}
	}
	recs := recordFiles(filepath.Join(r.brain, "memories", "bot"))
	answered := 0
	for _, it := range items {
		if it.Type == "job" && it.Kind == "message" && (it.State == "completed" || it.State == "answered") {
			answered++
		}
	}
	if len(recs) < answered {
		r.t.Fatalf("%s: %d answered jobs but %d run records", point, answered, len(recs))
	}
	if len(recs) > len(killMessages) {
		r.t.Fatalf("%s: %d run records for %d messages", point, len(recs), len(killMessages))
	}
}

// recover runs cycles at later clocks, as the next watch would.
func (r *killRig) recoverCycles() {
	r.t.Helper()
	for i := 1; i <= 3; i++ {
		r.at(killT1.Add(time.Duration(i)*10*time.Minute), 0, "watch", "--json", "--cycles", "1")
	}
}

func TestAssistWatchKillPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("kill tests start many processes")
	}
	// Kills at increasing delays after the start: before the read, during admission,
	// while harnesses run, while deliveries are sent, after the cycle. Each point has a
	// brain of its own, so they run side by side.
	const delays = 24
	t.Run("delays", func(t *testing.T) {
		for i := 0; i < delays; i++ {
			t.Run(fmt.Sprintf("%dms", i*12), func(t *testing.T) {
				t.Parallel()
				r := newAssistRig(t)
				r.prepare()
				p := r.startAt(killT1, "watch", "--json", "--cycles", "1")
				time.Sleep(time.Duration(i*12) * time.Millisecond)
				p.Signal(syscall.SIGKILL)
				r.reaped(p, "bf watch to die")
				r.releaseAll()
				r.recoverCycles()
				r.checkAnswered(fmt.Sprintf("delay %d ms", i*12))
			})
		}
	})
	points := delays
	// The harness has acted and holds: the run is interrupted, its job uncertain.
	{
		r := newAssistRig(t)
		r.prepare()
		r.touch("run/hold.harness")
		p := r.startAt(killT1, "watch", "--json", "--cycles", "1")
		r.waitFor("the harness to hold", func() bool { return globExists(r.brain, "run/ready.harness.*") })
		p.Signal(syscall.SIGKILL)
		r.reaped(p, "bf watch to die")
		r.releaseAll()
		r.recoverCycles()
		r.checkAnswered("harness holding")
		uncertain := 0
		for _, it := range r.items() {
			if it.State == "uncertain" && it.Error == "interrupted harness attempt; inspect before retrying" {
				uncertain++
			}
		}
		if uncertain != 1 {
			t.Fatalf("harness holding: %d uncertain jobs, want 1", uncertain)
		}
		points++
	}
	// A delivery is being sent: the idempotent channel retries it, once delivered.
	{
		r := newAssistRig(t)
		r.prepare()
		r.touch("run/hold.send")
		p := r.startAt(killT1, "watch", "--json", "--cycles", "1")
		r.waitFor("the send to hold", func() bool { return globExists(r.brain, "run/ready.send.*") })
		p.Signal(syscall.SIGKILL)
		r.reaped(p, "bf watch to die")
		r.releaseAll()
		r.recoverCycles()
		r.checkAnswered("send holding")
		out, _ := os.ReadFile(filepath.Join(r.brain, "outbox.jsonl"))
		if n := strings.Count(string(out), "\n"); n != len(killMessages) {
			t.Fatalf("send holding: %d answers delivered, want %d", n, len(killMessages))
		}
		points++
	}
	// SIGTERM while the harness runs: the attempt is recorded before bf exits.
	{
		r := newAssistRig(t)
		r.prepare()
		r.touch("run/hold.harness")
		p := r.startAt(killT1, "watch", "--json", "--cycles", "1")
		r.waitFor("the harness to hold", func() bool { return globExists(r.brain, "run/ready.harness.*") })
		p.Signal(syscall.SIGTERM)
		r.reaped(p, "bf watch to stop")
		found := false
		for _, it := range r.items() {
			if it.State == "uncertain" {
				found = true
			}
		}
		if !found {
			t.Fatal("SIGTERM: the interrupted attempt was not recorded")
		}
		r.releaseAll()
		r.recoverCycles()
		r.checkAnswered("SIGTERM")
		points++
	}
	t.Logf("%d kill points of bf watch", points)
}

func TestAssistRunKillPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("kill tests start many processes")
	}
	r := newAssistRig(t)
	points := 0
	// check records dead attempts and runs what a killed bf run left pending, as the next
	// watch cycle does, then compares the queue with the harness's effects and the records.
	check := func(point string) {
		t.Helper()
		r.bf(0, "", "watch", "--json", "--cycles", "1", "--assistant", "solo")
		acted, _ := os.ReadFile(filepath.Join(r.brain, "acted.log"))
		recs := recordFiles(filepath.Join(r.brain, "memories", "solo"))
		states := map[string]int{}
		for _, it := range r.items() {
			if it.Kind == "run" {
				states[it.State]++
				if it.State == "running" {
					t.Fatalf("%s: job %s still running after bf queue recorded dead attempts", point, it.ID)
				}
			}
		}
		// Every completed run has its record. A run killed after its record was stored and
		// before the queue marked it completed is uncertain with a record (the job ID names
		// the record, so a retry replaces it): never more records than the two together.
		if n := len(recs); n < states["completed"] || n > states["completed"]+states["uncertain"] {
			t.Fatalf("%s: %d run records for %d completed runs (%v)", point, n, states["completed"], states)
		}
		// A completed run acted; an uncertain one may have (a harness bf left behind
		// may still be starting).
		if runs := strings.Count(string(acted), "\n"); runs < states["completed"] {
			t.Fatalf("%s: the harness acted %d times for %v", point, runs, states)
		}
	}
	for i := 0; i < 22; i++ {
		cmd, _, _ := r.command("", "run", "solo")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i*5) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		r.releaseAll()
		check(fmt.Sprintf("run delay %d ms", i*5))
		points++
	}
	// Killed while the harness holds after acting: uncertain, never rerun by itself.
	r.touch("run/hold.harness")
	cmd, _, _ := r.command("", "run", "solo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the harness to hold", func() bool { return globExists(r.brain, "run/ready.harness.*") })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r.releaseAll()
	check("run holding")
	points++
	// SIGTERM while it holds: exit 130 and the attempt recorded as uncertain at once.
	r.touch("run/hold.harness")
	cmd, _, errb := r.command("", "run", "solo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the harness to hold", func() bool { return globExists(r.brain, "run/ready.harness.*") })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("SIGTERM: exit %d (%v), want 130; stderr %s", code, err, errb)
	}
	r.releaseAll()
	check("run SIGTERM")
	points++
	t.Logf("%d kill points of bf run", points)
}

func globExists(dir, pattern string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	return len(m) > 0
}

// One collecting watcher per brain: while one runs, a second --json watcher fails.
func TestWatchOwnsBrain(t *testing.T) {
	r := newAssistRig(t)
	cmd, out, _ := r.command("", "watch", "--json", "--interval", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	r.waitFor("the first watcher's first cycle", func() bool { return strings.Contains(out.String(), `"cycles":1`) })
	second, _, errb := r.command("", "watch", "--json", "--cycles", "1")
	err := second.Run()
	if code := second.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("second watcher: exit %d (%v), want 1", code, err)
	}
	if got := errb.String(); got != "bf: another watcher owns this brain; stop it first, or run bf status to observe\n" {
		t.Fatalf("second watcher: stderr %q", got)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("stopped watcher: exit %d, want 130", code)
	}
}

// recordFiles lists the record files of a source folder, leaving out its ledger.
func recordFiles(dir string) []os.DirEntry {
	list, _ := os.ReadDir(dir)
	return slices.DeleteFunc(list, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".") })
}
