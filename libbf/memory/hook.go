package memory

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/fold"
)

// Hook events of the host (Claude Code's names; other agent CLIs send the same shape or
// none, see docs/memory.md).
const (
	EventSessionStart = "SessionStart"
	EventUserPrompt   = "UserPromptSubmit"
)

// hookNames are the --hook values and the host events they read.
var hookNames = map[string]string{"session-start": EventSessionStart, "user-prompt": EventUserPrompt}

// maxHookBytes bounds the hook JSON read from stdin.
const maxHookBytes = 1 << 20

// hookLimit is how many memories the prompt hook adds.
const hookLimit = 5

// How long a hook may take, in seconds, before it gives up and adds nothing: the host
// waits for it before the session or the prompt goes on.
const (
	DefaultHookSeconds = 10
	maxHookSeconds     = 600
)

// HookInput is the part of a host's hook event bf reads.
type HookInput struct {
	Event  string `json:"hook_event_name"`
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	Source string `json:"source"`
}

// HookOutput is what the host injects: hookSpecificOutput.additionalContext. Without it
// ({}), the host adds nothing.
type HookOutput struct {
	Specific *HookSpecific `json:"hookSpecificOutput,omitempty"`
}

// HookSpecific carries the event name and the context added.
type HookSpecific struct {
	Event   string `json:"hookEventName"`
	Context string `json:"additionalContext"`
}

// HookCall is one run of a hook command for a host.
type HookCall struct {
	Name    string                 // the --hook value given
	Event   string                 // the event the command serves: EventSessionStart or EventUserPrompt
	Stdin   io.Reader              // the host's event
	Open    func() (*Store, error) // selects the brain, once the event is read
	Scope   string                 // --scope
	Bytes   int                    // the brief's limit, for SessionStart
	Dir     string                 // the working folder when the event names no cwd
	Seconds int                    // --timeout: 1 to maxHookSeconds
	Refused error                  // the command line's flags were refused: add nothing, say why
}

// Answer runs a hook so that it never breaks the session it serves: whatever goes wrong —
// the event on stdin, the --hook value, the brain, its bf.yaml, the cache, a slow lock —
// the host gets an output that adds nothing, and why comes back as one line for stderr.
// When it does add context, the line (if any) reports the warnings, such as skipped
// memories, which never go into the context itself.
func Answer(ctx context.Context, c HookCall) (out *HookOutput, notice string) {
	// A panic would exit 2, the very code that blocks a prompt: it adds nothing instead.
	defer func() {
		if r := recover(); r != nil {
			out, notice = &HookOutput{}, fmt.Sprintf("%s hook added nothing: internal error: %v", c.Event, r)
		}
	}()
	seconds := c.Seconds
	if seconds < 1 || seconds > maxHookSeconds {
		seconds = DefaultHookSeconds // the error below says so; the timeout still holds
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
	defer cancel()
	out, warnings, err := c.answer(ctx)
	if err != nil {
		why := err.Error()
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			why = fmt.Sprintf("no answer within %ds; run the command by hand to see what is slow, or give it --timeout", seconds)
		case ctx.Err() != nil:
			why = "cancelled"
		}
		return &HookOutput{}, c.Event + " hook added nothing: " + why
	}
	switch len(warnings) {
	case 0:
		return out, ""
	case 1:
		return out, c.Event + " hook: " + warnings[0]
	}
	return out, fmt.Sprintf("%s hook: %s (+%d more warnings)", c.Event, warnings[0], len(warnings)-1)
}

func (c HookCall) answer(ctx context.Context) (*HookOutput, []string, error) {
	if c.Refused != nil {
		return nil, nil, c.Refused
	}
	if c.Seconds < 1 || c.Seconds > maxHookSeconds {
		return nil, nil, inputf("--timeout", "expected an integer from 1 to %d", maxHookSeconds)
	}
	if hookNames[c.Name] != c.Event {
		for name, ev := range hookNames {
			if ev == c.Event {
				return nil, nil, inputf("--hook", "expected %s", name)
			}
		}
	}
	in, err := readHook(ctx, c.Stdin, c.Event)
	if err != nil {
		return nil, nil, err
	}
	s, err := c.Open()
	if err != nil {
		return nil, nil, err
	}
	repo := cmp.Or(in.Cwd, c.Dir)
	if c.Event == EventSessionStart {
		return s.SessionStartHook(ctx, in, BriefRequest{Scope: c.Scope, Bytes: c.Bytes, Repo: repo})
	}
	return s.PromptHook(ctx, in, RecallRequest{Scope: c.Scope, Repo: repo})
}

