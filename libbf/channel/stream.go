package channel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Settings of stream supervision.
const (
	// connectedAfter is how long an adapter must keep running after its resume frame to
	// count as connected: its earlier error clears and the backoff starts over.
	connectedAfter = 5 * time.Second
	// minBackoff and maxBackoff bound the wait before a failed adapter starts again; the
	// wait doubles after each run that never connected.
	minBackoff = time.Second
	maxBackoff = 60 * time.Second
	// closedGrace is how long an adapter whose stdin broke may take to be seen ending
	// before bf stops it. It is real time, not the supervisor's clock: it waits on the
	// operating system.
	closedGrace = time.Second
)

// errStreamBusy is a stream that another process already runs for this brain.
var errStreamBusy = errors.New("stream already running")

// Clock is the supervisor's time, so tests decide when waits end.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// StreamOptions configures Endpoint.Stream.
type StreamOptions struct {
	// Since is the stream's first start: the resume frame's since and {{start}}. It never
	// advances; zero means now.
	Since time.Time
	// Cursor is the cursor of the last admitted message, where the adapter resumes.
	Cursor string
	// Commit durably admits m, with cursor as the input's new position, before bf
	// acknowledges it. An error leaves m unacknowledged: the adapter is stopped and
	// started again after the backoff, to deliver it anew.
	Commit func(ctx context.Context, m Message, cursor string) error
	// Receipts, when set, drops the brain's own sends before Commit; they are
	// acknowledged without being admitted. Leave it nil when Commit drops them itself.
	Receipts Receipts
	// State, when set, is called with the stream's state after each change. Calls do not
	// overlap; it must return quickly.
	State func(StreamState)
	// LockDir, when set, is a private folder (the brain's state folder) where the stream
	// takes a lock, so one brain never runs two consumers of one channel.
	LockDir string
	// Clock defaults to the real time.
	Clock Clock
}

// StreamState is what bf status shows of a stream.
type StreamState struct {
	// Running says an adapter process runs now.
	Running bool
	// Connected says it has run for connectedAfter since its resume frame.
	Connected bool
	// Err is the stream's current error: the last transport failure until an adapter
	// connects, or a refused admission until a message is admitted again. nil when clear.
	Err error
	// Starts counts adapter starts, the first included.
	Starts int
	// Backoff is the wait before the next start while one is pending, else 0.
	Backoff time.Duration
}

// errKind tells apart the errors that clear differently.
type errKind int

const (
	transportErr errKind = iota + 1 // clears once an adapter connects
	admissionErr                    // clears once a message is admitted
)

// streamer supervises one channel's stream adapter.
type streamer struct {
	e      *Endpoint
	c      *config.Capability
	opts   StreamOptions
	clock  Clock
	since  time.Time
	cursor string

	mu    sync.Mutex
	state StreamState
	kind  errKind
}

// Stream keeps the channel's stream adapter running until ctx ends, then kills its
// process group and returns nil. Each run gets a resume frame on stdin, then prints one
// envelope per line; every valid message goes to Commit and, once committed, is
// acknowledged on stdin. An adapter that ends, prints an invalid frame, stops reading
// its acknowledgements or whose message cannot be admitted is stopped and started again
// after a backoff of 1 s doubling to 60 s, back to 1 s once a run has connected. Every run
// adds one entry to logs/channel.NAME.stream.log.
func (e *Endpoint) Stream(ctx context.Context, opts StreamOptions) error {
	c, err := e.capability(config.OpStream)
	if err != nil {
		return err
	}
	if opts.Commit == nil {
		return fmt.Errorf("channel %s: a stream needs a Commit function to admit its messages", e.Name)
	}
	if opts.LockDir != "" {
		l, err := lock.AcquireOwned(ctx, opts.LockDir, "channel-"+e.Name+"-stream.lock")
		if errors.Is(err, lock.ErrBusy) {
			return &kindError{kind: errStreamBusy,
				msg: fmt.Sprintf("channel %s: its stream already runs for this brain; stop the other consumer first", e.Name)}
		}
		if err != nil {
			return fmt.Errorf("channel %s: cannot take the stream lock in the state folder: %w", e.Name, err)
		}
		defer l.Release()
	}
	s := &streamer{e: e, c: c, opts: opts, clock: opts.Clock, cursor: opts.Cursor}
	if s.clock == nil {
		s.clock = realClock{}
	}
	s.since = opts.Since
	if s.since.IsZero() {
		s.since = s.clock.Now()
	}
	s.since = s.since.UTC().Truncate(time.Microsecond)
	return s.run(ctx)
}

