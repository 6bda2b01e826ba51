package memory

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// The payloads the host sends, as recorded in testdata/hooks.
func TestParseHookPayloads(t *testing.T) {
	for _, c := range []struct {
		file, event, prompt string
	}{
		{"testdata/hooks/session-start.json", EventSessionStart, ""},
		{"testdata/hooks/user-prompt.json", EventUserPrompt, "why is the cache lock held per brain when two agents write?"},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		in, err := parseHook(data, c.event)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if in.Event != c.event || in.Prompt != c.prompt || in.Cwd != "/home/ana/code" {
			t.Errorf("%s: %+v", c.file, in)
		}
		other := EventUserPrompt
		if c.event == EventUserPrompt {
			other = EventSessionStart
		}
		if _, err := parseHook(data, other); err == nil {
			t.Errorf("%s accepted as %s", c.file, other)
		}
	}
}

// A hook answers every input with an output the host accepts and at most one line of why:
// never an error the command could exit non-zero with.
func TestAnswerNeverFails(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Remember(ctx, RememberRequest{Type: "gotcha", Title: "Cache lock is per brain", Body: "The writer lock lives in .bf."}); err != nil {
		t.Fatal(err)
	}
	opened := func() (*Store, error) { return s, nil }
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	matched := &HookOutput{Specific: &HookSpecific{Event: EventUserPrompt,
		Context: "Memories that match this prompt (bf recall):\n- [unreviewed] Cache lock is per brain: The writer lock lives in .bf. (concepts/memory/cache-lock-is-per-brain.md)\n"}}
	for _, c := range []struct {
		name   string
		ctx    context.Context
		call   HookCall
		want   *HookOutput
		notice string
	}{
		{"matches", ctx, HookCall{Stdin: strings.NewReader(`{"prompt":"cache lock"}`)}, matched, ""},
		{"no words", ctx, HookCall{Stdin: strings.NewReader(`{"prompt":"?!"}`)}, &HookOutput{}, ""},
		{"empty stdin", ctx, HookCall{Stdin: strings.NewReader(``)}, &HookOutput{}, ""},
		{"not JSON", ctx, HookCall{Stdin: strings.NewReader(`cache lock`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: stdin: expected the host's hook event as one JSON object"},
		{"array", ctx, HookCall{Stdin: strings.NewReader(`[]`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: stdin: expected the host's hook event as one JSON object"},
		{"prompt number", ctx, HookCall{Stdin: strings.NewReader(`{"prompt":123}`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: stdin: expected the hook event's prompt to be a string, found JSON number"},
		{"over 1 MiB", ctx, HookCall{Stdin: strings.NewReader(strings.Repeat(" ", maxHookBytes+1))}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: stdin: hook event is larger than 1 MiB"},
		{"other event", ctx, HookCall{Stdin: strings.NewReader(`{"hook_event_name":"Stop"}`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: --hook: the host sent a Stop event; this hook reads UserPromptSubmit"},
		{"other hook name", ctx, HookCall{Name: "session-start", Stdin: strings.NewReader(`{}`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: --hook: expected user-prompt"},
		{"bad timeout", ctx, HookCall{Seconds: 601, Stdin: strings.NewReader(`{}`)}, &HookOutput{},
			"UserPromptSubmit hook added nothing: invalid input: --timeout: expected an integer from 1 to 600"},
		{"no brain", ctx, HookCall{Stdin: strings.NewReader(`{"prompt":"cache lock"}`), Open: func() (*Store, error) { return nil, errors.New("no brain selected") }},
			&HookOutput{}, "UserPromptSubmit hook added nothing: no brain selected"},
		{"stdin never closed", ctx, HookCall{Seconds: 1, Stdin: blockingReader{}}, &HookOutput{},
			"UserPromptSubmit hook added nothing: no answer within 1s; run the command by hand to see what is slow, or give it --timeout"},
		{"cancelled", cancelled, HookCall{Stdin: blockingReader{}}, &HookOutput{}, "UserPromptSubmit hook added nothing: cancelled"},
		{"panic", ctx, HookCall{Stdin: strings.NewReader(`{}`), Open: func() (*Store, error) { panic("boom") }}, &HookOutput{},
			"UserPromptSubmit hook added nothing: internal error: boom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			call := c.call
			call.Event = EventUserPrompt
			call.Name = cmp.Or(call.Name, "user-prompt")
			call.Seconds = cmp.Or(call.Seconds, DefaultHookSeconds)
			if call.Open == nil {
				call.Open = opened
			}
			out, notice := Answer(c.ctx, call)
			if diff := gocmp.Diff(c.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if notice != c.notice {
				t.Errorf("notice %q, want %q", notice, c.notice)
			}
		})
	}
}

// Skipped memories are reported beside the context, never in it.
func TestAnswerWarnings(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Remember(ctx, RememberRequest{Type: "policy", Title: "Never force-push", Body: "Shared history.", Reviewed: true}); err != nil {
		t.Fatal(err)
	}
	bad := "---\ntype: \"gotcha\"\ntitle: \"Force-push held\"\nupdated: \"2026-01-01\"\nfields:\n  importance: 9\n  saved: \"2026-01-01T00:00:00.000000Z\"\n---\nforce-push\n"
	for _, name := range []string{"a-bad.md", "b-bad.md"} {
		if err := os.WriteFile(filepath.Join(s.Brain.Root, Folder, name), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, notice := Answer(ctx, HookCall{Name: "session-start", Event: EventSessionStart, Stdin: strings.NewReader(`{}`), Bytes: DefaultBriefBytes,
		Seconds: DefaultHookSeconds, Open: func() (*Store, error) { return s, nil }})
	want := "# Brief of brain test, scope global\n\n## Rules (always apply)\n- Never force-push: Shared history. (concepts/memory/never-force-push.md)\n" +
		"\n## Recent activity\n- 2026-01-01 saved [policy] Never force-push (concepts/memory/never-force-push.md)\n"
	if out.Specific == nil || out.Specific.Context != want {
		t.Errorf("context %+v, want %q", out.Specific, want)
	}
	if wantNotice := "SessionStart hook: concepts/memory/a-bad.md: skipped: fields.importance: expected an integer from 1 to 5 (+1 more warnings)"; notice != wantNotice {
		t.Errorf("notice %q, want %q", notice, wantNotice)
	}
}

// blockingReader is a stdin the host never writes to nor closes.
type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }
