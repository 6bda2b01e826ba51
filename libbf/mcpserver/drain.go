package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
)

// inFlight lets a closed stdin end the session gracefully. The SDK's stdio loop cancels
// every call still running when its input ends, which answers them "context canceled";
// a host that pipes its requests and closes stdin (printf … | bf mcp) would lose them.
// So the input handed to the SDK holds back the end of stdin until every request read so
// far has its response written: no new request is read, the calls in flight finish, and
// only then does the SDK see the end and stop.
type inFlight struct {
	mu      sync.Mutex
	pending map[string]int // requests read and not yet answered, by id
	done    chan struct{}  // closed and replaced whenever the last pending request is answered
}

func newInFlight() *inFlight {
	return &inFlight{pending: map[string]int{}, done: make(chan struct{})}
}

// flightMessage is what tells requests and responses apart: a request has a method and an id,
// a response an id and no method; a notification has no id.
type flightMessage struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// idKey returns a key for a request or response id that is the same on both sides, or ""
// when the id is absent, null or not a string or number (the SDK answers none of those
// by id).
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s" + s
	case 'n', 't', 'f', '{', '[':
		return ""
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ""
	}
	return "n" + strconv.FormatFloat(f, 'g', -1, 64)
}

func (f *inFlight) read(line []byte) {
	var m flightMessage
	if json.Unmarshal(line, &m) != nil || m.Method == nil {
		return
	}
	if k := idKey(m.ID); k != "" {
		f.mu.Lock()
		f.pending[k]++
		f.mu.Unlock()
	}
}

func (f *inFlight) written(line []byte) {
	var m flightMessage
	if json.Unmarshal(line, &m) != nil || m.Method != nil {
		return
	}
	k := idKey(m.ID)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending[k] == 0 {
		return
	}
	if f.pending[k]--; f.pending[k] == 0 {
		delete(f.pending, k)
	}
	if len(f.pending) == 0 {
		close(f.done)
		f.done = make(chan struct{})
	}
}

// isPending reports whether request k (an idKey) was read and is not answered yet.
func (f *inFlight) isPending(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending[k] > 0
}

// wait returns once no request is pending, or when ctx ends.
func (f *inFlight) wait(ctx context.Context) {
	for {
		f.mu.Lock()
		n, done := len(f.pending), f.done
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// drainInput hands stdin to the SDK one line at a time, noting each request, and returns the
// end of stdin only once every noted request has been answered.
type drainInput struct {
	ctx    context.Context
	r      *bufio.Reader
	flight *inFlight
	buf    []byte
	err    error
}

func (in *drainInput) Read(p []byte) (int, error) {
	for len(in.buf) == 0 {
		if in.err != nil {
			if in.err == io.EOF {
				in.flight.wait(in.ctx)
			}
			return 0, in.err
		}
		line, err := in.r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] != '\n' {
			// The SDK drops a last line without its newline; end it, so it is answered
			// like every other request.
			line = append(line, '\n')
		}
		if len(line) > 0 {
			in.flight.read(line)
			in.buf = line
		}
		in.err = err
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// drainOutput notes each response the SDK writes. The SDK writes one whole message per call
// (a JSON value and its newline, under its own lock); partial writes are joined anyway.
type drainOutput struct {
	w      io.Writer
	flight *inFlight
	mu     sync.Mutex
	line   []byte
}

func (o *drainOutput) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.mu.Lock()
	o.line = append(o.line, p[:n]...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(o.line, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, o.line[:i])
		o.line = o.line[i+1:]
	}
	if len(o.line) == 0 {
		o.line = nil
	}
	o.mu.Unlock()
	for _, l := range lines {
		o.flight.written(l)
	}
	return n, err
}