func (s *streamer) run(ctx context.Context) error {
	backoff := minBackoff
	for {
		connected, err := s.session(ctx)
		if ctx.Err() != nil {
			s.update(func(st *StreamState) { st.Running, st.Connected, st.Backoff = false, false, 0 })
			return nil
		}
		if connected {
			backoff = minBackoff
		}
		wait := backoff
		s.update(func(st *StreamState) {
			st.Running, st.Connected, st.Backoff = false, false, wait
			if err != nil {
				st.Err = err.err
				s.kind = err.kind
			}
		})
		select {
		case <-ctx.Done():
			s.update(func(st *StreamState) { st.Backoff = 0 })
			return nil
		case <-s.clock.After(wait):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// update changes the state under the lock and reports it.
func (s *streamer) update(change func(*StreamState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(&s.state)
	if s.opts.State != nil {
		s.opts.State(s.state)
	}
}

// clearAdmission clears a refused admission once a message is admitted again.
func (s *streamer) clearAdmission() {
	s.mu.Lock()
	refused := s.kind == admissionErr
	s.mu.Unlock()
	if refused {
		s.update(func(st *StreamState) {
			if s.kind == admissionErr {
				st.Err, s.kind = nil, 0
			}
		})
	}
}

// sessionError is why one adapter run ended, and how the error clears.
type sessionError struct {
	err  error
	kind errKind
}

// session runs the adapter once. It reports whether the run connected and, unless the
// context stopped it, why it ended.
func (s *streamer) session(ctx context.Context) (bool, *sessionError) {
	name, log := s.e.Name, log(s.e.Name, config.OpStream)
	p, err := proc.Spawn(ctx, s.e.spec(config.OpStream, s.c, proc.Vars{Start: s.since}))
	s.update(func(st *StreamState) {
		st.Starts++
		st.Backoff = 0
		st.Running = err == nil
	})
	if err != nil {
		return false, &sessionError{fmt.Errorf("channel %s: %w", name, err), transportErr}
	}

	// The run's end and its connection are decided under one lock, so a run that ends
	// never reports connected afterwards.
	var cmu sync.Mutex
	var connected, finished bool
	ended := func(serr *sessionError) (bool, *sessionError) {
		cmu.Lock()
		defer cmu.Unlock()
		finished = true
		return connected, serr
	}
	// fail stops the adapter for a reason bf found, which becomes its log entry's outcome.
	fail := func(outcome string, serr *sessionError) (bool, *sessionError) {
		p.Fail(outcome)
		werr := p.Wait()
		var pe *proc.Error
		if errors.As(werr, &pe) && pe.Kind == proc.Exit {
			// It had already ended on its own: how it ended says more than a broken pipe.
			serr = &sessionError{fmt.Errorf("channel %s: %w", name, werr), transportErr}
		}
		return ended(serr)
	}

	timeout := seconds(s.c.Timeout, config.DefaultStreamTimeout)
	// unread stops an adapter that does not take a control frame: one that leaves it
	// unread for the timeout, or that closed its stdin.
	unread := func(what string, err error) (bool, *sessionError) {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			limit := secondsText(timeoutSeconds(timeout))
			return fail(what+" pipe blocked for "+limit, &sessionError{fmt.Errorf(
				"channel %s: stream adapter did not read its %s within %s; see %s", name, what, limit, log), transportErr})
		}
		// An adapter that ends closes its stdin as it goes, and the broken pipe can come
		// before its end is seen: wait a moment for it, so that how it ended is what fail
		// reports.
		select {
		case <-p.Exited():
		case <-ctx.Done():
		case <-time.After(closedGrace):
		}
		return fail("adapter closed its stdin", &sessionError{fmt.Errorf(
			"channel %s: stream adapter stopped reading its control frames; see %s", name, log), transportErr})
	}
	if err := write(p.Stdin(), s.frame("resume", "", s.cursor), timeout); err != nil {
		return unread("resume frame", err)
	}
	go s.watchConnected(p, func() bool {
		cmu.Lock()
		defer cmu.Unlock()
		if finished {
			return false
		}
		connected = true
		s.update(func(st *StreamState) {
			st.Connected = true
			if s.kind == transportErr {
				st.Err, s.kind = nil, 0
			}
		})
		return true
	})

	maxFrame := s.c.MaxBytes
	if maxFrame <= 0 {
		maxFrame = config.DefaultFrameBytes
	}
	frames := &frameReader{r: bufio.NewReaderSize(p.Stdout(), 64<<10), max: int(maxFrame)}
	for {
		line, err := frames.next()
		if errors.Is(err, errFrameTooLong) {
			why := fmt.Sprintf("frame exceeds max_bytes (%d bytes)", maxFrame)
			return fail(why, &sessionError{fmt.Errorf("channel %s: stream %s; see %s", name, why, log), transportErr})
		}
		if err != nil {
			break // the output ended: the adapter exited, or bf stopped it
		}
		m, err := parseMessage(line)
		if err != nil {
			why := "invalid stream message envelope: " + err.Error()
			return fail(why, &sessionError{fmt.Errorf("channel %s: %s", name, why), transportErr})
		}
		cursor := s.cursor
		if m.Cursor != "" {
			cursor = m.Cursor
		}
		echo := false
		if s.opts.Receipts != nil {
			if echo, err = s.opts.Receipts.IsEcho(name, m.ID); err != nil {
				why := "message not admitted: cannot look up send receipts"
				return fail(why, &sessionError{fmt.Errorf("channel %s: cannot look up the receipts of its sends: %w", name, err), admissionErr})
			}
		}
		if !echo {
			if err := s.opts.Commit(ctx, m, cursor); err != nil {
				if ctx.Err() != nil {
					break
				}
				return fail("message not admitted", &sessionError{fmt.Errorf("channel %s: %w", name, err), admissionErr})
			}
			s.clearAdmission()
		}
		s.cursor = cursor
		if err := write(p.Stdin(), s.frame("ack", m.ID, cursor), timeout); err != nil {
			return unread("acknowledgement", err)
		}
	}
	werr := p.Wait()
	if ctx.Err() != nil {
		return ended(nil)
	}
	if werr == nil {
		return ended(&sessionError{fmt.Errorf("channel %s: stream adapter exited with status 0; bf expects it to keep running; see %s", name, log), transportErr})
	}
	return ended(&sessionError{fmt.Errorf("channel %s: %w", name, werr), transportErr})
}

// watchConnected marks the run connected once it has outlived connectedAfter since its
// resume frame; mark does nothing once the run has ended. A run that ends sooner keeps
// the stream's error.
func (s *streamer) watchConnected(p *proc.Process, mark func() bool) {
	select {
	case <-s.clock.After(connectedAfter):
	case <-p.Exited():
		return
	}
	select {
	case <-p.Exited():
		return
	default:
		mark()
	}
}

// frame encodes a control frame: {"type":…,"since":…,"cursor":…} to resume,
// {"type":"ack","id":…,"cursor":…} to acknowledge.
func (s *streamer) frame(kind, id, cursor string) []byte {
	var o object
	o.str("type", kind)
	if kind == "resume" {
		o.str("since", timestamp.Canonical(s.since))
	} else {
		o.str("id", id)
	}
	o.str("cursor", cursor)
	return append(o.bytes(), '\n')
}

// write sends one control frame, failing when the adapter leaves it unread for timeout:
// bf never queues frames the adapter does not drain.
func write(in proc.Input, frame []byte, timeout time.Duration) error {
	if err := in.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := in.Write(frame)
	return err
}

func timeoutSeconds(d time.Duration) int { return int(d / time.Second) }

// secondsText formats a whole number of seconds as "30s".
func secondsText(n int) string { return fmt.Sprintf("%ds", n) }

var errFrameTooLong = errors.New("frame too long")

// frameReader splits the adapter's output into lines of at most max bytes, the line end
// not counted. A longer line fails as soon as it passes the limit, so a runaway adapter
// cannot make bf buffer more than one frame. An unterminated last line is dropped: it is
// an adapter cut off mid-write, and its message, unacknowledged, comes again.
type frameReader struct {
	r   *bufio.Reader
	max int
}

func (f *frameReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		body := len(line) + len(chunk)
		if err == nil {
			body-- // the newline
		}
		if body > f.max {
			return nil, errFrameTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
