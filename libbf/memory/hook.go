package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Hook events of the host (Claude Code's names; other agent CLIs send the same shape or
// none, see docs/memory.md).
const (
	EventSessionStart = "SessionStart"
	EventUserPrompt   = "UserPromptSubmit"
)

// MaxHookBytes bounds the hook JSON read from stdin.
const MaxHookBytes = 1 << 20

// HookLimit is how many memories the prompt hook adds.
const HookLimit = 5

// HookInput is the part of a host's hook event bf reads.
type HookInput struct {
	Event  string `json:"hook_event_name"`
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	Source string `json:"source"`
}

// HookOutput is what the host injects: hookSpecificOutput.additionalContext.
type HookOutput struct {
	Specific *HookSpecific `json:"hookSpecificOutput,omitempty"`
}

// HookSpecific carries the event name and the context added.
type HookSpecific struct {
	Event   string `json:"hookEventName"`
	Context string `json:"additionalContext"`
}

// ReadHook parses a host's hook event. An empty input is an event with nothing in it, so
// hosts that send no JSON still get the brief; anything else must be one JSON object of
// the expected event.
func ReadHook(r io.Reader, want string) (*HookInput, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxHookBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the hook event on stdin: %w", err)
	}
	return ParseHook(data, want)
}

// ParseHook parses hook JSON bytes (see ReadHook).
func ParseHook(data []byte, want string) (*HookInput, error) {
	if len(data) > MaxHookBytes {
		return nil, inputf("stdin", "hook event is larger than 1 MiB")
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

// SessionStartHook answers a SessionStart event with the brief.
func (s *Store) SessionStartHook(ctx context.Context, in *HookInput, req BriefRequest) (*HookOutput, error) {
	b, err := s.Brief(ctx, req)
	if err != nil {
		return nil, err
	}
	return &HookOutput{Specific: &HookSpecific{Event: EventSessionStart, Context: b.Brief}}, nil
}

// PromptHook answers a UserPromptSubmit event with the memories the prompt recalls.
func (s *Store) PromptHook(ctx context.Context, in *HookInput, req RecallRequest) (*HookOutput, error) {
	q := clipRunes(in.Prompt, 4096)
	if strings.TrimSpace(q) == "" {
		return &HookOutput{}, nil
	}
	req.Query, req.Limit = q, HookLimit
	res, err := s.Recall(ctx, req)
	if err != nil {
		var ie interface{ Unwrap() error }
		if errors.As(err, &ie) && strings.Contains(err.Error(), "query") {
			return &HookOutput{}, nil // a prompt without words recalls nothing
		}
		return nil, err
	}
	if len(res.Items) == 0 {
		return &HookOutput{}, nil
	}
	var b strings.Builder
	head := "Memories that match this prompt (bf recall)"
	if res.Loose {
		head += ", loose matches"
	}
	b.WriteString(head + ":\n")
	for _, it := range res.Items {
		m := &Memory{Title: it.Title, Body: it.Body, Ref: it.Ref}
		b.WriteString(line(m) + "\n")
		if it.CommitLine != "" {
			b.WriteString("  " + it.CommitLine + "\n")
		}
	}
	return &HookOutput{Specific: &HookSpecific{Event: EventUserPrompt, Context: b.String()}}, nil
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
