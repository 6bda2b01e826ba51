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
	waitID []byte
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
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(p, &r) == nil && bytes.Equal(r.ID, l.waitID) {
			close(l.done)
			l.done = nil
		}
	}
	return n, err
}

// expect returns a channel closed once the response to request id is written.
func (l *lockedWriter) expect(id json.RawMessage) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	var compact bytes.Buffer
	json.Compact(&compact, id)
	l.waitID, l.done = compact.Bytes(), make(chan struct{})
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
				// What follows initialize runs under the protocol it settles, so it waits
				// for initialize's response.
				var wait <-chan struct{}
				if id, ok := initializeID(trimmed); ok {
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

// initializeID is the id of an initialize request.
func initializeID(line []byte) (json.RawMessage, bool) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != string(mcp.MethodInitialize) || len(m.ID) == 0 {
		return nil, false
	}
	return m.ID, true
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
