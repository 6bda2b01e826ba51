package channel

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
)

// fakeClock ends every backoff at once, recording it, and hands each run's connection
// timer to the test, which decides whether it fires.
type fakeClock struct {
	mu       sync.Mutex
	waits    []time.Duration
	connects chan chan time.Time
}

func newClock() *fakeClock { return &fakeClock{connects: make(chan chan time.Time, 100)} }

func (c *fakeClock) Now() time.Time { return t0 }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if d == connectedAfter {
		c.connects <- ch
		return ch
	}
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	ch <- t0
	return ch
}

func (c *fakeClock) backoffs() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// run is one supervised stream under test.
type run struct {
	e      *Endpoint
	clock  *fakeClock
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	states  []StreamState
	commits []string // "ID CURSOR"
	refuse  map[string]int
	stopAt  int // cancel once this many runs started
	changed chan struct{}
}

func newRun(t *testing.T, e *Endpoint) *run {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &run{e: e, clock: newClock(), ctx: ctx, cancel: cancel, refuse: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (r *run) options() StreamOptions {
	return StreamOptions{
		Since: t0, Clock: r.clock,
		Commit: func(_ context.Context, m Message, cursor string) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.commits = append(r.commits, m.ID+" "+cursor)
			if r.refuse[m.ID] > 0 {
				r.refuse[m.ID]--
				return errors.New("assistant queue is full; finish, retry or cancel unfinished work before accepting more")
			}
			return nil
		},
		State: func(s StreamState) {
			r.mu.Lock()
			r.states = append(r.states, s)
			r.mu.Unlock()
			if r.stopAt > 0 && s.Starts >= r.stopAt {
				r.cancel()
			}
			select {
			case r.changed <- struct{}{}:
			default: // a wake-up is already pending
			}
		},
	}
}

func (r *run) stream(t *testing.T, opts StreamOptions) {
	t.Helper()
	if err := r.e.Stream(r.ctx, opts); err != nil {
		t.Fatalf("Stream: %v", err)
	}
}

// errors returns the distinct errors the stream showed while waiting to restart.
func (r *run) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.states {
		if s.Backoff > 0 {
			out = append(out, errText(s.Err))
		}
	}
	return out
}

// waitState waits until the stream reports a state that ok accepts.
func (r *run) waitState(t *testing.T, ok func(StreamState) bool) StreamState {
	t.Helper()
	for {
		r.mu.Lock()
		for _, s := range r.states {
			if ok(s) {
				r.mu.Unlock()
				return s
			}
		}
		r.mu.Unlock()
		select {
		case <-r.changed:
		case <-time.After(20 * time.Second):
			t.Fatal("the stream never reached the expected state")
		}
	}
}

