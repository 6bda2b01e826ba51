package assist

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Plan is what bf run --dry-run prints for an assistant: the harness argv and the prompt
// it would read, without running anything.
type Plan struct {
	Assistant string   `json:"assistant"`
	Command   []string `json:"command"`
	DryRun    bool     `json:"dry_run"`
	Kind      string   `json:"kind"`
	Prompt    string   `json:"prompt"`
}

// manualInput is the input of a bf run of an assistant: its window is the last day.
func (o Runner) manualInput(stdin []byte, args []string) Input {
	now := o.now()
	return Input{Kind: kindRun, Start: timestamp.Canonical(now.Add(-24 * time.Hour)), End: timestamp.Canonical(now),
		Stdin: string(stdin), Args: args}
}

func assistant(b *brain.Brain, name string) (*config.Assistant, error) {
	a := b.Config.Assistants[name]
	if a == nil {
		return nil, &reply.InputError{Argument: "name", Err: fmt.Errorf("no assistant of this brain is called %s", name)}
	}
	if !a.Enabled {
		return nil, fmt.Errorf("assistant %s is disabled in bf.yaml; set enabled: true to run it", name)
	}
	return a, nil
}

// DryRun returns what bf run NAME would start: the expanded argv ({{context}} shown as
// its placeholder) and prompt. Nothing runs and nothing is written.
func (o Runner) DryRun(b *brain.Brain, name string, stdin []byte, args []string) (*Plan, error) {
	a, err := assistant(b, name)
	if err != nil {
		return nil, err
	}
	text, err := promptText(b.Root, name, a)
	if err != nil {
		return nil, err
	}
	in := o.manualInput(stdin, args)
	start, end := in.window()
	vars := proc.Vars{Home: o.env().Home, Start: start, End: end, Context: config.PlaceholderContext}
	if a.Reply != nil {
		vars.Schema = schema
	}
	argv, err := proc.Expand(b.Root, append(append(config.Command{}, a.Command...), args...), vars)
	if err != nil {
		return nil, fmt.Errorf("assistant %s: %w", name, err)
	}
	return &Plan{Assistant: name, Command: argv, DryRun: true, Kind: kindRun, Prompt: expandPrompt(text, b.Root, o.env().Home, in, nil)}, nil
}

// RunNow is bf run NAME for an assistant: it admits a job of kind run (stdin and args as
// its input, no delivery) and runs it at once. The run is stored in memories/NAME/ unless
// the harness stays silent. A failure leaves the job failed in bf queue, to retry or
// cancel; a harness that cannot reserve its answer space fails and the job is cancelled.
func (o Runner) RunNow(ctx context.Context, b *brain.Brain, name string, stdin []byte, args []string) (*Result, error) {
	a, err := assistant(b, name)
	if err != nil {
		return nil, err
	}
	cfg, err := configOf(b.Root, name, a)
	if err != nil {
		return nil, err
	}
	mo := messaging.Messenger{Env: o.Env, Queue: queue.Options{Now: o.Now}}
	q, state, err := mo.OpenQueue(b)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	data, _ := json.Marshal(o.manualInput(stdin, args))
	var n [8]byte
	rand.Read(n[:])
	id := "r-" + o.now().UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(n[:])
	if _, _, err := q.AdmitJob(queue.NewJob{ID: id, Assistant: name, Kind: kindRun, Input: data, Config: cfg, MaxBytes: a.MaxBytes}); err != nil {
		return nil, err
	}
	res, err := o.Exec(ctx, b, q, state, id)
	if err != nil && !isInterrupt(ctx) {
		if _, cerr := q.Cancel(id); cerr == nil {
			return nil, fmt.Errorf("%w; the job %s was cancelled", err, id)
		}
	}
	return res, err
}

func isInterrupt(ctx context.Context) bool { return ctx.Err() != nil }
