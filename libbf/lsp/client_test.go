package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// client speaks JSON-RPC to a server over its stdio, as an editor would.
type client struct {
	t      testing.TB
	to     io.WriteCloser
	from   chan *message
	queue  []*message // notifications read while waiting for a response
	nextID int
	done   chan error
}

// startServer runs a server in this process over pipes.
func startServer(t testing.TB, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, to: inW, from: make(chan *message, 256), done: make(chan error, 1)}
	srv := New(opts)
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go c.readAll(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end when its input closed")
		}
	})
	return c
}

func (c *client) readAll(r io.Reader) {
	br := bufio.NewReader(r)
	defer close(c.from)
	for {
		body, err := ReadMessage(br)
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("the server sent a body that is no JSON: %q", body)
			return
		}
		c.from <- &m
	}
}

// sendRaw writes one framed body as is.
func (c *client) sendRaw(body string) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.to, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.sendRaw(string(b))
}

// call sends a request and returns its response.
func (c *client) call(method string, params any) *message {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.sendRaw(string(b))
	return c.response(fmt.Sprint(id))
}

// response waits for the response with the given id, keeping notifications for later.
func (c *client) response(id string) *message {
	c.t.Helper()
	for {
		m := c.next()
		if m.Method != "" {
			c.queue = append(c.queue, m)
			continue
		}
		if string(m.ID) == id {
			return m
		}
		c.t.Fatalf("response to %s, want %s", m.ID, id)
	}
}

func (c *client) next() *message {
	c.t.Helper()
	select {
	case m, ok := <-c.from:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no message from the server in 20 s")
	}
	return nil
}

// diagnostics waits for the next diagnostics of uri.
func (c *client) diagnostics(uri string) publishDiagnosticsParams {
	c.t.Helper()
	for i, m := range c.queue {
		if p, ok := diagnosticsOf(m, uri); ok {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return p
		}
	}
	for {
		m := c.next()
		if p, ok := diagnosticsOf(m, uri); ok {
			return p
		}
		if m.Method != "" {
			c.queue = append(c.queue, m)
		}
	}
}

func diagnosticsOf(m *message, uri string) (publishDiagnosticsParams, bool) {
	var p publishDiagnosticsParams
	if m.Method != "textDocument/publishDiagnostics" || json.Unmarshal(m.Params, &p) != nil || p.URI != uri {
		return p, false
	}
	return p, true
}

// result decodes a successful response's result into v.
func result[T any](t testing.TB, m *message) T {
	t.Helper()
	var v T
	if m.Error != nil {
		t.Fatalf("error response: %v", m.Error)
	}
	if err := json.Unmarshal(m.Result, &v); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	return v
}

func fileURI(root, rel string) string { return uriOf(filepath.Join(root, filepath.FromSlash(rel))) }