// readFrames returns the control frames a fake adapter saved.
func readFrames(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "frames.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// A stream adapter that crashes with a message half printed is started again after 1 s;
// it resumes from the last acknowledged cursor and delivers the lost message anew. An
// empty cursor on a message keeps the stream's position.
func TestStreamRestartAfterCrash(t *testing.T) {
	e := endpoint(t, config.Channel{Stream: capability("stream", "channels/stream", "{{start}}")})
	brainfix.Script(t, e.Root, "channels/stream", `
n=$(cat runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs
echo "start $1" >> frames.log
read -r line; echo "$line" >> frames.log
m() { printf '{"id":"%s","sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:00:0%sZ","text":"hello","cursor":"%s"}\n' "$1" "$2" "$3"; }
case $n in
1) m m1 1 c1; read -r line; echo "$line" >> frames.log
   printf '{"id":"m2","sender":"owner-id"'
   echo "connection reset" >&2
   exit 3;;
*) m m2 2 c2; read -r line; echo "$line" >> frames.log
   m m3 3 ""; read -r line; echo "$line" >> frames.log
   touch done; exec sleep 30;;
esac`)
	r := newRun(t, e)
	opts := r.options()
	opts.Cursor = "c0"
	go func() {
		waitFile(t, e.Root, "done")
		r.cancel()
	}()
	r.stream(t, opts)

	wantFrames := []string{
		"start 2026-10-16T09:00:00.000000Z",
		`{"type":"resume","since":"2026-10-16T09:00:00.000000Z","cursor":"c0"}`,
		`{"type":"ack","id":"m1","cursor":"c1"}`,
		"start 2026-10-16T09:00:00.000000Z",
		`{"type":"resume","since":"2026-10-16T09:00:00.000000Z","cursor":"c1"}`,
		`{"type":"ack","id":"m2","cursor":"c2"}`,
		`{"type":"ack","id":"m3","cursor":"c2"}`,
	}
	if diff := cmp.Diff(wantFrames, readFrames(t, e.Root)); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m1 c1", "m2 c2", "m3 c2"}, r.commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, r.clock.backoffs()); diff != "" {
		t.Errorf("backoffs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"channel chat: channel.chat.stream exited with status 3; see logs/channel.chat.stream.log"}, r.errors()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	wantLog := "connection reset\n== TIME ended; adapter exited with status 3 after N.Ns ==\n== TIME stopped after N.Ns ==\n"
	if got := readLog(t, e.Root, "channel.chat.stream"); got != wantLog {
		t.Errorf("log = %q, want %q", got, wantLog)
	}
	last := r.states[len(r.states)-1]
	if last.Running || last.Backoff != 0 || last.Starts != 2 {
		t.Errorf("final state = %+v", last)
	}
}

// Runs that never connect wait 1, 2, 4… seconds before starting again, at most 60.
func TestStreamBackoff(t *testing.T) {
	e := endpoint(t, config.Channel{Stream: capability("stream", "channels/stream")})
	brainfix.Script(t, e.Root, "channels/stream", `read -r line; exit 1`)
	r := newRun(t, e)
	r.stopAt = 9
	r.stream(t, r.options())
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i := range want {
		want[i] *= time.Second
	}
	if diff := cmp.Diff(want, r.clock.backoffs()); diff != "" {
		t.Errorf("backoffs (-want +got):\n%s", diff)
	}
	for _, err := range r.errors() {
		if err != "channel chat: channel.chat.stream exited with status 1; see logs/channel.chat.stream.log" {
			t.Errorf("error = %q", err)
		}
	}
}

// A run still up connectedAfter its resume frame counts as connected: the previous error
// clears and the next failure waits 1 s again.
func TestStreamConnected(t *testing.T) {
	e := endpoint(t, config.Channel{Stream: capability("stream", "channels/stream")})
	brainfix.Script(t, e.Root, "channels/stream", `
n=$(cat runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs
read -r line
case $n in
1|2) echo "refused" >&2; exit 1;;
3) while [ ! -e go ]; do sleep 0.01; done; exit 4;;
*) exec sleep 30;;
esac`)
	r := newRun(t, e)
	r.stopAt = 4
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.stream(t, r.options())
	}()
	<-r.clock.connects // run 1: never fires
	<-r.clock.connects // run 2
	(<-r.clock.connects) <- t0
	got := r.waitState(t, func(s StreamState) bool { return s.Connected })
	want := StreamState{Running: true, Connected: true, Starts: 3}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return errText(a) == errText(b) })); diff != "" {
		t.Errorf("connected state (-want +got):\n%s", diff)
	}
	brainfix.WriteFile(t, e.Root, "go", nil, 0o644)
	<-done
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, time.Second}, r.clock.backoffs()); diff != "" {
		t.Errorf("backoffs (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		"channel chat: channel.chat.stream exited with status 1; see logs/channel.chat.stream.log",
		"channel chat: channel.chat.stream exited with status 1; see logs/channel.chat.stream.log",
		"channel chat: channel.chat.stream exited with status 4; see logs/channel.chat.stream.log",
	}
	if diff := cmp.Diff(wantErrs, r.errors()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// Frames bf cannot accept stop the adapter with the reason as its log entry's outcome.
func TestStreamInvalidOutput(t *testing.T) {
	tests := []struct {
		name     string
		command  []string
		body     string
		maxBytes int64
		err      string
		log      string
		// logRe, when set, is what the log must match instead.
		logRe string
	}{
		{name: "invalid envelope",
			body: `read -r line; printf '{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z"}\n'; exec sleep 30`,
			err:  "channel chat: invalid stream message envelope: text: required",
			log:  "== TIME invalid stream message envelope: text: required after N.Ns ==\n"},
		{name: "not JSON",
			body: `read -r line; echo 'message: What needs my attention?'; exec sleep 30`,
			err:  "channel chat: invalid stream message envelope: invalid JSON document",
			log:  "== TIME invalid stream message envelope: invalid JSON document after N.Ns ==\n"},
		{name: "blank line",
			body: `read -r line; echo; exec sleep 30`,
			err:  "channel chat: invalid stream message envelope: invalid JSON document",
			log:  "== TIME invalid stream message envelope: invalid JSON document after N.Ns ==\n"},
		{name: "frame over max_bytes", maxBytes: 1024,
			body: `read -r line; head -c 1025 /dev/zero | tr '\0' x; echo; exec sleep 30`,
			err:  "channel chat: stream frame exceeds max_bytes (1024 bytes); see logs/channel.chat.stream.log",
			log:  "== TIME frame exceeds max_bytes (1024 bytes) after N.Ns ==\n"},
		{name: "exit 0",
			body: `read -r line; echo "subscription deleted" >&2; exit 0`,
			err:  "channel chat: stream adapter exited with status 0; bf expects it to keep running; see logs/channel.chat.stream.log",
			log:  "subscription deleted\n== TIME ended; adapter exited with status 0 after N.Ns ==\n"},
		{name: "killed",
			body: `read -r line; kill -9 $$`,
			err:  "channel chat: channel.chat.stream was killed by SIGKILL; see logs/channel.chat.stream.log",
			log:  "== TIME ended; adapter was killed by SIGKILL after N.Ns ==\n"},
		{name: "closes its stdin",
			body: `read -r line; exec <&-; printf '{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}\n'; exec sleep 30`,
			err:  "channel chat: stream adapter stopped reading its control frames; see logs/channel.chat.stream.log",
			log:  "== TIME adapter closed its stdin after N.Ns ==\n"},
		// Its stdin closes, mostly before bf writes the resume frame, and it ends a little
		// later: how it ended is reported, not the broken pipe. Its log entry says whether
		// bf met the closed pipe first.
		{name: "closes its stdin and exits",
			body:  `exec <&-; sleep 0.3; exit 3`,
			err:   "channel chat: channel.chat.stream exited with status 3; see logs/channel.chat.stream.log",
			logRe: `^== TIME (ended|adapter closed its stdin); adapter exited with status 3 after N\.Ns ==\n`},
		{name: "not on PATH", command: []string{"bf-test-no-such-adapter"},
			err: "channel chat: bf-test-no-such-adapter is not on PATH; install it or correct the command of channel.chat.stream",
			log: "== TIME start failed ==\nbf-test-no-such-adapter is not on PATH; install it or correct the command of channel.chat.stream\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := capability("stream", "channels/stream")
			if tc.command != nil {
				c.Command = tc.command
			}
			if tc.maxBytes > 0 {
				c.MaxBytes = tc.maxBytes
			}
			e := endpoint(t, config.Channel{Stream: c})
			if tc.body != "" {
				brainfix.Script(t, e.Root, "channels/stream", tc.body)
			}
			r := newRun(t, e)
			r.stopAt = 2
			r.stream(t, r.options())
			if diff := cmp.Diff([]string{tc.err}, r.errors()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if got := readLog(t, e.Root, "channel.chat.stream"); tc.logRe != "" && !regexp.MustCompile(tc.logRe).MatchString(got) ||
				tc.logRe == "" && !strings.HasPrefix(got, tc.log) {
				t.Errorf("log = %q, want it to start with %q", got, tc.log+tc.logRe)
			}
			if len(r.commits) != 0 && tc.name != "closes its stdin" {
				t.Errorf("commits = %v", r.commits)
			}
		})
	}
}

// An adapter that never reads its acknowledgements fills the pipe; after the stream's
// timeout bf stops it instead of buffering more.
func TestStreamAckPipeBlocked(t *testing.T) {
	c := capability("stream", "channels/stream")
	c.Timeout = 1
	e := endpoint(t, config.Channel{Stream: c})
	brainfix.Script(t, e.Root, "channels/stream", `read -r line
i=0
while [ $i -lt 5000 ]; do
  printf '{"id":"m%d","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}\n' $i
  i=$((i+1))
done
exec sleep 30`)
	r := newRun(t, e)
	r.stopAt = 2
	r.stream(t, r.options())
	want := "channel chat: stream adapter did not read its acknowledgement within 1s; see logs/channel.chat.stream.log"
	if diff := cmp.Diff([]string{want}, r.errors()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if got := readLog(t, e.Root, "channel.chat.stream"); !strings.HasPrefix(got, "== TIME acknowledgement pipe blocked for 1s after N.Ns ==\n") {
		t.Errorf("log = %q", got)
	}
}

// The example inbox adapter under supervision: resume, one acknowledgement per message,
// its cursor carried into the next resume frame, a refused admission left unacknowledged
// and delivered again by the restarted adapter, and an echo of the brain's own send
// acknowledged without being admitted.
func TestStreamInbox(t *testing.T) {
	e := endpoint(t, config.Channel{Stream: capability("stream", "channels/tee-inbox")})
	inboxAdapter(t, e.Root)
	// A wrapper saves each control frame bf writes before passing it on, so the test
	// sees every frame the adapter acted on.
	brainfix.Script(t, e.Root, "channels/tee-inbox", `while IFS= read -r l; do printf '%s\n' "$l" >> frames.log; printf '%s\n' "$l"; done |
channels/inbox stream inbox --poll 0.05`)
	files := map[string]string{
		"old.json":    `{"sender":"owner-id","time":"2026-10-16T08:00:00Z","text":"before the stream started"}`,
		"m1.json":     `{"sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:00:00Z","text":"one"}`,
		"m2.json":     `{"sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:01:00Z","text":"two"}`,
		"sent-1.json": `{"sender":"bot","conversation":"thread-7","time":"2026-10-16T09:01:30Z","text":"our answer","own":true}`,
		"m3.json":     `{"sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:02:00Z","text":"three"}`,
	}
	for name, body := range files {
		brainfix.WriteFile(t, e.Root, "inbox/"+name, []byte(body), 0o644)
	}
	r := newRun(t, e)
	r.refuse["m2"] = 1
	opts := r.options()
	opts.Since = t0.Add(-time.Minute)
	opts.Receipts = &receiptSet{ids: map[string]map[string]bool{"chat": {"sent-1": true}}}
	go func() {
		for {
			if b, _ := os.ReadFile(filepath.Join(e.Root, "frames.log")); strings.Contains(string(b), `"id":"m3"`) {
				r.cancel()
				return
			}
			select {
			case <-r.ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	r.stream(t, opts)

	cur := func(at, id string) string { return "2026-10-16T" + at + ".000000Z " + id }
	wantFrames := []string{
		`{"type":"resume","since":"2026-10-16T08:59:00.000000Z","cursor":""}`,
		`{"type":"ack","id":"m1","cursor":"` + cur("09:00:00", "m1") + `"}`,
		`{"type":"resume","since":"2026-10-16T08:59:00.000000Z","cursor":"` + cur("09:00:00", "m1") + `"}`,
		`{"type":"ack","id":"m2","cursor":"` + cur("09:01:00", "m2") + `"}`,
		`{"type":"ack","id":"sent-1","cursor":"` + cur("09:01:30", "sent-1") + `"}`,
		`{"type":"ack","id":"m3","cursor":"` + cur("09:02:00", "m3") + `"}`,
	}
	if diff := cmp.Diff(wantFrames, readFrames(t, e.Root)); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	wantCommits := []string{
		"m1 " + cur("09:00:00", "m1"),
		"m2 " + cur("09:01:00", "m2"), // refused: the queue is full
		"m2 " + cur("09:01:00", "m2"), // the same ID again after the restart
		"m3 " + cur("09:02:00", "m3"),
	}
	if diff := cmp.Diff(wantCommits, r.commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	wantErr := "channel chat: assistant queue is full; finish, retry or cancel unfinished work before accepting more"
	if diff := cmp.Diff([]string{wantErr}, r.errors()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// Admitting m2 cleared the refusal.
	if last := r.states[len(r.states)-1]; last.Err != nil {
		t.Errorf("final error = %v, want none", last.Err)
	}
	wantLog := "== TIME message not admitted after N.Ns ==\n== TIME stopped after N.Ns ==\n"
	if got := readLog(t, e.Root, "channel.chat.stream"); got != wantLog {
		t.Errorf("log = %q, want %q", got, wantLog)
	}
}

func TestStreamOneConsumer(t *testing.T) {
	e := endpoint(t, config.Channel{Stream: capability("stream", "channels/stream")})
	brainfix.Script(t, e.Root, "channels/stream", `exec sleep 30`)
	lockDir := t.TempDir()
	r := newRun(t, e)
	opts := r.options()
	opts.LockDir = lockDir
	done := make(chan error)
	go func() { done <- e.Stream(r.ctx, opts) }()
	r.waitState(t, func(s StreamState) bool { return s.Running })
	err := e.Stream(context.Background(), opts)
	if !errors.Is(err, errStreamBusy) || err.Error() != "channel chat: its stream already runs for this brain; stop the other consumer first" {
		t.Errorf("second consumer: %v", err)
	}
	r.cancel()
	if err := <-done; err != nil {
		t.Errorf("first consumer: %v", err)
	}
}

func TestStreamArguments(t *testing.T) {
	tests := []struct {
		name string
		ch   config.Channel
		opts StreamOptions
		err  string
	}{
		{"no stream", config.Channel{Send: capability("send", "x")}, StreamOptions{Commit: func(context.Context, Message, string) error { return nil }},
			"channel chat: declares no stream; add stream: to it in bf.yaml"},
		{"no commit", config.Channel{Stream: capability("stream", "x")}, StreamOptions{}, "channel chat: a stream needs a Commit function to admit its messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := endpoint(t, tc.ch).Stream(context.Background(), tc.opts)
			if errText(err) != tc.err {
				t.Errorf("error = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestFrameReader(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		max    int
		frames []string
		err    error
	}{
		{"lines", "a\nbb\n\nccc\n", 3, []string{"a", "bb", "", "ccc"}, nil},
		{"CRLF kept for the JSON reader", "a\r\n", 3, []string{"a\r"}, nil},
		{"unterminated tail dropped", "a\nbb", 3, []string{"a"}, nil},
		{"exactly max", "abc\n", 3, []string{"abc"}, nil},
		{"over max", "a\nabcd\n", 3, []string{"a"}, errFrameTooLong},
		{"over max without end", "abcd", 3, nil, errFrameTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A tiny buffer makes long lines arrive in several pieces.
			f := &frameReader{r: bufio.NewReaderSize(strings.NewReader(tc.in), 16), max: tc.max}
			var got []string
			var err error
			for {
				var line []byte
				line, err = f.next()
				if err != nil {
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tc.frames, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			if want := tc.err; want == nil && !errors.Is(err, io.EOF) || want != nil && !errors.Is(err, want) {
				t.Errorf("end = %v, want %v", err, tc.err)
			}
		})
	}
}
