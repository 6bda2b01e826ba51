package channel

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)

func TestParseMessage(t *testing.T) {
	long := strings.Repeat("é", maxFieldChars) // 4,096 characters, 8,192 bytes
	tests := []struct {
		name string
		in   string
		want Message
		err  string
	}{
		{name: "required only",
			in:   `{"id":"message-42","sender":"owner-id","conversation":"thread-7","time":"2026-10-16T09:00:00Z","text":"What needs my attention?"}`,
			want: Message{ID: "message-42", Sender: "owner-id", Conversation: "thread-7", Time: t0, Text: "What needs my attention?"}},
		{name: "every field, offset time, escapes",
			in:   `{"own":true,"cursor":"c-1","reply_to":"message-41","text":"line\nnext \u00e9 \ud83d\ude00","time":"2026-10-16T11:00:00.1234567+02:00","conversation":"thread-7","sender":"bot","id":"m"}`,
			want: Message{ID: "m", Sender: "bot", Conversation: "thread-7", Time: t0.Add(123456 * time.Microsecond), Text: "line\nnext é 😀", ReplyTo: "message-41", Cursor: "c-1", Own: true}},
		{name: "null optionals",
			in:   `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"","reply_to":null,"cursor":null,"own":null}`,
			want: Message{ID: "m", Sender: "s", Conversation: "c", Time: t0}},
		{name: "longest id",
			in:   `{"id":"` + long + `","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`,
			want: Message{ID: long, Sender: "s", Conversation: "c", Time: t0, Text: "t"}},
		{name: "longest text",
			in:   `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"` + strings.Repeat("\\u00e9", maxTextChars) + `"}`,
			want: Message{ID: "m", Sender: "s", Conversation: "c", Time: t0, Text: strings.Repeat("é", maxTextChars)}},
		{name: "surrounding space", in: " \n{\"id\":\"m\",\"sender\":\"s\",\"conversation\":\"c\",\"time\":\"2026-10-16T09:00:00Z\",\"text\":\"t\"}\r\n",
			want: Message{ID: "m", Sender: "s", Conversation: "c", Time: t0, Text: "t"}},

		{name: "missing id", in: `{"sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "id: required"},
		{name: "missing text", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z"}`, err: "text: required"},
		{name: "missing time", in: `{"id":"m","sender":"s","conversation":"c","text":"t"}`, err: "time: required"},
		{name: "null sender", in: `{"id":"m","sender":null,"conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "sender: required"},
		{name: "empty conversation", in: `{"id":"m","sender":"s","conversation":"","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "conversation: must not be empty"},
		{name: "number id", in: `{"id":42,"sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "id: expected a string"},
		{name: "object text", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":{"a":[1]}}`, err: "text: expected a string"},
		{name: "bool sender", in: `{"id":"m","sender":true,"conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "sender: expected a string"},
		{name: "string own", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","own":"yes"}`, err: "own: expected true or false"},
		{name: "id too long", in: `{"id":"` + long + `x","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "id: holds more than 4096 characters"},
		{name: "cursor too long", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","cursor":"` + long + `x"}`, err: "cursor: holds more than 4096 characters"},
		{name: "text too long", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"` + strings.Repeat("a", maxTextChars+1) + `"}`, err: "text: holds more than 32768 characters"},
		{name: "control in sender", in: `{"id":"m","sender":"a\tb","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "sender: holds a control or format character"},
		{name: "format in reply_to", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","reply_to":"a\u202eb"}`, err: "reply_to: holds a control or format character"},
		{name: "DEL in id", in: "{\"id\":\"a\x7f\",\"sender\":\"s\",\"conversation\":\"c\",\"time\":\"2026-10-16T09:00:00Z\",\"text\":\"t\"}", err: "id: holds a control or format character"},
		{name: "time without zone", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00","text":"t"}`, err: "time: expected an ISO 8601 timestamp with a timezone"},
		{name: "time not a time", in: `{"id":"m","sender":"s","conversation":"c","time":"yesterday","text":"t"}`, err: "time: expected an ISO 8601 timestamp"},
		{name: "unknown key", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","thread":"x"}`, err: "thread: " + reasonUnknownKey},
		{name: "unknown key not named", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","a b":"x"}`, err: "(key): " + reasonUnknownKey},
		{name: "duplicate key", in: `{"id":"m","id":"n","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t"}`, err: "id: duplicate key"},
		{name: "lone surrogate", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"\ud83d"}`, err: "text: " + reasonUnicode},
		{name: "reversed surrogates", in: `{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"\ude00\ud83d"}`, err: "text: " + reasonUnicode},
		{name: "invalid UTF-8", in: "{\"id\":\"m\",\"sender\":\"s\xff\",\"conversation\":\"c\",\"time\":\"2026-10-16T09:00:00Z\",\"text\":\"t\"}", err: "sender: " + reasonUnicode},
		{name: "not JSON", in: `{"id":"m",`, err: "invalid JSON document"},
		{name: "two documents", in: `{} {}`, err: "invalid JSON document"},
		{name: "array", in: `[]`, err: "expected a JSON object"},
		{name: "empty", in: ``, err: "invalid JSON document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMessage([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if err := got.Check(); err != nil {
				t.Errorf("Check of a parsed message: %v", err)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"required only", Message{ID: "message-42", Sender: "owner-id", Conversation: "thread-7", Time: t0, Text: "What needs my attention?"},
			`{"conversation":"thread-7","id":"message-42","sender":"owner-id","text":"What needs my attention?","time":"2026-10-16T09:00:00.000000Z"}`},
		{"everything", Message{ID: "m", Sender: "s", Conversation: "c", Time: t0.In(time.FixedZone("", 3600)), Text: "a<b>&\"\\\n\x01é\u2028",
			ReplyTo: "r", Cursor: "k", Own: true},
			`{"conversation":"c","cursor":"k","id":"m","own":true,"reply_to":"r","sender":"s","text":"a<b>&\"\\\n\u0001é` + "\u2028" + `","time":"2026-10-16T09:00:00.000000Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(tc.m.Canonical())
			if got != tc.want {
				t.Fatalf("Canonical =\n%s\nwant\n%s", got, tc.want)
			}
			back, err := parseMessage([]byte(got))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.m.Time.UTC(), back.Time); diff != "" {
				t.Errorf("time (-want +got):\n%s", diff)
			}
			back.Time = tc.m.Time
			if diff := cmp.Diff(tc.m, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessageCheck(t *testing.T) {
	ok := Message{ID: "m", Sender: "s", Conversation: "c", Time: t0, Text: "t"}
	tests := []struct {
		name   string
		change func(*Message)
		err    string
	}{
		{"valid", func(*Message) {}, ""},
		{"no id", func(m *Message) { m.ID = "" }, "id: must not be empty"},
		{"no sender", func(m *Message) { m.Sender = "" }, "sender: must not be empty"},
		{"zero time", func(m *Message) { m.Time = time.Time{} }, "time: required"},
		{"bad UTF-8 text", func(m *Message) { m.Text = "\xff" }, "text: " + reasonUnicode},
		{"bad UTF-8 conversation", func(m *Message) { m.Conversation = "\xff" }, "conversation: " + reasonUnicode},
		{"newline in cursor", func(m *Message) { m.Cursor = "a\nb" }, "cursor: holds a control or format character"},
		{"long text", func(m *Message) { m.Text = strings.Repeat("x", maxTextChars+1) }, "text: holds more than 32768 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := ok
			tc.change(&m)
			err := m.Check()
			if got := errText(err); got != tc.err {
				t.Fatalf("Check = %q, want %q", got, tc.err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzParseMessage(f *testing.F) {
	f.Add([]byte(`{"id":"m","sender":"s","conversation":"c","time":"2026-10-16T09:00:00Z","text":"t","own":true}`))
	f.Add([]byte(`{"id":"m","id":"m"}`))
	f.Add([]byte(`{"text":"\ud83d\ude00","cursor":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseMessage(data)
		if err != nil {
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("a parsed message fails Check: %v", err)
		}
		back, err := parseMessage(m.Canonical())
		if err != nil {
			t.Fatalf("the canonical form does not parse: %v", err)
		}
		if !back.Time.Equal(m.Time) {
			t.Fatalf("time changed on round trip")
		}
		back.Time = m.Time
		if back != m {
			t.Fatalf("round trip changed the message")
		}
	})
}
