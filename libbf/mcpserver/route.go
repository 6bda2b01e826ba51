package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// JSON-RPC batches (an array of messages on one line) exist only in protocol 2025-03-26:
// later versions removed them, and a batch is then refused with an error.
const batchProtocol = "2025-03-26"

// maxBatch bounds the messages of one batch.
const maxBatch = 100

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// session is what the server learned from initialize: the protocol version and the SDK
// session that later messages run in.
type session struct {
	mu       sync.Mutex
	protocol string
	client   server.ClientSession
}

func (s *session) set(protocol string, c server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.protocol, s.client = protocol, c
}

func (s *session) get() (string, server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol, s.client
}

// message is the part of a JSON-RPC message routing needs.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func errorResponse(id json.RawMessage, code int, msg string) *response {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}
}

// lockedWriter writes each message whole, whoever answers it, and tells route when the
// response it waits for has gone out.
//
// It also drops the response to a request the client cancelled (notifications/cancelled):
// the protocol says the server should not answer it, and a client forgets the request once
// it cancels, so a late answer is an error there ("unknown message ID"). The SDK stops
// the call but still writes what it returns; the dropped response counts as answered.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	waitID string // the idKey of the awaited response
	done   chan struct{}

	flight    *inFlight       // the requests read and not yet answered
	cancelled map[string]bool // cancelled requests still unanswered, by idKey
}

// cancel notes that the client cancelled request id, if it is still unanswered.
func (l *lockedWriter) cancel(id json.RawMessage) {
	k := idKey(id)
	if k == "" || l.flight == nil || !l.flight.isPending(k) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancelled == nil {
		l.cancelled = map[string]bool{}
	}
	l.cancelled[k] = true
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.cancelled) > 0 {
		line := bytes.TrimRight(p, "\r\n")
		var m flightMessage
		if json.Unmarshal(line, &m) == nil && m.Method == nil && l.cancelled[idKey(m.ID)] {
			delete(l.cancelled, idKey(m.ID))
			l.flight.written(line)
			return len(p), nil
		}
	}
	n, err := l.w.Write(p)
	if l.done != nil {
		var r flightMessage
		if json.Unmarshal(p, &r) == nil && r.Method == nil && idKey(r.ID) == l.waitID {
			close(l.done)
			l.done = nil
		}
	}
	return n, err
}

// expect returns a channel closed once the response to request id is written, or nil when
// the id is one no response is matched by (absent, null, an object).
func (l *lockedWriter) expect(id json.RawMessage) <-chan struct{} {
	key := idKey(id)
	if key == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waitID, l.done = key, make(chan struct{})
	return l.done
}

func (l *lockedWriter) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = l.Write(append(b, '\n'))
	return err
}

// route reads the client's lines and answers what bf answers itself: batches, tool calls
// whose arguments the input schema refuses, and resources. Every other line goes on to the
// SDK's stdio server through sdk, which route closes at the end of input.
func (s *Server) route(ctx context.Context, in io.Reader, sdk io.WriteCloser, out *lockedWriter) {
	defer sdk.Close()
	r := bufio.NewReader(in)
	for ctx.Err() == nil {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if trimmed := bytes.TrimSpace(line); trimmed[0] == '[' {
				s.batch(ctx, trimmed, out)
			} else if res := s.answer(ctx, trimmed); res != nil {
				out.send(res)
			} else {
				// What follows initialize runs under the protocol it settles, and what
				// follows a call that changes the notes must see the change, so each waits
				// for that response.
				var wait <-chan struct{}
				if id, ok := s.holdsBack(trimmed); ok {
					wait = out.expect(id)
				}
				if id, ok := cancelledID(trimmed); ok {
					out.cancel(id)
				}
				if _, werr := sdk.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
					return
				}
				if wait != nil {
					select {
					case <-wait:
					case <-ctx.Done():
						return
					}
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// holdsBack returns the id of a request whose response must be written before the next
// line is read: initialize, and a call of a tool that changes the notes (remember). The SDK
// runs tool calls side by side, so without this a recall sent right after a remember could
// run first and miss the memory just saved.
func (s *Server) holdsBack(line []byte) (json.RawMessage, bool) {
	var m message
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil, false
	}
	switch m.Method {
	case string(mcp.MethodInitialize):
		return m.ID, true
	case string(mcp.MethodToolsCall):
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Params, &p) == nil && s.inOrder[p.Name] {
			return m.ID, true
		}
	}
	return nil, false
}

// cancelledID is the id of the request a notifications/cancelled line cancels.
func cancelledID(line []byte) (json.RawMessage, bool) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != string(mcp.MethodNotificationCancelled) || len(m.ID) != 0 {
		return nil, false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return nil, false
	}
	return p.RequestID, true
}

