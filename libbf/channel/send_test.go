package channel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
)

func TestOutgoingJSON(t *testing.T) {
	tests := []struct {
		name string
		o    Outgoing
		want string
	}{
		{"reply", Outgoing{ID: "stable-delivery-id", Text: "Here is the answer.", Conversation: "thread-7", ReplyTo: "message-42"},
			`{"id":"stable-delivery-id","text":"Here is the answer.","conversation":"thread-7","reply_to":"message-42"}` + "\n"},
		{"default destination", Outgoing{ID: "d", Text: "The review is ready.\n<ok> & é"},
			`{"id":"d","text":"The review is ready.\n<ok> & é"}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(tc.o.JSON()); got != tc.want {
				t.Errorf("JSON = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestOutgoingCheck(t *testing.T) {
	tests := []struct {
		name string
		o    Outgoing
		err  string
	}{
		{"valid", Outgoing{ID: "d", Text: strings.Repeat("x", maxTextChars+1)}, ""},
		{"no id", Outgoing{Text: "t"}, "id: must not be empty"},
		{"long id", Outgoing{ID: strings.Repeat("x", maxFieldChars+1)}, "id: holds more than 4096 characters"},
		{"control in conversation", Outgoing{ID: "d", Conversation: "a\x00"}, "conversation: holds a control or format character"},
		{"format in reply_to", Outgoing{ID: "d", ReplyTo: "\u200b"}, "reply_to: holds a control or format character"},
		{"invalid text", Outgoing{ID: "d", Text: "\xff"}, "text: " + reasonUnicode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := errText(tc.o.Check()); got != tc.err {
				t.Errorf("Check = %q, want %q", got, tc.err)
			}
		})
	}
}

func TestParseReceipt(t *testing.T) {
	tests := []struct {
		name, in, requested string
		want                Receipt
		err                 string
	}{
		{name: "same conversation", in: `{"id":"provider-message-43","conversation":"thread-7"}`, requested: "thread-7",
			want: Receipt{ID: "provider-message-43", Conversation: "thread-7"}},
		{name: "default destination", in: "{\"conversation\":\"desk\",\"id\":\"n-1\"}\n", want: Receipt{ID: "n-1", Conversation: "desk"}},
		{name: "default destination left empty", in: `{"id":"n-1","conversation":""}`, want: Receipt{ID: "n-1"}},

		{name: "other conversation", in: `{"id":"p","conversation":"thread-8"}`, requested: "thread-7", err: "conversation: must be the requested conversation"},
		{name: "empty instead of requested", in: `{"id":"p","conversation":""}`, requested: "thread-7", err: "conversation: must be the requested conversation"},
		{name: "no conversation", in: `{"id":"p"}`, err: "conversation: required"},
		{name: "no id", in: `{"conversation":"c"}`, err: "id: required"},
		{name: "empty id", in: `{"id":"","conversation":"c"}`, err: "id: must not be empty"},
		{name: "number id", in: `{"id":43,"conversation":"c"}`, err: "id: expected a string"},
		{name: "null conversation", in: `{"id":"p","conversation":null}`, err: "conversation: expected a string"},
		{name: "control in id", in: `{"id":"a\nb","conversation":"c"}`, err: "id: holds a control or format character"},
		{name: "extra key", in: `{"id":"p","conversation":"c","url":"https://x"}`, err: "url: " + reasonReceiptKey},
		{name: "duplicate key", in: `{"id":"p","id":"q","conversation":"c"}`, err: "id: duplicate key"},
		{name: "text", in: "sent!\n", err: "invalid JSON document"},
		{name: "empty", in: "", err: "invalid JSON document"},
		{name: "list", in: `[{"id":"p","conversation":"c"}]`, err: "expected a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseReceipt([]byte(tc.in), tc.requested)
			if tc.err != "" {
				if errText(err) != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("receipt = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSend(t *testing.T) {
	reply := Outgoing{ID: "stable-delivery-id", Text: "Here is the answer.", Conversation: "thread-7", ReplyTo: "message-42"}
	tests := []struct {
		name     string
		send     *config.Capability // nil: no send capability
		body     string             // channels/send, when set
		out      Outgoing
		want     Receipt
		class    Class
		err      string
		ran      bool // the command started and saved its stdin
		resendOK [2]bool
	}{
		{name: "delivered", send: capability("send", "channels/send", "home"), out: reply, ran: true,
			body: `cat > stdin.json; echo "$1 $BF_BRAIN" > args; printf '{"id":"provider-message-43","conversation":"thread-7"}\n'`,
			want: Receipt{ID: "provider-message-43", Conversation: "thread-7"}},
		{name: "exit status", send: capability("send", "channels/send"), out: reply, ran: true,
			body:  `cat > stdin.json; echo "provider says: Here is the answer." >&2; exit 3`,
			class: maybeSent, err: "channel chat: channel.chat.send exited with status 3; see logs/channel.chat.send.log", resendOK: [2]bool{false, true}},
		{name: "invalid receipt", send: capability("send", "channels/send"), out: reply, ran: true,
			body:  `cat > stdin.json; echo "ok, sent Here is the answer."`,
			class: maybeSent, err: "channel chat: send must print one JSON receipt: invalid JSON document; see logs/channel.chat.send.log", resendOK: [2]bool{false, true}},
		{name: "conversation not preserved", send: capability("send", "channels/send"), out: reply, ran: true,
			body:  `cat > stdin.json; printf '{"id":"p","conversation":"thread-8"}'`,
			class: maybeSent, err: "channel chat: send must print one JSON receipt: conversation: must be the requested conversation; see logs/channel.chat.send.log", resendOK: [2]bool{false, true}},
		{name: "output over max_bytes", send: &config.Capability{Command: config.Command{"channels/send"}, Timeout: 300, MaxBytes: 8}, out: reply, ran: true,
			body:  `cat > stdin.json; printf '{"id":"provider-message-43","conversation":"thread-7"}'`,
			class: maybeSent, err: "channel chat: channel.chat.send printed more than 8 bytes (max_bytes); see logs/channel.chat.send.log", resendOK: [2]bool{false, true}},
		{name: "not on PATH", send: capability("send", "bf-test-no-such-adapter"), out: reply,
			class: NotSent, err: "channel chat: bf-test-no-such-adapter is not on PATH; install it or correct the command of channel.chat.send", resendOK: [2]bool{true, true}},
		{name: "not executable", send: capability("send", "channels/send"), out: reply, body: "",
			class: NotSent, err: "channel chat: could not start channels/send: it is not executable; run chmod +x channels/send", resendOK: [2]bool{true, true}},
		{name: "invalid delivery", send: capability("send", "channels/send"), out: Outgoing{Text: "t"},
			body:  `cat > stdin.json`,
			class: Rejected, err: "channel chat: invalid message to send: id: must not be empty"},
		{name: "no send", out: reply, class: Rejected, err: "channel chat: declares no send; add send: to it in bf.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := endpoint(t, config.Channel{Send: tc.send, Read: capability("read", "channels/read", "{{start}}", "{{end}}")})
			if tc.body != "" {
				brainfix.Script(t, e.Root, "channels/send", tc.body)
			} else if tc.name == "not executable" {
				brainfix.WriteFile(t, e.Root, "channels/send", []byte("#!/bin/sh\n"), 0o644)
			}
			got, err := e.Send(context.Background(), tc.out)
			stdin, readErr := os.ReadFile(filepath.Join(e.Root, "stdin.json"))
			if ran := readErr == nil; ran != tc.ran {
				t.Errorf("command ran = %v, want %v", ran, tc.ran)
			} else if ran && string(stdin) != string(tc.out.JSON()) {
				t.Errorf("stdin = %s, want %s", stdin, tc.out.JSON())
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("receipt = %+v, want %+v", got, tc.want)
				}
				args, _ := os.ReadFile(filepath.Join(e.Root, "args"))
				if want := "home " + e.Root + "\n"; string(args) != want {
					t.Errorf("arguments and BF_BRAIN = %q, want %q", args, want)
				}
				return
			}
			var se *SendError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SendError", err, err)
			}
			if se.Class != tc.class || err.Error() != tc.err {
				t.Errorf("error = %s %q, want %s %q", se.Class, err, tc.class, tc.err)
			}
			if got := [2]bool{se.Resend(false), se.Resend(true)}; got != tc.resendOK {
				t.Errorf("Resend(false, true) = %v, want %v", got, tc.resendOK)
			}
			if strings.Contains(err.Error(), "answer") {
				t.Errorf("the error quotes the message or the provider: %q", err)
			}
		})
	}
}

func TestSendStderrGoesToLog(t *testing.T) {
	e := endpoint(t, config.Channel{Send: capability("send", "channels/send")})
	brainfix.Script(t, e.Root, "channels/send", `cat >/dev/null; echo "provider refused: too long" >&2; exit 1`)
	_, err := e.Send(context.Background(), Outgoing{ID: "d", Text: "t"})
	if err == nil {
		t.Fatal("send succeeded")
	}
	want := "== TIME exit 1 ==\nprovider refused: too long\n"
	if got := readLog(t, e.Root, "channel.chat.send"); got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
}

func TestSendTimeout(t *testing.T) {
	e := endpoint(t, config.Channel{Send: &config.Capability{Command: config.Command{"channels/send"}, Timeout: 1, MaxBytes: 1 << 20}})
	brainfix.Script(t, e.Root, "channels/send", `cat >/dev/null; exec sleep 30`)
	_, err := e.Send(context.Background(), Outgoing{ID: "d", Text: "t"})
	var se *SendError
	if !errors.As(err, &se) || se.Class != maybeSent {
		t.Fatalf("error = %v, want a maybe-sent *SendError", err)
	}
	if want := "channel chat: channel.chat.send timed out after 1s; see logs/channel.chat.send.log"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestSendCanceled(t *testing.T) {
	tests := []struct {
		name   string
		before bool // cancel before Send, else once the command runs
		class  Class
	}{
		{"before the command starts", true, NotSent},
		{"while the command runs", false, Interrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := endpoint(t, config.Channel{Send: capability("send", "channels/send")})
			brainfix.Script(t, e.Root, "channels/send", `cat >/dev/null; touch started; exec sleep 30`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.before {
				cancel()
			} else {
				go func() {
					waitFile(t, e.Root, "started")
					cancel()
				}()
			}
			_, err := e.Send(ctx, Outgoing{ID: "d", Text: "t"})
			var se *SendError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SendError", err)
			}
			if se.Class != tc.class {
				t.Errorf("class = %s, want %s", se.Class, tc.class)
			}
			if _, err := os.Stat(filepath.Join(e.Root, "started")); (err == nil) == tc.before {
				t.Errorf("started file present = %v", err == nil)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	ch := &config.Channel{Send: capability("send", "x")}
	b := &brain.Brain{Name: "b", Root: "/brain", Config: &config.Config{Channels: map[string]*config.Channel{"chat": ch}}}
	tests := []struct {
		name, channel string
		want          *Endpoint
		err           string
		is            error
	}{
		{name: "declared", channel: "chat", want: &Endpoint{Name: "chat", Root: "/brain", Home: "/home/u", Config: ch}},
		{name: "undeclared", channel: "mail", err: "channel mail: not declared; add it under channels: in bf.yaml", is: errUndeclared},
		{name: "not a name", channel: "Chat\n", err: "channel name: expected a lowercase letter, then up to 63 lowercase letters, digits or hyphens", is: errUndeclared},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Open(b, "/home/u", tc.channel)
			if tc.err != "" {
				if errText(err) != tc.err || !errors.Is(err, tc.is) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("endpoint (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseReceipt(f *testing.F) {
	f.Add([]byte(`{"id":"p","conversation":"c"}`), "c")
	f.Add([]byte(`{"id":"p","conversation":"d","x":1}`), "")
	f.Fuzz(func(t *testing.T, data []byte, requested string) {
		r, err := parseReceipt(data, requested)
		if err != nil {
			return
		}
		if r.ID == "" || requested != "" && r.Conversation != requested {
			t.Fatalf("receipt %+v passed for %q", r, requested)
		}
		if reason := checkRouting(r.ID, true) + checkRouting(r.Conversation, false); reason != "" {
			t.Fatalf("receipt field passed: %s", reason)
		}
	})
}
