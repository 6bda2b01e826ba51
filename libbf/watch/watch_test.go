package watch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
)

// adapter streams the messages of stream.jsonl once, then logs the acknowledgements it
// reads; send appends each delivery to outbox.jsonl and prints a receipt.
const adapter = `#!/bin/sh
case "$1" in
send)
  read -r line
  printf '%s\n' "$line" >> outbox.jsonl
  id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
  conv=$(printf '%s' "$line" | sed -n 's/.*"conversation":"\([^"]*\)".*/\1/p')
  printf '{"id":"r-%s","conversation":"%s"}\n' "$id" "$conv"
  ;;
stream)
  read -r resume
  cat stream.jsonl
  while read -r frame; do printf '%s\n' "$frame" >> acks.log; done
  ;;
esac
`

const config = `version: 8
name: ops
channels:
  chat:
    send:
      command: [channels/adapter, send]
      idempotent: true
    stream:
      command: [channels/adapter, stream]
assistants:
  bot:
    command: [cat]
    inputs:
      - {channel: chat, mode: stream}
`

func fixture(t *testing.T) (brain.Env, *brain.Brain) {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "PATH": os.Getenv("PATH")}
	env := brain.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
	root := filepath.Join(home, "brain")
	for rel, data := range map[string]string{
		"bf.yaml":          config,
		"channels/adapter": adapter,
		"prompts/bot.md":   "Echo:",
		"stream.jsonl":     `{"id":"m1","sender":"me","conversation":"week","time":"2030-01-01T00:00:00Z","text":"hello"}` + "\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Trust(root); err != nil {
		t.Fatal(err)
	}
	b, err := env.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return env, b
}

// A stream input's message is admitted, answered by the harness (cat echoes its prompt)
// and delivered to its conversation while the watcher runs; a second collecting watcher
// is refused meanwhile; stopping ends the stream.
func TestStreamAnswered(t *testing.T) {
	env, b := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lines []Line
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, b, Options{Env: &env, Interval: time.Hour, PollInterval: time.Hour,
			Lines: func(l Line) { mu.Lock(); lines = append(lines, l); mu.Unlock() }})
	}()
	outbox := filepath.Join(b.Root, "outbox.jsonl")
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(outbox)
		if strings.Contains(string(data), "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no answer was delivered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Run(ctx, b, Options{Env: &env, Cycles: 1}); !errors.Is(err, ErrOwned) {
		t.Fatalf("second watcher: %v, want ErrOwned", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(outbox)
	if !strings.Contains(string(data), `"text":"Echo:\n\n## Message to answer\n\nChannel chat, conversation week.\n\nFrom me at 2030-01-01T00:00:00.000000Z:\n\nhello\n","conversation":"week","reply_to":"m1"}`) {
		t.Fatalf("outbox: %s", data)
	}
	acks, _ := os.ReadFile(filepath.Join(b.Root, "acks.log"))
	if !strings.Contains(string(acks), `"type":"ack","id":"m1"`) {
		t.Fatalf("acks: %s", acks)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) == 0 || lines[len(lines)-1].Brain != "ops" {
		t.Fatalf("lines: %+v", lines)
	}
}

// An observer shows the collecting watcher's cycles, not its own rereads; once that
// watcher stopped it says that none collects, and one that may take over collects.
func TestObserverFollowsCollector(t *testing.T) {
	env, b := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, b, Options{Env: &env, Interval: 5 * time.Millisecond, PollInterval: time.Hour})
	}()
	state, err := env.BrainStatePath(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	published := func() int {
		var c collector
		data, _ := os.ReadFile(filepath.Join(state, collectorFile))
		if json.Unmarshal(data, &c) != nil {
			return 0
		}
		return c.Cycles
	}
	for deadline := time.Now().Add(20 * time.Second); published() < 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the collector never published 3 cycles")
		}
	}
	observed := func(o Options) Line {
		t.Helper()
		var last Line
		o.Env, o.Cycles, o.Lines = &env, 1, func(l Line) { last = l }
		if err := Run(context.Background(), b, o); err != nil {
			t.Fatal(err)
		}
		return last
	}
	if l := observed(Options{Observe: true}); l.Cycles < 3 || !l.Observe || l.Message != "" {
		t.Fatalf("observing a live collector: cycles %d, observe %v, message %q; want its cycles (3 or more)", l.Cycles, l.Observe, l.Message)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(state, collectorFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stopped collector left its state: %v", err)
	}
	if l := observed(Options{Observe: true}); l.Cycles != 0 || l.Message != msgNoCollector {
		t.Fatalf("observing after the collector stopped: cycles %d, message %q", l.Cycles, l.Message)
	}
	if l := observed(Options{Observe: true, TakeOver: true}); l.Observe || l.Cycles != 1 || l.Message != "" {
		t.Fatalf("taking over: observe %v, cycles %d, message %q; want one cycle of its own", l.Observe, l.Cycles, l.Message)
	}
}
