package assist

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/queue"
)

const readConfig = `version: 8
name: work
channels:
  inbox:
    read:
      command: [channels/inbox, "{{start}}", "{{end}}"]
    send:
      command: [channels/inbox]
assistants:
  bot:
    command: [cat]
    inputs:
      - {channel: inbox, mode: read, every: 10}
`

// A read batch the queue cannot hold admits its longest prefix and names its channel in
// the error, as a stream's refused admission does.
func TestReadFullQueueNamesChannel(t *testing.T) {
	fix := brainfix.New(t, brainfix.Spec{Config: readConfig, Notes: map[string]string{"prompts/bot.md": "Answer.\n"}, Trusted: true})
	fix.Script("channels/inbox", `printf '{"messages":[{"id":"m1","sender":"me","conversation":"c","time":"2026-10-16T09:00:02Z","text":"one"},{"id":"m2","sender":"me","conversation":"c","time":"2026-10-16T09:00:03Z","text":"two"}]}\n'`)
	b := fix.Open()
	q, err := queue.Open(t.TempDir(), queue.Binding{Path: b.Root, Name: b.Name}, queue.Options{MaxObligations: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	start := time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
	if err := q.Mark(queue.Mark{Name: inputMark("inbox"), Progress: queue.Progress{Position: start}}); err != nil {
		t.Fatal(err)
	}
	o := Runner{Env: &fix.Env}
	rep := &Report{}
	err = o.read(context.Background(), b, q, "inbox", []string{"bot"}, 10, start.Add(time.Minute), rep)
	want := "channel inbox: assistant queue is full: admitted 1 of 2 messages; finish, retry or cancel unfinished work, and the next poll reads the rest"
	if !errors.Is(err, queue.ErrFull) || err.Error() != want {
		t.Fatalf("read error %v, want %q", err, want)
	}
	if len(rep.Admitted) != 1 {
		t.Fatalf("admitted %v, want the first message's job", rep.Admitted)
	}
}
