package lsp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the framing and the decoder, then to a whole
// session: nothing may panic, and every answer must be a framed JSON-RPC message.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		frame(`{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.md"},"position":{"line":0,"character":0}}}`),
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.md","text":"[a](b"}}}`),
		frame(`{"jsonrpc":"2.0","id":null}`),
		frame(`[1,2]`),
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 3\r\nContent-Length: 2\r\n\r\n{}",
		"\r\n\r\n",
		"Content-Length: 2\n\n{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			body, err := ReadMessage(r)
			if err != nil && !strings.Contains(err.Error(), errFraming.Error()) {
				break
			}
			if err == nil {
				m, rerr := decode(body)
				if m == nil && rerr == nil {
					t.Fatalf("decode(%q) gave neither a message nor an error", body)
				}
			}
		}
		var out bytes.Buffer
		_ = New(Options{Debounce: 1}).Serve(context.Background(), bytes.NewReader(data), &out)
		rr := bufio.NewReader(&out)
		for {
			body, err := ReadMessage(rr)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the server wrote a malformed frame: %v in %q", err, out.String())
			}
			if m, rerr := decode(body); rerr != nil || m == nil {
				t.Fatalf("the server wrote %q: %v", body, rerr)
			}
		}
	})
}
