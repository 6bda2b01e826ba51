package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one message body: a note is at most 4 MiB, and its text may arrive
// escaped in a didChange, so twice that and some room.
const maxMessage = 10 << 20

// maxHeader bounds the header block of one message.
const maxHeader = 4 << 10

// JSON-RPC 2.0 and LSP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeNotInitialized = -32002
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a notification
// (Method only) or a response (ID with Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// isRequest reports whether m expects a response.
func (m *message) isRequest() bool { return len(m.ID) > 0 && m.Method != "" }

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// errFraming is a stream that cannot be read further: its headers are malformed.
var errFraming = errors.New("malformed message header")

// ReadMessage reads one Content-Length framed body, as LSP frames every message. A body
// that is not valid JSON is still returned: it gets a parse error response, and the stream
// goes on after it. Malformed headers give an error wrapping errFraming; the end of input
// gives io.EOF, or io.ErrUnexpectedEOF inside a message.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	read := 0
	for {
		raw, err := r.ReadSlice('\n')
		line := string(raw)
		read += len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a header line longer than %d bytes", errFraming, r.Size())
		}
		if err != nil {
			if err == io.EOF && read == 0 {
				return nil, io.EOF
			}
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if read > maxHeader {
			return nil, fmt.Errorf("%w: headers longer than %d bytes", errFraming, maxHeader)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not a header", errFraming, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q is not a length", errFraming, strings.TrimSpace(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errFraming)
	}
	if length > maxMessage {
		// Skip the body, so the next message can still be read.
		if _, err := io.CopyN(io.Discard, r, int64(length)); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: a body of %d bytes is over the limit of %d", errFraming, length, maxMessage)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

// decode parses one body. Its error is the response to give: a parse error or an
// invalid request.
func decode(body []byte) (*message, *rpcError) {
	var m message
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil {
		return nil, &rpcError{Code: codeParseError, Message: "the message is not a JSON object: " + err.Error()}
	}
	if dec.More() {
		return nil, &rpcError{Code: codeParseError, Message: "the message holds more than one JSON value"}
	}
	if m.JSONRPC != "2.0" {
		return &m, &rpcError{Code: codeInvalidRequest, Message: `jsonrpc must be "2.0"`}
	}
	if len(m.ID) > 0 {
		switch m.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		case 'n':
			m.ID = nil // "id": null is no id
		default:
			bad := m
			bad.ID = json.RawMessage("null")
			return &bad, &rpcError{Code: codeInvalidRequest, Message: "id must be a number or a string"}
		}
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return &m, &rpcError{Code: codeInvalidRequest, Message: "a message needs a method, or a result or error"}
	}
	return &m, nil
}

// writer sends messages, one at a time, framed.
type writer struct {
	mu  sync.Mutex
	out io.Writer
	err error
}

func (w *writer) send(m *message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.err = WriteMessage(w.out, body)
	return w.err
}

// WriteMessage writes one body framed with its Content-Length, in one write.
func WriteMessage(out io.Writer, body []byte) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(body))
	buf.Write(body)
	_, err := out.Write(buf.Bytes())
	return err
}

func (w *writer) respond(id json.RawMessage, result any, rerr *rpcError) error {
	m := &message{ID: id}
	if id == nil {
		m.ID = json.RawMessage("null")
	}
	if rerr != nil {
		m.Error = rerr
		return w.send(m)
	}
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	m.Result = b
	return w.send(m)
}

func (w *writer) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return w.send(&message{Method: method, Params: b})
}
