package channel

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// envelope is a valid envelope for message id at t0+offset.
func envelope(id string, offset time.Duration) string {
	return fmt.Sprintf(`{"id":%q,"sender":"s","conversation":"c","time":%q,"text":"t"}`, id,
		t0.Add(offset).Format(time.RFC3339Nano))
}

func batch(items ...string) string { return `{"messages":[` + strings.Join(items, ",") + `]}` }

func TestParseBatch(t *testing.T) {
	start, end := t0, t0.Add(time.Hour)
	msg := func(id string, offset time.Duration) Message {
		return Message{ID: id, Sender: "s", Conversation: "c", Time: t0.Add(offset), Text: "t"}
	}
	full := make([]string, maxBatch)
	for i := range full {
		full[i] = envelope(fmt.Sprintf("m%04d", i), time.Duration(i)*time.Second)
	}
	tests := []struct {
		name string
		in   string
		want []Message
		err  string
	}{
		{name: "empty", in: `{"messages":[]}`, want: nil},
		{name: "oldest first, ties by ID",
			in:   batch(envelope("b", time.Minute), envelope("z", 0), envelope("a", time.Minute)),
			want: []Message{msg("z", 0), msg("a", time.Minute), msg("b", time.Minute)}},
		{name: "window start is inside", in: batch(envelope("a", 0)), want: []Message{msg("a", 0)}},
		{name: "last microsecond is inside", in: batch(envelope("a", time.Hour-time.Microsecond)), want: []Message{msg("a", time.Hour-time.Microsecond)}},
		{name: "a full batch", in: batch(full...), want: func() []Message {
			out := make([]Message, maxBatch)
			for i := range out {
				out[i] = msg(fmt.Sprintf("m%04d", i), time.Duration(i)*time.Second)
			}
			return out
		}()},

		{name: "window end is outside", in: batch(envelope("a", 0), envelope("b", time.Hour)), err: "messages.1.time: outside the requested window"},
		{name: "before the window", in: batch(envelope("a", -time.Microsecond)), err: "messages.0.time: outside the requested window"},
		{name: "duplicate ID", in: batch(envelope("a", 0), envelope("b", 0), envelope("a", time.Second)), err: "messages.2.id: duplicate ID; each message appears once in a batch"},
		{name: "invalid envelope", in: batch(envelope("a", 0), `{"id":"b","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z"}`), err: "messages.1.text: required"},
		{name: "envelope duplicate key", in: batch(`{"id":"b","id":"b"}`), err: "messages.0.id: duplicate key"},
		{name: "envelope not an object", in: batch(`"a"`), err: "messages.0: expected a JSON object"},
		{name: "pagination field", in: `{"messages":[],"next_page_token":"x"}`, err: "next_page_token: " + reasonBatchKey},
		{name: "incomplete flag first", in: `{"incomplete":true,"messages":[]}`, err: "incomplete: " + reasonBatchKey},
		{name: "odd key", in: `{"messages":[],"\u0000":1}`, err: "(key): " + reasonBatchKey},
		{name: "no messages", in: `{}`, err: "messages: required"},
		{name: "messages twice", in: `{"messages":[],"messages":[]}`, err: "messages: duplicate key"},
		{name: "messages not a list", in: `{"messages":{}}`, err: "messages: expected a JSON array"},
		{name: "bare list", in: `[]`, err: "expected a JSON object holding messages"},
		{name: "truncated", in: `{"messages":[` + envelope("a", 0), err: "invalid JSON document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBatch([]byte(tc.in), start, end)
			if tc.err != "" {
				if errText(err) != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBatchTooMany(t *testing.T) {
	items := make([]string, maxBatch+1)
	for i := range items {
		items[i] = envelope(fmt.Sprintf("m%d", i), time.Duration(i)*time.Millisecond)
	}
	// A broken message after the 1,001st is never looked at.
	items = append(items, `{"id":1}`)
	_, err := parseBatch([]byte(batch(items...)), t0, t0.Add(time.Hour))
	if !errors.Is(err, errTooMany) {
		t.Fatalf("error = %v, want ErrTooMany", err)
	}
}

func FuzzParseBatch(f *testing.F) {
	f.Add([]byte(batch(envelope("a", 0), envelope("b", time.Second))))
	f.Add([]byte(`{"messages":[],"next":1}`))
	f.Add([]byte(`{"messages":[{"id":"a","id":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := parseBatch(data, t0, t0.Add(time.Hour))
		if err != nil {
			return
		}
		if len(msgs) > maxBatch {
			t.Fatalf("%d messages passed", len(msgs))
		}
		seen := map[string]bool{}
		for i, m := range msgs {
			if err := m.Check(); err != nil {
				t.Fatalf("message %d fails Check: %v", i, err)
			}
			if m.Time.Before(t0) || !m.Time.Before(t0.Add(time.Hour)) || seen[m.ID] {
				t.Fatalf("message %d is outside the window or repeated", i)
			}
			if i > 0 && m.Time.Before(msgs[i-1].Time) {
				t.Fatalf("messages out of order")
			}
			seen[m.ID] = true
		}
	})
}
