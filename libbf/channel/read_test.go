package channel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
)

func TestRead(t *testing.T) {
	start, end := t0.Add(-time.Hour), t0.Add(time.Hour)
	tests := []struct {
		name  string
		body  string
		start time.Time
		want  []Message
		err   string
		is    error
	}{
		{name: "batch",
			body: `echo "$1 $2" > window; printf '%s\n' '` + batch(envelope("b", time.Second), envelope("a", 0)) + `'`,
			want: []Message{{ID: "a", Sender: "s", Conversation: "c", Time: t0, Text: "t"}, {ID: "b", Sender: "s", Conversation: "c", Time: t0.Add(time.Second), Text: "t"}}},
		{name: "empty", body: `echo '{"messages":[]}'`},
		{name: "message outside the window", body: `printf '%s' '` + batch(envelope("a", 0), envelope("b", time.Hour)) + `'`,
			err: "channel chat: read must return a complete JSON messages batch: messages.1.time: outside the requested window"},
		{name: "invalid envelope", body: `printf '%s' '` + batch(`{"id":"a","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"secret","own":1}`) + `'`,
			err: "channel chat: read must return a complete JSON messages batch: messages.0.own: expected true or false"},
		{name: "next page", body: `echo '{"messages":[],"next":"p2"}'`,
			err: "channel chat: read must return a complete JSON messages batch: next: " + reasonBatchKey},
		{name: "nothing printed", body: `exit 0`,
			err: "channel chat: read must return a complete JSON messages batch: invalid JSON document"},
		{name: "exit status", body: `echo '{"messages":[]}'; echo "token expired" >&2; exit 2`,
			err: "channel chat: channel.chat.read exited with status 2; see logs/channel.chat.read.log"},
		{name: "empty window", body: `touch ran`, start: end,
			err: "channel chat: the read window must end after it starts", is: ErrWindow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := endpoint(t, config.Channel{Read: capability("read", "channels/read", "{{start}}", "{{end}}")})
			brainfix.Script(t, e.Root, "channels/read", tc.body)
			from := start
			if !tc.start.IsZero() {
				from = tc.start
			}
			got, err := e.Read(context.Background(), from, end)
			if tc.err != "" {
				if errText(err) != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("error does not match %v", tc.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if w, err := os.ReadFile(filepath.Join(e.Root, "window")); err == nil {
				if want := "2026-10-16T08:00:00.000000Z 2026-10-16T10:00:00.000000Z\n"; string(w) != want {
					t.Errorf("window arguments = %q, want %q", w, want)
				}
			}
		})
	}
}

func TestReadTooMany(t *testing.T) {
	e := endpoint(t, config.Channel{Read: capability("read", "channels/read", "{{start}}", "{{end}}")})
	items := make([]string, maxBatch+1)
	for i := range items {
		items[i] = envelope(fmt.Sprintf("m%d", i), time.Duration(i)*time.Millisecond)
	}
	brainfix.WriteFile(t, e.Root, "batch.json", []byte(batch(items...)), 0o644)
	brainfix.Script(t, e.Root, "channels/read", `cat batch.json`)
	_, err := e.Read(context.Background(), t0, t0.Add(time.Hour))
	if !errors.Is(err, errTooMany) {
		t.Fatalf("error = %v, want ErrTooMany", err)
	}
	if want := "channel chat: the window holds more than 1000 messages; split it into smaller windows"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestReadNoCapability(t *testing.T) {
	e := endpoint(t, config.Channel{Send: capability("send", "x")})
	_, err := e.Read(context.Background(), t0, t0.Add(time.Hour))
	if !errors.Is(err, errNoCapability) || err.Error() != "channel chat: declares no read; add read: to it in bf.yaml" {
		t.Fatalf("error = %v", err)
	}
}

// The example inbox adapter: read returns the files of its folder inside the window, and
// send appends to its outbox idempotently.
func TestInboxReadAndSend(t *testing.T) {
	e := endpoint(t, config.Channel{
		Send: capability("send", "channels/inbox", "send", "{{brain}}/outbox.jsonl"),
		Read: capability("read", "channels/inbox", "read", "{{brain}}/inbox", "{{start}}", "{{end}}", "--allow", "owner-id", "--allow", "friend"),
	})
	inboxAdapter(t, e.Root)
	files := map[string]string{
		"message-42.json": `{"sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:00:00Z","text":"What needs my attention?"}`,
		"b.json":          `{"id":"message-43","sender":"friend","time":"2026-10-16T09:30:00+00:00","text":"Lunch?","reply_to":"message-42"}`,
		"late.json":       `{"sender":"owner-id","time":"2026-10-16T11:00:00Z","text":"outside"}`,
		"spam.json":       `{"sender":"stranger","time":"2026-10-16T09:10:00Z","text":"buy"}`,
		".partial.json":   `{"sender":`,
		"notes.txt":       `not a message`,
	}
	for name, body := range files {
		brainfix.WriteFile(t, e.Root, "inbox/"+name, []byte(body), 0o644)
	}
	got, err := e.Read(context.Background(), t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{ID: "message-42", Sender: "owner-id", Conversation: "thread-7", Time: t0, Text: "What needs my attention?"},
		{ID: "message-43", Sender: "friend", Conversation: "inbox", Time: t0.Add(30 * time.Minute), Text: "Lunch?", ReplyTo: "message-42"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}

	// A broken file fails the whole batch, naming the file in the log only.
	brainfix.WriteFile(t, e.Root, "inbox/broken.json", []byte(`{"sender":"owner-id","time":"2026-10-16T09:00:00Z"}`), 0o644)
	if _, err := e.Read(context.Background(), t0, t0.Add(time.Hour)); errText(err) != "channel chat: channel.chat.read exited with status 1; see logs/channel.chat.read.log" {
		t.Errorf("read of a broken inbox: %v", err)
	}
	if log := readLog(t, e.Root, "channel.chat.read"); !strings.HasSuffix(log, "inbox: broken.json: text: expected a string\n") {
		t.Errorf("log = %q", log)
	}

	reply := Outgoing{ID: "d-1", Text: "Nothing urgent.", Conversation: "thread-7", ReplyTo: "message-42"}
	r1, err := e.Send(context.Background(), reply)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Conversation != "thread-7" || !strings.HasPrefix(r1.ID, "sent-") {
		t.Errorf("receipt = %+v", r1)
	}
	// The same delivery again returns the saved receipt and appends nothing.
	r2, err := e.Send(context.Background(), reply)
	if err != nil || r2 != r1 {
		t.Errorf("repeated send = %+v, %v; want %+v", r2, err, r1)
	}
	// Other content under the same ID fails without sending.
	changed := reply
	changed.Text = "Something else."
	if _, err := e.Send(context.Background(), changed); err == nil {
		t.Error("a changed delivery under a known ID was sent")
	}
	// No conversation: the endpoint's default destination.
	r3, err := e.Send(context.Background(), Outgoing{ID: "d-2", Text: "The review is ready."})
	if err != nil || r3.Conversation != "outbox" {
		t.Errorf("default destination receipt = %+v, %v", r3, err)
	}
	out, err := os.ReadFile(filepath.Join(e.Root, "outbox.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "\n"); n != 2 {
		t.Errorf("outbox holds %d lines, want 2:\n%s", n, out)
	}
}