// answer is bf's own response to one message, or nil to let the SDK handle it.
func (s *Server) answer(ctx context.Context, line []byte) *response {
	var m message
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 || bytes.Equal(m.ID, []byte("null")) {
		return nil
	}
	switch m.Method {
	case string(mcp.MethodToolsCall):
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return nil
		}
		in, ok := s.inputs[p.Name]
		if !ok {
			return nil
		}
		if _, err := in.check(p.Arguments); err != nil {
			return &response{JSONRPC: "2.0", ID: m.ID, Result: s.fail(nil, err)}
		}
	case string(mcp.MethodResourcesList), string(mcp.MethodResourcesRead), string(mcp.MethodResourcesTemplatesList):
		res, err := s.resource(ctx, m.Method, m.Params)
		if err != nil {
			code := codeInternal
			var ie *invalidParams
			var nf *notFound
			switch {
			case errors.As(err, &ie):
				code = codeInvalidParams
			case errors.As(err, &nf):
				code = codeResourceNotFound
			}
			return errorResponse(m.ID, code, s.message(err, nil))
		}
		return &response{JSONRPC: "2.0", ID: m.ID, Result: res}
	}
	return nil
}

// batch answers an array of messages with an array of responses, under protocol 2025-03-26
// only; a batch of notifications gets no response.
func (s *Server) batch(ctx context.Context, line []byte, out *lockedWriter) {
	protocol, client := s.session.get()
	var items []json.RawMessage
	switch {
	case json.Unmarshal(line, &items) != nil:
		out.send(errorResponse(nil, codeParse, "parse error: the line is not valid JSON"))
		return
	case protocol == "":
		out.send(errorResponse(nil, codeInvalidRequest, "a batch cannot come before initialize; send initialize alone first"))
		return
	case protocol != batchProtocol:
		out.send(errorResponse(nil, codeInvalidRequest, "protocol "+protocol+" has no JSON-RPC batches (only "+batchProtocol+" had them); send one message per line"))
		return
	case len(items) == 0:
		out.send(errorResponse(nil, codeInvalidRequest, "an empty batch; send at least one message"))
		return
	case len(items) > maxBatch:
		out.send(errorResponse(nil, codeInvalidRequest, "a batch holds at most 100 messages"))
		return
	}
	ctx = s.mcp.WithContext(ctx, client)
	var replies []any
	for _, item := range items {
		var m message
		switch {
		case json.Unmarshal(item, &m) != nil || m.JSONRPC != "2.0":
			replies = append(replies, errorResponse(m.ID, codeInvalidRequest, "each message of a batch must be a JSON-RPC 2.0 object"))
		case m.Method == string(mcp.MethodInitialize):
			replies = append(replies, errorResponse(m.ID, codeInvalidRequest, "initialize cannot be part of a batch"))
		default:
			if res := s.answer(ctx, item); res != nil {
				replies = append(replies, res)
			} else if res := s.mcp.HandleMessage(ctx, item); res != nil {
				replies = append(replies, res)
			}
		}
	}
	if len(replies) > 0 {
		out.send(replies)
	}
}
