package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMalformedRequests(t *testing.T) {
	c := startServer(t, Options{})
	// Before initialize, a request is refused; a notification is dropped.
	if r := c.call("textDocument/hover", at("file:///x.md", 0, 0)); r.Error == nil || r.Error.Code != codeNotInitialized {
		t.Errorf("hover before initialize = %s %v", r.Result, r.Error)
	}
	c.call("initialize", map[string]any{})
	tests := []struct {
		name, body string
		want       rpcError
		id         string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":`, rpcError{Code: codeParseError, Message: "the message is not a JSON object: unexpected EOF"}, "null"},
		{"two values", `{"jsonrpc":"2.0","id":7,"method":"shutdown"} {}`, rpcError{Code: codeParseError, Message: "the message holds more than one JSON value"}, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"shutdown"}`, rpcError{Code: codeInvalidRequest, Message: `jsonrpc must be "2.0"`}, "8"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"shutdown"}`, rpcError{Code: codeInvalidRequest, Message: "id must be a number or a string"}, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":"a","method":"textDocument/rename","params":{}}`, rpcError{Code: codeMethodNotFound, Message: "bf lsp does not serve textDocument/rename"}, `"a"`},
		{"params not an object", `{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":5}`, rpcError{Code: codeInvalidParams, Message: "params must be a JSON object"}, "9"},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":10,"method":"textDocument/hover","params":{"position":{"line":"x"}}}`,
			rpcError{Code: codeInvalidParams, Message: "invalid params: json: cannot unmarshal string into Go struct field Position.position.line of type int"}, "10"},
		{"initialize twice", `{"jsonrpc":"2.0","id":11,"method":"initialize","params":{}}`, rpcError{Code: codeInvalidRequest, Message: "initialize was already sent"}, "11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.sendRaw(tt.body)
			m := c.next()
			if string(m.ID) != tt.id || m.Error == nil {
				t.Fatalf("response %s: id %s error %v, want id %s and an error", tt.body, m.ID, m.Error, tt.id)
			}
			if diff := cmp.Diff(tt.want, *m.Error); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	// A header block without Content-Length is answered, and the stream goes on.
	if _, err := io.WriteString(c.to, "Content-Type: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if m := c.next(); m.Error == nil || m.Error.Code != codeParseError || string(m.ID) != "null" {
		t.Errorf("no Content-Length: %+v", m)
	}
	// Position far outside the document and an unknown document answer null.
	if r := c.call("textDocument/hover", at("file:///nowhere.md", 1<<30, -5)); r.Error != nil || string(r.Result) != "null" {
		t.Errorf("hover on an unknown document = %s %v", r.Result, r.Error)
	}
	if r := c.call("shutdown", nil); r.Error != nil {
		t.Errorf("shutdown: %v", r.Error)
	}
	if r := c.call("textDocument/hover", at("file:///x.md", 0, 0)); r.Error == nil || r.Error.Code != codeInvalidRequest {
		t.Errorf("hover after shutdown = %s %v", r.Result, r.Error)
	}
}

func TestExit(t *testing.T) {
	tests := []struct {
		name, input string
		want        error
	}{
		{"shutdown then exit", frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`), nil},
		{"exit alone", frame(`{"jsonrpc":"2.0","method":"exit"}`), errExitBeforeShutdown},
		{"input ends", frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), nil},
		{"input ends inside a body", "Content-Length: 100\r\n\r\n{", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- New(Options{}).Serve(context.Background(), strings.NewReader(tt.input), &out) }()
			select {
			case err := <-done:
				if !errors.Is(err, tt.want) {
					t.Errorf("Serve = %v, want %v", err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return")
			}
		})
	}
}

func frame(body string) string {
	return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestBinary runs the built command as an editor starts it: it answers over stdio and ends
// when its input closes.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bf-lsp")
	}
	bin := filepath.Join(t.TempDir(), "bf-lsp")
	build := exec.Command("go", "build", "-o", bin, "github.com/bfgo/bf/bf-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := newSession(t).root // a brain to serve; its in-process server is not used
	cmd := exec.Command(bin, "--brain", root)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	send := func(body string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(stdin, frame(body)); err != nil {
			t.Fatal(err)
		}
		for {
			b, err := ReadMessage(r)
			if err != nil {
				t.Fatalf("reading the response to %s: %v (stderr %s)", body, err, stderr.String())
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if _, ok := m["id"]; ok {
				return m
			}
		}
	}
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":null}}`)
	if init["error"] != nil {
		t.Fatalf("initialize: %v", init["error"])
	}
	uri := fileURI(root, "projects/tax-engine.md")
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"markdown","version":1,"text":"# T\n\n[x](../concepts/ledger.md)\n"}}}`
	if _, err := io.WriteString(stdin, frame(open)); err != nil {
		t.Fatal(err)
	}
	h := send(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":2,"character":5}}}`)
	value, _ := h["result"].(map[string]any)["contents"].(map[string]any)["value"].(string)
	if !strings.HasPrefix(value, "**Ledger**\n\nconcept · stable · 2026-10-12") {
		t.Errorf("hover = %v", h)
	}
	stdin.Close() // the editor went away
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("bf-lsp exited with %v after its input closed; stderr %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("bf-lsp did not exit when its input closed")
	}
}
