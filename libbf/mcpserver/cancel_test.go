package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
)

// A request the client cancels gets no response, and counts as answered so the end of
// input is not held up by it; other responses, and a cancellation of a request already
// answered, are left alone.
func TestCancelledRequestIsNotAnswered(t *testing.T) {
	var out bytes.Buffer
	flight := newInFlight()
	w := &lockedWriter{w: &drainOutput{w: &out, flight: flight}, flight: flight}
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search"}}`,
		`{"jsonrpc":"2.0","id":"eight","method":"tools/call","params":{"name":"search"}}`,
	} {
		flight.read([]byte(req + "\n"))
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user stopped it"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, // never sent
	} {
		id, ok := cancelledID([]byte(line))
		if !ok {
			t.Fatalf("cancelledID(%s) found no request", line)
		}
		w.cancel(id)
	}
	w.send(response{JSONRPC: "2.0", ID: json.RawMessage(`7`), Result: map[string]string{"late": "answer"}})
	w.send(response{JSONRPC: "2.0", ID: json.RawMessage(`"eight"`), Result: map[string]string{"ok": "yes"}})
	w.send(response{JSONRPC: "2.0", ID: json.RawMessage(`9`), Result: map[string]string{"unasked": "yes"}})
	want := `{"jsonrpc":"2.0","id":"eight","result":{"ok":"yes"}}` + "\n" + `{"jsonrpc":"2.0","id":9,"result":{"unasked":"yes"}}` + "\n"
	if got := out.String(); got != want {
		t.Fatalf("written:\n%s\nwant:\n%s", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	flight.wait(ctx)
	if ctx.Err() != nil {
		t.Fatal("the cancelled request is still pending: the end of input would wait for it")
	}
	if _, ok := cancelledID([]byte(`{"jsonrpc":"2.0","id":3,"method":"notifications/cancelled","params":{"requestId":7}}`)); ok {
		t.Fatal("a request named notifications/cancelled (it has an id) was taken for a cancellation")
	}
}
