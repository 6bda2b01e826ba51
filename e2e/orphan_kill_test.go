//go:build linux

package e2e

// Kill tests of attempts whose program outlives bf: a bf killed outright leaves its send
// command or harness running in its own process group. Until that group ends, retry,
// cancel and recovery must count the attempt as running, so no second attempt overlaps it;
// once it ended, recovery records the attempt and removes the job's private context file.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
)

// orphanMessage is the refusal of retry and cancel while the program of a killed bf's
// attempt still runs as process group pgid.
func orphanMessage(what string, pgid int) string {
	return fmt.Sprintf("bf: %s; retry or cancel it once its attempt ends; its program still runs as process group %d after its bf process ended: let it finish, or stop it with kill -- -%d\n", what, pgid, pgid)
}

func TestOrphanedSendHoldsRetryAndCancel(t *testing.T) {
	for _, channel := range []string{"plain", "idem"} {
		t.Run(channel, func(t *testing.T) {
			r := newKillRig(t)
			id := "o-" + channel
			r.touch("run/hold." + id)
			cmd := r.start(channel, id)
			r.waitFor("the send command to hold", func() bool { return r.exists("run/ready." + id) })
			r.kill(cmd)
			data, err := os.ReadFile(filepath.Join(r.brain, "run", "pid."+id))
			if err != nil {
				t.Fatal(err)
			}
			pgid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			// Whatever the test finds, no held adapter outlives it.
			t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })

			// Retry and cancel refuse, and recovery leaves the attempt running.
			for _, op := range []string{"--retry", "--cancel"} {
				c, out, errb := r.command("", "queue", id, op)
				err := runWithin(t, c, 20*time.Second)
				if code := c.ProcessState.ExitCode(); code != 1 || errb.String() != orphanMessage("delivery is still being sent", pgid) {
					t.Fatalf("bf queue %s %s while its send runs: exit %d (%v)\nstdout %s\nstderr %q", id, op, code, err, out, errb)
				}
			}
			r.bf(0, "", "channel", "read", "idem", "--since", "1h")
			if got := r.list()[id]; got.State != "sending" {
				t.Fatalf("after recovery while the send runs: %+v, want sending", got)
			}
			if n := r.count("calls.log", id); n != 1 {
				t.Fatalf("the send command ran %d times, want 1", n)
			}

			// Once it ended, the attempt is recorded by its channel's policy.
			r.settle(id, false)
			r.bf(0, "", "channel", "read", "idem", "--since", "1h")
			want := queueItem{ID: id, State: "uncertain", Error: "interrupted send; inspect before retrying", Attempts: 1, Channel: channel}
			if channel == "idem" {
				want.State, want.Error = "failed", "interrupted send; retry it with bf queue "+id+" --retry"
			}
			if got := r.list()[id]; got != want {
				t.Fatalf("after the send ended: %+v, want %+v", got, want)
			}
			r.bf(0, "", "queue", id, "--cancel")
		})
	}
}

// runWithin runs cmd, killing it and failing the test when it outlives d: a retry that
// sends again blocks on the held adapter instead of refusing.
func runWithin(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("bf %s did not return within %s: it attempted the work again instead of refusing", strings.Join(cmd.Args[1:], " "), d)
		return nil
	}
}

const orphanConfig = `version: 8
name: brain
assistants:
  solo:
    command: [fakeharness, --context, "{{context}}", act, acted.log, hold, say, done]
`

func TestOrphanedHarnessOutlivesRecovery(t *testing.T) {
	r := newRig(t, brainfix.Spec{Config: orphanConfig, Notes: map[string]string{"prompts/solo.md": "Run by hand.\n"}}, nil)
	runs := filepath.Join(filepath.Dir(r.queue), "runs")
	contexts := func() []string {
		m, _ := filepath.Glob(filepath.Join(runs, "ctx-*.json"))
		return m
	}
	r.touch("run/hold.harness")
	cmd, _, _ := r.command("", "run", "solo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the harness to hold", func() bool { return globExists(r.brain, "run/ready.harness.*") })
	r.kill(cmd)
	ready, _ := filepath.Glob(filepath.Join(r.brain, "run", "ready.harness.*"))
	pgid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(ready[0]), "ready.harness."))
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })

	// A watch cycle records dead attempts: this one still runs, with its context file.
	r.bf(0, "", "watch", "--json", "--cycles", "1", "--assistant", "solo")
	items := r.items()
	if len(items) != 1 || items[0].State != "running" {
		t.Fatalf("after recovery while the harness runs: %+v, want one running job", items)
	}
	if n := len(contexts()); n != 1 {
		t.Fatalf("%d context files while the harness runs, want 1", n)
	}
	c, _, errb := r.command("", "queue", items[0].ID, "--retry")
	runWithin(t, c, 20*time.Second)
	if code := c.ProcessState.ExitCode(); code != 1 || errb.String() != orphanMessage("job is still running", pgid) {
		t.Fatalf("retry while the harness runs: exit %d, stderr %q", code, errb)
	}

	// Once it ended, the attempt is uncertain and its private context file is gone.
	r.releaseAll()
	r.bf(0, "", "watch", "--json", "--cycles", "1", "--assistant", "solo")
	items = r.items()
	if len(items) != 1 || items[0].State != "uncertain" || items[0].Error != "interrupted harness attempt; inspect before retrying" {
		t.Fatalf("after the harness ended: %+v, want one uncertain job", items)
	}
	if left := contexts(); len(left) != 0 {
		t.Fatalf("context files left after recovery: %v", left)
	}
	acted, _ := os.ReadFile(filepath.Join(r.brain, "acted.log"))
	if n := strings.Count(string(acted), "\n"); n != 1 {
		t.Fatalf("the harness acted %d times, want 1", n)
	}
}
