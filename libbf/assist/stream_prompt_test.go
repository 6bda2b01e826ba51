package assist

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/queue"
)

const streamConfig = `version: 8
name: work
channels:
  chat:
    send:
      command: [channels/chat]
    stream:
      command: [channels/chat, stream]
assistants:
  bot:
    command: [cat]
    inputs:
      - {channel: chat, mode: stream}
`

// A stream message for an assistant whose prompt is missing is neither admitted nor
// acknowledged, and the failure is the channel's error; once the prompt exists, the
// restarted adapter's redelivery is admitted and acknowledged.
func TestStreamMissingPromptLeavesMessageUnacknowledged(t *testing.T) {
	fix := brainfix.New(t, brainfix.Spec{Config: streamConfig, Trusted: true})
	fix.Script("channels/chat", `read -r resume
printf '%s\n' '{"id":"m1","sender":"me","conversation":"c","time":"2026-10-16T09:00:02Z","text":"hello"}'
while read -r frame; do printf '%s\n' "$frame" >> acks.log; done`)
	b := fix.Open()
	state := t.TempDir()
	q, err := queue.Open(state, queue.Binding{Path: b.Root, Name: b.Name}, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Runner{Env: &fix.Env}.Stream(ctx, b, q, state, "chat", []string{"bot"}, nil)
	}()
	acks := filepath.Join(b.Root, "acks.log")
	wantErr := "channel chat: messages not admitted: assistant bot: cannot read its prompt prompts/bot.md; create it or name another file with prompt: in bf.yaml"
	waitFor(t, "the channel error", func() bool { return messaging.LoadInputErrors(state)["chat"].Error == wantErr })
	if data, _ := os.ReadFile(acks); len(data) > 0 {
		t.Fatalf("acknowledged without a prompt: %s", data)
	}
	if items, err := q.List(); err != nil || len(items) != 0 {
		t.Fatalf("queue holds %v (%v), want nothing", items, err)
	}

	fix.Write("prompts/bot.md", "Answer.\n")
	waitFor(t, "the acknowledgement", func() bool {
		data, _ := os.ReadFile(acks)
		return strings.Contains(string(data), `"type":"ack","id":"m1"`)
	})
	if items, err := q.List(); err != nil || len(items) != 1 || items[0].Type != "job" {
		t.Fatalf("queue holds %v (%v), want the message's job", items, err)
	}
	cancel()
	<-done
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
