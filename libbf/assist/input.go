package assist

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
)

// kindRun is a run started by hand with bf run; the other kinds are config.RunSchedule,
// config.RunMessage and config.RunWake.
const kindRun = "run"

// maxPromptBytes caps the expanded prompt piped to a harness.
const maxPromptBytes = 120_000

// Message is one channel message a message run answers.
type Message struct {
	ID           string `json:"id"`
	Sender       string `json:"sender"`
	Conversation string `json:"conversation"`
	Time         string `json:"time"`
	Text         string `json:"text"`
	ReplyTo      string `json:"reply_to,omitempty"`
}

// Input is the private input of one job, saved in the queue when it is admitted.
type Input struct {
	Kind string `json:"kind"`
	// Schedule names the schedule of a schedule run; Slot the slot of a wake run.
	Schedule string `json:"schedule,omitempty"`
	Slot     string `json:"slot,omitempty"`
	// Start and End are the run's window, {{start}} and {{end}}.
	Start string `json:"start"`
	End   string `json:"end"`
	// Channel and Messages are what a message run answers.
	Channel  string    `json:"channel,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	// Stdin and Args are what bf run passed.
	Stdin string   `json:"stdin,omitempty"`
	Args  []string `json:"args,omitempty"`
}

func (in Input) window() (time.Time, time.Time) {
	s, _ := timestamp.Parse(in.Start)
	e, _ := timestamp.Parse(in.End)
	return s, e
}

// snapshot is what a job keeps of its assistant's configuration: the prompt, the harness
// and the output settings. A worker runs a job only while the assistant still has the
// same snapshot; editing schedules, inputs or keep leaves it unchanged.
type snapshot struct {
	Command      config.Command `json:"command"`
	Prompt       string         `json:"prompt"`
	Reply        *config.Reply  `json:"reply,omitempty"`
	Post         string         `json:"post,omitempty"`
	Timeout      int            `json:"timeout"`
	MaxBytes     int64          `json:"max_bytes"`
	InputArgs    []string       `json:"input_args,omitempty"`
	ScheduleArgs []string       `json:"schedule_args,omitempty"`
	Propose      bool           `json:"propose,omitempty"`
	Idempotent   []string       `json:"idempotent,omitempty"` // the run kinds that retry by themselves
	Retries      int            `json:"retries"`
}

// promptText reads the prompt of assistant a named name in the brain at root.
func promptText(root, name string, a *config.Assistant) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(a.Prompt)))
	if err != nil {
		return "", fmt.Errorf("assistant %s: cannot read its prompt %s; create it or name another file with prompt: in bf.yaml", name, a.Prompt)
	}
	if len(data) > maxPromptBytes {
		return "", fmt.Errorf("assistant %s: its prompt %s holds more than %d bytes; shorten it", name, a.Prompt, maxPromptBytes)
	}
	return string(data), nil
}

// configOf is the snapshot of assistant name as bf.yaml and its prompt declare it now.
func configOf(root, name string, a *config.Assistant) ([]byte, error) {
	text, err := promptText(root, name, a)
	if err != nil {
		return nil, err
	}
	s := snapshot{Command: a.Command, Prompt: text, Reply: a.Reply, Post: a.Post, Timeout: a.Timeout, MaxBytes: a.MaxBytes,
		InputArgs: a.InputArgs, ScheduleArgs: a.ScheduleArgs, Propose: a.Propose, Retries: a.Retries}
	for _, k := range config.RunKinds {
		if a.Idempotent.Retries(k) {
			s.Idempotent = append(s.Idempotent, k)
		}
	}
	return json.Marshal(s)
}

// sendOf is the queue's snapshot of a channel's send capability.
func sendOf(ch *config.Channel) (queue.Send, bool) {
	if ch == nil {
		return queue.Send{}, false
	}
	c := ch.Capability(config.OpSend)
	if c == nil {
		return queue.Send{}, false
	}
	return queue.Send{Command: slices.Clone([]string(c.Command)), Idempotent: c.Idempotent}, true
}

// jobID derives a job's ID from what started it, so admitting it again finds it. The
// instant it is about (a message's time, a slot) comes first, so jobs admitted together
// sort in that order: answers then keep the order of their messages.
func jobID(prefix string, at time.Time, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return prefix + at.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(h[:8])
}
