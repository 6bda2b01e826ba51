package messaging

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

func TestParseInput(t *testing.T) {
	tests := []struct {
		in   string
		want channel.Outgoing
		err  string
	}{
		{in: `{"text":"hi"}`, want: channel.Outgoing{Text: "hi"}},
		{in: ` {"id":"d1","text":"","conversation":"c","reply_to":"m"} ` + "\n", want: channel.Outgoing{ID: "d1", Conversation: "c", ReplyTo: "m"}},
		{in: `{"text":"hi","conversation":null,"id":null}`, want: channel.Outgoing{Text: "hi"}},
		{in: `{"id":"d1"}`, err: "invalid input: stdin: text: required"},
		{in: `{"text":null}`, err: "invalid input: stdin: text: expected a string"},
		{in: `{"text":"a","to":"b"}`, err: "invalid input: stdin: to: unknown key; a message to send holds only text, id, conversation and reply_to"},
		{in: `{"text":"a","<b>":"b"}`, err: "invalid input: stdin: (key): unknown key; a message to send holds only text, id, conversation and reply_to"},
		{in: `{"text":"a","text":"b"}`, err: "invalid input: stdin: text: duplicate key"},
		{in: `{"text":1}`, err: "invalid input: stdin: text: expected a string"},
		{in: `{"text":"a","id":["x"]}`, err: "invalid input: stdin: id: expected a string"},
		{in: `{"text":"a"} {}`, err: "invalid input: stdin: unexpected text after the JSON object"},
		{in: `["text"]`, err: "invalid input: stdin: " + reasonInput},
		{in: ``, err: "invalid input: stdin: " + reasonInput},
		{in: `{"text":"a"`, err: "invalid input: stdin: " + reasonInput},
		{in: "{\"text\":\"\xff\"}", err: "invalid input: stdin: must be valid UTF-8"},
	}
	for _, tt := range tests {
		got, err := parseInput([]byte(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || !reply.IsInput(err) {
				t.Errorf("parseInput(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseInput(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseInput(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestReadInputLimit(t *testing.T) {
	_, err := ReadInput(strings.NewReader(strings.Repeat("x", maxInput+1)))
	if !reply.IsInput(err) {
		t.Fatalf("err = %v, want invalid input", err)
	}
	data, err := ReadInput(strings.NewReader(`{"text":"a"}`))
	if err != nil || string(data) != `{"text":"a"}` {
		t.Fatalf("ReadInput = %q, %v", data, err)
	}
}

func TestSendDelivered(t *testing.T) {
	f := newFixture(t, true)
	r, err := f.send("chat", `{"text":"Here is the answer.","conversation":"thread-7","reply_to":"m-42","id":"d-1"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &SendReply{Attempts: 1, Channel: "chat", Conversation: "thread-7", ID: "d-1", ReplyTo: "m-42",
		Receipt: &Receipt{Conversation: "thread-7", ID: "r-d-1"}, State: queue.Delivered}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if got := f.sent(); len(got) != 1 || got[0] != `{"id":"d-1","text":"Here is the answer.","conversation":"thread-7","reply_to":"m-42"}` {
		t.Errorf("adapter received %q", got)
	}

	// Without an ID, one is created; the default destination is the adapter's.
	r, err = f.send("chat", `{"text":"The review is ready."}`)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^d-[0-9a-f]{20}$`).MatchString(r.ID) || r.Receipt == nil || r.Receipt.Conversation != "default" {
		t.Errorf("reply = %+v", r)
	}
}

func TestSendSameIDNotSentTwice(t *testing.T) {
	f := newFixture(t, true)
	in := `{"id":"d-1","text":"hello","conversation":"c"}`
	if _, err := f.send("plain", in); err != nil {
		t.Fatal(err)
	}
	r, err := f.send("plain", in)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Existing || r.State != queue.Delivered || r.Receipt == nil || r.Attempts != 1 {
		t.Errorf("resend reply = %+v", r)
	}
	if n := len(f.sent()); n != 1 {
		t.Errorf("adapter ran %d times, want 1", n)
	}

	// Other content under the same ID is refused, and the saved delivery is unchanged.
	for _, other := range []string{`{"id":"d-1","text":"hello!","conversation":"c"}`, `{"id":"d-1","text":"hello"}`,
		`{"id":"d-1","text":"hello","conversation":"c","reply_to":"m"}`} {
		_, err = f.send("plain", other)
		if !errors.Is(err, queue.ErrConflict) ||
			err.Error() != "delivery d-1 was already saved with other content; send new content with a new delivery ID" {
			t.Errorf("send(%s) error = %v", other, err)
		}
	}
	// The same content to another channel is other content too.
	if _, err = f.send("chat", in); !errors.Is(err, queue.ErrConflict) {
		t.Errorf("same ID on another channel: %v", err)
	}
	d, err := f.opts.Get(context.Background(), f.Open(), "d-1")
	if err != nil || d.Text == nil || *d.Text != "hello" || d.State != queue.Delivered {
		t.Fatalf("saved delivery = %+v, %v", d, err)
	}
	if n := len(f.sent()); n != 1 {
		t.Errorf("adapter ran %d times, want 1", n)
	}
}

func TestSendFailures(t *testing.T) {
	f := newFixture(t, true)
	tests := []struct {
		channel, input string
		state          queue.State
		reason         string
	}{
		// An idempotent channel: a standalone send fails, for the user to retry.
		{"chat", `{"id":"a","text":"fail"}`, queue.Failed,
			"channel chat: channel.chat.send exited with status 1; see logs/channel.chat.send.log; retry it with bf queue a --retry"},
		// A default channel: it may have been sent.
		{"plain", `{"id":"b","text":"fail"}`, queue.Uncertain,
			"channel plain: channel.plain.send exited with status 1; see logs/channel.plain.send.log; it may have been sent; inspect before retrying"},
		// A command that never started sent nothing: it fails like an idempotent one.
		{"gone", `{"id":"c","text":"x"}`, queue.Failed,
			"channel gone: no-such-program-on-path is not on PATH; install it or correct the command of channel.gone.send; retry it with bf queue c --retry"},
	}
	for _, tt := range tests {
		r, err := f.send(tt.channel, tt.input)
		var nd *notDeliveredError
		if !errors.As(err, &nd) || nd.State != tt.state || nd.Reason != tt.reason {
			t.Errorf("%s: error = %v", tt.channel, err)
			continue
		}
		if r == nil || r.State != tt.state || r.Error != tt.reason || r.Receipt != nil || r.Attempts != 1 {
			t.Errorf("%s: reply = %+v", tt.channel, r)
		}
		if want := "delivery " + r.ID + " is " + string(tt.state) + ": " + tt.reason; err.Error() != want {
			t.Errorf("%s: error text %q, want %q", tt.channel, err.Error(), want)
		}
		if strings.Contains(err.Error(), "provider said no") {
			t.Errorf("%s: the error quotes the adapter's output", tt.channel)
		}
	}
	// A failed or uncertain delivery sent again is returned as saved, not attempted.
	before := len(f.sent())
	r, err := f.send("plain", `{"id":"b","text":"fail"}`)
	if r == nil || !r.Existing || r.State != queue.Uncertain || err == nil || len(f.sent()) != before {
		t.Errorf("resend of an uncertain delivery: %+v, %v", r, err)
	}
}

func TestSendInterrupted(t *testing.T) {
	for _, tt := range []struct {
		channel string
		state   queue.State
		reason  string
	}{
		{"plain", queue.Uncertain, "interrupted send; inspect before retrying"},
		{"chat", queue.Failed, "interrupted send; retry it with bf queue h --retry"},
	} {
		t.Run(tt.channel, func(t *testing.T) {
			f := newFixture(t, true)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				f.waitFile("hanging")
				cancel()
			}()
			r, err := f.opts.Send(ctx, f.Open(), tt.channel, []byte(`{"id":"h","text":"hang"}`))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if r == nil || r.State != tt.state || r.Error != tt.reason {
				t.Fatalf("reply = %+v", r)
			}
			// Recorded before returning: nothing is left sending.
			if got := f.states()["h"]; got != tt.state {
				t.Errorf("queue holds %s", got)
			}
		})
	}
}

func TestSendCancelledBeforeStart(t *testing.T) {
	f := newFixture(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := f.opts.Send(ctx, f.Open(), "plain", []byte(`{"id":"n","text":"x"}`))
	if !errors.Is(err, context.Canceled) || r == nil || r.State != queue.Failed {
		t.Fatalf("reply %+v, err %v", r, err)
	}
	if f.sent() != nil {
		t.Errorf("the adapter ran")
	}
}

func TestSendNeverAttemptedIsAttempted(t *testing.T) {
	f := newFixture(t, true)
	// A send killed after saving its delivery leaves it pending without an attempt.
	q := f.openQueue()
	if _, _, err := q.AdmitDelivery(queue.NewDelivery{ID: "p", Channel: "plain", Text: "saved",
		Send: queue.Send{Command: []string{"channels/adapter", "send"}}}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	r, err := f.send("plain", `{"id":"p","text":"saved"}`)
	if err != nil || r.State != queue.Delivered || !r.Existing {
		t.Fatalf("reply %+v, err %v", r, err)
	}
	if n := len(f.sent()); n != 1 {
		t.Errorf("adapter ran %d times", n)
	}
}

func TestSendRefusals(t *testing.T) {
	f := newFixture(t, false)
	_, err := f.send("chat", `{"text":"x"}`)
	if !errors.Is(err, collect.ErrUntrusted) {
		t.Errorf("untrusted: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(f.stateDir(), queue.FileName)); !os.IsNotExist(err) {
		t.Errorf("an untrusted send created the queue: %v", err)
	}
	for _, tt := range []struct{ channel, input, err string }{
		{"nope", `{"text":"x"}`, "invalid input: channel: no channel of this brain is called nope; its bf.yaml declares chat, gone, mute and plain"},
		{"Bad Name", `{"text":"x"}`, "invalid input: channel: no channel of this brain is called Bad Name; its bf.yaml declares chat, gone, mute and plain"},
		{"mute", `{"text":"x"}`, "invalid input: channel: channel mute declares no send; add send: to it in bf.yaml"},
		{"chat", `{"text":"x","id":"a\u0007b"}`, "invalid input: stdin: id: holds a control or format character"},
		{"chat", `{"text":"x","conversation":"` + strings.Repeat("c", 4097) + `"}`, "invalid input: stdin: conversation: holds more than 4096 characters"},
	} {
		_, err := f.send(tt.channel, tt.input)
		if err == nil || err.Error() != tt.err || !reply.IsInput(err) {
			t.Errorf("send(%s, %.40s) = %v, want %q", tt.channel, tt.input, err, tt.err)
		}
	}
	if f.sent() != nil {
		t.Errorf("the adapter ran")
	}
}

// TestSendFullQueue shrinks the queue's limit of unfinished obligations: an admission
// over it is refused with the queue's sentence and nothing admitted before is lost.
func TestSendFullQueue(t *testing.T) {
	f := newFixture(t, true)
	f.opts.Queue = queue.Options{MaxObligations: 2}
	for _, id := range []string{"u1", "u2"} {
		if _, err := f.send("plain", `{"id":"`+id+`","text":"fail `+id+`"}`); err == nil {
			t.Fatalf("%s: expected an uncertain delivery", id)
		}
	}
	_, err := f.send("plain", `{"id":"u3","text":"three"}`)
	if !errors.Is(err, queue.ErrFull) ||
		err.Error() != "assistant queue is full; finish, retry or cancel unfinished work before accepting more" {
		t.Fatalf("err = %v", err)
	}
	if diff := cmp.Diff(map[string]queue.State{"u1": queue.Uncertain, "u2": queue.Uncertain}, f.states()); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
	for _, id := range []string{"u1", "u2"} {
		d, err := f.opts.Get(context.Background(), f.Open(), id)
		if err != nil || d.Text == nil || *d.Text != "fail "+id {
			t.Errorf("%s: %+v, %v", id, d, err)
		}
	}
	if n := len(f.sent()); n != 2 {
		t.Errorf("adapter ran %d times", n)
	}
	// Resolving work frees room.
	if _, err := f.opts.Cancel(context.Background(), f.Open(), "u1"); err != nil {
		t.Fatal(err)
	}
	if r, err := f.send("plain", `{"id":"u3","text":"three"}`); err != nil || r.State != queue.Delivered {
		t.Fatalf("after cancelling: %+v, %v", r, err)
	}
}

// openQueue opens the fixture's queue directly, as another bf process would.
func (f *fixture) openQueue() *queue.Queue {
	f.t.Helper()
	dir, err := f.Env.BrainStateDir(f.Open().ID)
	if err != nil {
		f.t.Fatal(err)
	}
	bind, err := binding(f.Open())
	if err != nil {
		f.t.Fatal(err)
	}
	q, err := queue.Open(dir, bind, f.opts.Queue)
	if err != nil {
		f.t.Fatal(err)
	}
	return q
}