// readHook reads and parses a host's hook event (see parseHook). A host that never closes
// stdin gets an error when ctx ends, not a hook that hangs.
func readHook(ctx context.Context, r io.Reader, want string) (*HookInput, error) {
	data, err := durable.ReadWithin(ctx, r, maxHookBytes)
	var tooLarge *durable.TooLargeError
	switch {
	case err == nil:
		return parseHook(data, want)
	case errors.As(err, &tooLarge):
		return nil, errHookTooLarge
	case ctx.Err() != nil:
		return nil, fmt.Errorf("no hook event on stdin: %w", err)
	}
	return nil, fmt.Errorf("cannot read the hook event on stdin: %w", err)
}

var errHookTooLarge = inputf("stdin", "hook event is larger than 1 MiB")

// parseHook parses a host's hook event. An empty input is an event with nothing in it, so
// hosts that send no JSON still get the brief; anything else must be one JSON object of
// the expected event.
func parseHook(data []byte, want string) (*HookInput, error) {
	if len(data) > maxHookBytes {
		return nil, errHookTooLarge
	}
	in := &HookInput{}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, nil
	}
	if !utf8.Valid(data) {
		return nil, inputf("stdin", "expected the host's hook event as UTF-8 JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, inputf("stdin", "expected the hook event's %s to be a string, found JSON %s", te.Field, te.Value)
		}
		return nil, inputf("stdin", "expected the host's hook event as one JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, inputf("stdin", "expected one JSON object, found more after it")
	}
	if in.Event != "" && in.Event != want {
		return nil, inputf("--hook", "the host sent a %s event; this hook reads %s", clipRunes(in.Event, 64), want)
	}
	return in, nil
}

// SessionStartHook answers a SessionStart event with the brief, and the brief's warnings.
func (s *Store) SessionStartHook(ctx context.Context, in *HookInput, req BriefRequest) (*HookOutput, []string, error) {
	b, err := s.Brief(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return &HookOutput{Specific: &HookSpecific{Event: EventSessionStart, Context: b.Brief}}, b.Warnings, nil
}

// PromptHook answers a UserPromptSubmit event with the memories the prompt recalls, and
// the recall's warnings. A prompt without words recalls nothing.
func (s *Store) PromptHook(ctx context.Context, in *HookInput, req RecallRequest) (*HookOutput, []string, error) {
	q := clipRunes(in.Prompt, fold.MaxQueryLength)
	if _, err := fold.Parse(q); errors.Is(err, fold.ErrNoWords) {
		return &HookOutput{}, nil, nil
	}
	req.Query, req.Limit = q, hookLimit
	res, err := s.Recall(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Items) == 0 {
		return &HookOutput{}, res.Warnings, nil
	}
	var b strings.Builder
	head := "Memories that match this prompt (bf recall)"
	if res.Loose {
		head += ", loose matches"
	}
	b.WriteString(head + ":\n")
	for i, it := range res.Items {
		if it.Weak && !res.Loose && (i == 0 || !res.Items[i-1].Weak) {
			b.WriteString("Weaker matches (fewer of the prompt's words):\n")
		}
		m := &Memory{Title: it.Title, Body: it.Body, Ref: it.Ref, Unreviewed: it.Unreviewed}
		b.WriteString(line(m) + "\n")
		if it.CommitLine != "" {
			b.WriteString("  " + it.CommitLine + "\n")
		}
	}
	return &HookOutput{Specific: &HookSpecific{Event: EventUserPrompt, Context: b.String()}}, res.Warnings, nil
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
