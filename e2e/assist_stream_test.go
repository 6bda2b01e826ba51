//go:build linux

package e2e

// A stream input whose adapter dies in the middle of a conversation: bf watch keeps the
// example inbox adapter streaming, it is killed (SIGKILL) several times while messages
// keep arriving, and bf restarts it. The adapter resumes after the last message bf
// acknowledged, which bf does only once the message is durably queued, so it sends an
// unacknowledged message again: every message must still be answered exactly once, in
// order within its conversation, and bf status --check must pass once it streams again.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

const streamSettings = `
channels:
  inbox:
    send:
      command: [inbox, send, "{{brain}}/outbox.jsonl"]
      idempotent: true
    stream:
      command: [inbox, stream, "{{brain}}/inbox", --poll, "0.05", --allow, me]
assistants:
  helper:
    command: [fakeharness, --context, "{{context}}", answer]
    inputs:
      - {channel: inbox, mode: stream}
`

const (
	streamMessages = 12
	streamKillEach = 3 // the adapter is killed after every third message
)

func streamConversation(i int) string { return "c" + strconv.Itoa(i%2+1) }

// adapterPid returns the PID of the inbox stream adapter following folder, or 0.
func adapterPid(folder string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(data, "\x00"), []byte{0})
		if len(args) >= 3 && filepath.Base(string(args[0])) == "inbox" && string(args[1]) == "stream" && string(args[2]) == folder {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if alive(pid) {
				return pid
			}
		}
	}
	return 0
}

func TestStreamAdapterRestart(t *testing.T) {
	t.Parallel()
	l := newLiveBrain(t, streamSettings)
	w := l.watch("--interval", "3600", "--poll-interval", "0.5")
	pid := 0
	w.until("the stream adapter to start", func() bool { pid = adapterPid(l.inbox); return pid != 0 })
	kills := 0
	for i := 1; i <= streamMessages; i++ {
		l.drop(i, streamConversation(i))
		if i%streamKillEach != 0 {
			w.drain(300 * time.Millisecond)
			continue
		}
		// Kill the adapter while it may be sending this message or waiting for its ack,
		// then wait for bf to start a new one.
		w.drain(time.Duration(i%4) * 20 * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("killing the adapter: %v", err)
		}
		kills++
		old := pid
		w.until("the stream adapter to restart", func() bool { pid = adapterPid(l.inbox); return pid != 0 && pid != old })
	}
	w.until("every message answered", func() bool { return l.sent() >= streamMessages })
	// The kills show in bf status until the restarted adapter has stayed connected
	// (channel.connectedAfter); then bf status --check passes while the watcher runs.
	w.until("the stream error to clear", func() bool {
		cmd := exec.Command(filepath.Join(binDir, "bf"), "status", "--check")
		cmd.Dir, cmd.Env = l.root, l.env
		return cmd.Run() == nil
	})
	w.stop()
	if kills != streamMessages/streamKillEach {
		t.Fatalf("killed the adapter %d times, want %d", kills, streamMessages/streamKillEach)
	}
	l.checkAnswered(streamMessages, streamConversation)
	l.bf(0, "status", "--check")
}
