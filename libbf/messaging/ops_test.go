package messaging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

func TestListGetRetryCancel(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()

	// A brain without a queue lists nothing and gets none.
	l, err := f.opts.List(ctx, f.Open())
	if err != nil || len(l.Items) != 0 {
		t.Fatalf("empty list: %+v, %v", l, err)
	}
	if _, err := os.Lstat(filepath.Join(f.stateDir(), queue.FileName)); !os.IsNotExist(err) {
		t.Errorf("listing created the queue")
	}
	if _, err := f.opts.Retry(ctx, f.Open(), "x"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("retry without a queue: %v", err)
	}

	f.send("chat", `{"id":"a","text":"fail secret body","conversation":"c"}`)
	f.send("plain", `{"id":"b","text":"fail"}`)
	f.send("plain", `{"id":"c","text":"fine"}`)

	l, err = f.opts.List(ctx, f.Open())
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(l)
	if bytes.Contains(out, []byte("secret body")) {
		t.Errorf("the listing holds a body: %s", out)
	}
	var ids []string
	for _, it := range l.Items {
		ids = append(ids, it.ID+":"+string(it.State))
		if !strings.HasSuffix(it.Created, "+02:00") {
			t.Errorf("created %q is not local", it.Created)
		}
	}
	if diff := cmp.Diff([]string{"a:failed", "b:uncertain", "c:delivered"}, ids); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}

	d, err := f.opts.Get(ctx, f.Open(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if d.Text == nil || *d.Text != "fail secret body" || d.Notice != reply.Notice || len(d.History) != 1 ||
		d.History[0].Outcome != "failed" || d.Send == nil || !d.Send.Idempotent {
		t.Errorf("detail = %+v", d)
	}
	if _, err := f.opts.Get(ctx, f.Open(), "zz"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("get unknown: %v", err)
	}
	if _, err := f.opts.Get(ctx, f.Open(), ""); !reply.IsInput(err) {
		t.Errorf("get empty ID: %v", err)
	}

	// A delivery retry attempts it at once: the adapter now accepts it.
	f.WriteMode("channels/adapter", "#!/bin/sh\n"+strings.ReplaceAll(adapter, "*fail*)", "*never*)"), 0o755)
	res, err := f.opts.Retry(ctx, f.Open(), "a")
	if err != nil {
		t.Fatal(err)
	}
	r := res.Delivery
	if r == nil || res.Job != nil || r.State != queue.Delivered || r.Attempts != 2 || r.Receipt == nil || r.Receipt.ID != "r-a" {
		t.Errorf("retry reply = %#v", res)
	}
	// Retrying delivered work is refused.
	if _, err := f.opts.Retry(ctx, f.Open(), "a"); !errors.Is(err, queue.ErrState) {
		t.Errorf("retry delivered: %v", err)
	}

	// Cancelling keeps the identity: the same ID cannot be sent again.
	it, err := f.opts.Cancel(ctx, f.Open(), "b")
	if err != nil || it.State != queue.Cancelled {
		t.Fatalf("cancel = %+v, %v", it, err)
	}
	r2, err := f.send("plain", `{"id":"b","text":"fail"}`)
	if r2 == nil || r2.State != queue.Cancelled || err == nil ||
		err.Error() != "delivery b was cancelled; send it again under a new delivery ID" {
		t.Errorf("resend cancelled: %+v, %v", r2, err)
	}
	if diff := cmp.Diff(map[string]queue.State{"a": queue.Delivered, "b": queue.Cancelled, "c": queue.Delivered}, f.states()); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
}

func TestRetryChannelChanged(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.send("chat", `{"id":"a","text":"fail"}`)
	f.WriteMode("bf.yaml", strings.Replace(brainConfig, "command: [channels/adapter, send]\n      idempotent: true",
		"command: [channels/adapter, send, other]\n      idempotent: true", 1), 0o644)
	before := len(f.sent())
	res, err := f.opts.Retry(ctx, f.Open(), "a")
	var nd *notDeliveredError
	if !errors.As(err, &nd) || nd.State != queue.Uncertain ||
		nd.Reason != "channel configuration changed; restore it, then retry or cancel this delivery with bf queue" {
		t.Fatalf("err = %v", err)
	}
	if r := res.Delivery; r == nil || r.State != queue.Uncertain {
		t.Errorf("reply = %#v", res)
	}
	if len(f.sent()) != before {
		t.Errorf("a changed channel was sent to")
	}
}

func TestRetryUntrusted(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.send("chat", `{"id":"a","text":"fail"}`)
	if err := os.Remove(filepath.Join(f.stateDir(), "trust.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.opts.Retry(ctx, f.Open(), "a"); !errors.Is(err, collect.ErrUntrusted) {
		t.Errorf("retry untrusted: %v", err)
	}
	if got := f.states()["a"]; got != queue.Failed {
		t.Errorf("state %s", got)
	}
	// Cancelling runs nothing and needs no trust.
	if _, err := f.opts.Cancel(ctx, f.Open(), "a"); err != nil {
		t.Errorf("cancel untrusted: %v", err)
	}
}

func TestRead(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.WriteMode("batch.json", `{"messages":[
		{"id":"m2","sender":"me","conversation":"c","time":"2026-10-16T09:30:00Z","text":"second"},
		{"id":"m1","sender":"me","conversation":"c","time":"2026-10-16T09:00:00+02:00","text":"first"},
		{"id":"r-d1","sender":"bot","conversation":"c","time":"2026-10-16T09:10:00Z","text":"echo"}]}`, 0o644)
	// Without a queue, nothing is an echo and nothing is created.
	r, err := f.opts.Read(ctx, f.Open(), "chat", "2026-10-16", "2026-10-17")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 3 || r.Echoes != 0 || r.Since != "2026-10-16T00:00:00+02:00" || r.Until != "2026-10-17T00:00:00+02:00" || r.Notice != reply.Notice {
		t.Errorf("read = %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(f.stateDir(), queue.FileName)); !os.IsNotExist(err) {
		t.Errorf("a read created the queue")
	}
	// A message whose ID is a receipt of the channel's send is an echo.
	if _, err := f.send("chat", `{"id":"d1","text":"x","conversation":"c"}`); err != nil {
		t.Fatal(err)
	}
	r, err = f.opts.Read(ctx, f.Open(), "chat", "2026-10-16", "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r.Messages)
	want := `[{"conversation":"c","id":"m1","sender":"me","text":"first","time":"2026-10-16T07:00:00.000000Z"},` +
		`{"conversation":"c","id":"m2","sender":"me","text":"second","time":"2026-10-16T09:30:00.000000Z"}]`
	if string(got) != want || r.Echoes != 1 || r.Until != "2026-10-16T12:00:00+02:00" {
		t.Errorf("read = %s, echoes %d, until %s", got, r.Echoes, r.Until)
	}
	// A manual read admits nothing.
	if diff := cmp.Diff(map[string]queue.State{"d1": queue.Delivered}, f.states()); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}

	for _, tt := range []struct{ channel, since, until, err string }{
		{"chat", "", "", "invalid input: since: required; pass the window's start, such as --since 24h or an ISO 8601 time"},
		{"chat", "soon", "", "invalid input: since: expected now, today, yesterday, a window such as 12h, 7d or 2w, YYYY-MM-DD or an ISO 8601 time with a timezone"},
		{"chat", "2026-10-16", "later", "invalid input: until: expected now, today, yesterday, a window such as 12h, 7d or 2w, YYYY-MM-DD or an ISO 8601 time with a timezone"},
		{"chat", "2026-10-17", "2026-10-16", "invalid input: since: the window must start before it ends; pass an earlier --since or a later --until"},
		{"chat", "now", "now", "invalid input: since: the window must start before it ends; pass an earlier --since or a later --until"},
		{"plain", "1d", "", "invalid input: channel: channel plain declares no read; add read: to it in bf.yaml"},
	} {
		_, err := f.opts.Read(ctx, f.Open(), tt.channel, tt.since, tt.until)
		if err == nil || err.Error() != tt.err || !reply.IsInput(err) {
			t.Errorf("read %s %q %q = %v, want %q", tt.channel, tt.since, tt.until, err, tt.err)
		}
	}

	// Out-of-window messages fail the batch, naming the field, never the value.
	_, err = f.opts.Read(ctx, f.Open(), "chat", "2026-10-16T09:15:00Z", "2026-10-17")
	if err == nil || err.Error() != "channel chat: read must return a complete JSON messages batch: messages.1.time: outside the requested window" {
		t.Errorf("out of window: %v", err)
	}

	g := newFixture(t, false)
	if _, err := g.opts.Read(ctx, g.Open(), "chat", "1d", ""); !errors.Is(err, collect.ErrUntrusted) {
		t.Errorf("untrusted read: %v", err)
	}
}

// syncBuffer is a buffer a stream writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStream(t *testing.T) {
	f := newFixture(t, true)
	if _, err := f.send("chat", `{"id":"d1","text":"x","conversation":"c"}`); err != nil {
		t.Fatal(err)
	}
	f.WriteMode("stream.jsonl", `{"id":"m1","sender":"me","conversation":"c","time":"2026-10-16T09:00:00Z","text":"one","cursor":"p1"}
{"id":"r-d1","sender":"bot","conversation":"c","time":"2026-10-16T09:01:00Z","text":"echo"}
{"id":"m2","sender":"me","conversation":"c","time":"2026-10-16T09:02:00Z","text":"two"}
`, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- f.opts.Stream(ctx, f.Open(), "chat", &out, nil) }()
	// Each message is acknowledged once printed; the echo is acknowledged unseen.
	acks := filepath.Join(f.Root, "acks.log")
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(acks)
		if strings.Count(string(data), "\n") == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	want := `{"conversation":"c","cursor":"p1","id":"m1","sender":"me","text":"one","time":"2026-10-16T09:00:00.000000Z"}
{"conversation":"c","id":"m2","sender":"me","text":"two","time":"2026-10-16T09:02:00.000000Z"}
`
	if out.String() != want {
		t.Errorf("stream printed:\n%s\nwant:\n%s", out.String(), want)
	}
	data, _ := os.ReadFile(acks)
	wantAcks := `{"type":"ack","id":"m1","cursor":"p1"}
{"type":"ack","id":"r-d1","cursor":"p1"}
{"type":"ack","id":"m2","cursor":"p1"}
`
	if string(data) != wantAcks {
		t.Errorf("acks:\n%s", data)
	}
	resume, _ := os.ReadFile(filepath.Join(f.Root, "resume.json"))
	if !strings.Contains(string(resume), `"cursor":""`) {
		t.Errorf("resume frame %s", resume)
	}
	// Nothing was admitted.
	if diff := cmp.Diff(map[string]queue.State{"d1": queue.Delivered}, f.states()); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
}

func TestStreamReportsErrors(t *testing.T) {
	f := newFixture(t, true)
	f.WriteMode("stream.jsonl", "not json\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 8)
	done := make(chan error, 1)
	go func() {
		done <- f.opts.Stream(ctx, f.Open(), "chat", &syncBuffer{}, func(err error) { errs <- err })
	}()
	select {
	case err := <-errs:
		if err.Error() != "channel chat: invalid stream message envelope: invalid JSON document" {
			t.Errorf("reported %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("no error reported")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A device numbered anew (btrfs at boot) renames the brain's state folder: the next
// command adopts the folder with the same inode whose queue is bound to the brain, trust
// and all.
func TestAdoptRenumberedStateFolder(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	if _, err := f.send("plain", `{"id":"a","text":"fail"}`); err == nil {
		t.Fatal("expected an uncertain delivery")
	}
	dir := f.stateDir()
	b := f.Open()
	old := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%d-%d", b.ID.Dev+1, b.ID.Ino))
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	// Status only reads: it sees no queue and adopts nothing.
	if _, healthy, err := f.opts.Block(ctx, b); err != nil || !healthy {
		t.Errorf("Block before adoption: %v, %v", healthy, err)
	}
	if _, err := os.Lstat(old); err != nil {
		t.Fatalf("status moved the folder: %v", err)
	}
	if diff := cmp.Diff(map[string]queue.State{"a": queue.Uncertain}, f.states()); diff != "" {
		t.Errorf("queue after adoption (-want +got):\n%s", diff)
	}
	if _, err := os.Lstat(old); !os.IsNotExist(err) {
		t.Errorf("the old folder is still there: %v", err)
	}
	if trusted, err := f.Env.Trusted(f.Root); err != nil || !trusted {
		t.Errorf("trust did not follow the folder: %v, %v", trusted, err)
	}
}

// While a send runs, retry and cancel refuse; Ctrl-C during a delivery's retry records
// the attempt before returning.
func TestRetryWhileSendingAndInterrupted(t *testing.T) {
	f := newFixture(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.opts.Send(ctx, f.Open(), "plain", []byte(`{"id":"h","text":"hang"}`))
		done <- err
	}()
	f.waitFile("hanging")
	for name, op := range map[string]func() error{
		"retry":  func() error { _, err := f.opts.Retry(context.Background(), f.Open(), "h"); return err },
		"cancel": func() error { _, err := f.opts.Cancel(context.Background(), f.Open(), "h"); return err },
	} {
		err := op()
		if !errors.Is(err, queue.ErrInFlight) || err.Error() != "delivery is still being sent; retry or cancel it once its attempt ends" {
			t.Errorf("%s while sending: %v", name, err)
		}
	}
	if got := f.states()["h"]; got != queue.Sending {
		t.Errorf("bf queue shows %s while sending", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("send: %v", err)
	}
	os.Remove(filepath.Join(f.Root, "hanging"))

	// The uncertain delivery retried, and interrupted again.
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		f.waitFile("hanging")
		cancel()
	}()
	res, err := f.opts.Retry(ctx, f.Open(), "h")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("retry: %v", err)
	}
	if r := res.Delivery; r == nil || r.State != queue.Uncertain || r.Error != "interrupted send; inspect before retrying" {
		t.Errorf("retry reply = %#v", res)
	}
	if got := f.states()["h"]; got != queue.Uncertain {
		t.Errorf("queue holds %s", got)
	}
}
