package assist

import (
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/config"
)

func TestParseAnswer(t *testing.T) {
	now := time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
	reply := &config.Reply{Path: "/structured_output"}
	for _, c := range []struct {
		name, out string
		reply     *config.Reply
		want      answer
		err       string
	}{
		{"plain", "Hello.\n", nil, answer{Say: "Hello.\n"}, ""},
		{"plain empty", "", nil, answer{}, ""},
		{"plain not utf-8", "\xff", nil, answer{}, "the harness printed text that is not UTF-8"},
		{"say", `{"structured_output":{"say":"Hi"}}`, reply, answer{Say: "Hi"}, ""},
		{"silent", `{"structured_output":{"say":null}}`, reply, answer{}, ""},
		{"wake after", `{"structured_output":{"say":null,"wake":{"after":600}}}`, reply,
			answer{Wake: now.Add(10 * time.Minute), Slot: defaultSlot}, ""},
		{"wake at slot", `{"structured_output":{"say":"x","wake":{"at":"2026-10-16T12:00:00+02:00","slot":"noon"}}}`, reply,
			answer{Say: "x", Wake: time.Date(2026, 10, 16, 10, 0, 0, 0, time.UTC), Slot: "noon"}, ""},
		{"wake past", `{"structured_output":{"say":"x","wake":{"at":"2026-10-15T12:00:00Z"}}}`, reply,
			answer{Say: "x", Wake: now, Slot: defaultSlot}, ""},
		{"not json", "Sorry, I failed.", reply, answer{}, "the harness did not print one JSON object; reply: {path} expects one"},
		{"array", `[1]`, reply, answer{}, "the harness did not print one JSON object; reply: {path} expects one"},
		{"two values", `{} {}`, reply, answer{}, "the harness printed more than one JSON value; reply: {path} expects one object"},
		{"missing", `{"result":"x"}`, reply, answer{}, "the harness's output holds no {say, wake} object at /structured_output"},
		{"no say", `{"structured_output":{}}`, reply, answer{}, "reply say: required (null to stay silent)"},
		{"say number", `{"structured_output":{"say":3}}`, reply, answer{}, "reply say: expected a string or null"},
		{"extra key", `{"structured_output":{"say":"x","mood":"ok"}}`, reply, answer{}, "reply: unexpected key; the reply object holds say and wake"},
		{"wake both", `{"structured_output":{"say":"x","wake":{"after":5,"at":"2026-10-16T12:00:00Z"}}}`, reply, answer{}, "reply wake: expected exactly one of after or at"},
		{"wake zero", `{"structured_output":{"say":"x","wake":{"after":0}}}`, reply, answer{}, "reply wake.after: expected whole seconds from 1 to 31536000"},
		{"wake fraction", `{"structured_output":{"say":"x","wake":{"after":1.5}}}`, reply, answer{}, "reply wake.after: expected whole seconds from 1 to 31536000"},
		{"wake at no zone", `{"structured_output":{"say":"x","wake":{"at":"2026-10-16T12:00:00"}}}`, reply, answer{}, "reply wake.at: expected an ISO 8601 instant with offset"},
		{"wake far", `{"structured_output":{"say":"x","wake":{"at":"2028-10-16T12:00:00Z"}}}`, reply, answer{}, "reply wake.at: expected an instant within a year"},
		{"wake slot", `{"structured_output":{"say":"x","wake":{"after":5,"slot":"Noon"}}}`, reply, answer{}, "reply wake.slot: expected a lowercase name such as default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseAnswer([]byte(c.out), c.reply, now)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Say != c.want.Say || !got.Wake.Equal(c.want.Wake) || got.Slot != c.want.Slot {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"structured_output":{"say":"Hi","wake":{"after":60}}}`))
	f.Add([]byte(`{"structured_output":{"say":null}}`))
	f.Add([]byte(`not json`))
	now := time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, out []byte) {
		a, err := parseAnswer(out, &config.Reply{Path: "/structured_output"}, now)
		if err == nil && !a.Wake.IsZero() && (a.Wake.Before(now) || a.Slot == "") {
			t.Fatalf("wake %v slot %q", a.Wake, a.Slot)
		}
	})
}
