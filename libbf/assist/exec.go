package assist

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
)

// A Runner runs a brain's assistants on one machine, at one clock: their cycles (due
// schedules, wakes, reads, jobs and deliveries), a job's attempt, a run now and a stream.
// The zero value runs them on this machine at the real time.
type Runner struct {
	// Env is the machine (trust, state folder, home); nil: brain.System().
	Env *brain.Env
	// Now is the clock of schedules, wakes and inputs; nil: time.Now.
	Now func() time.Time
}

func (o Runner) env() brain.Env { return brain.EnvOrSystem(o.Env) }

func (o Runner) now() time.Time { return timestamp.Clock(o.Now) }

// Result is what one job's attempt came to.
type Result struct {
	// Answer is what the harness said; empty when silent or failed.
	Answer    string `json:"answer,omitempty"`
	Assistant string `json:"assistant"`
	// Deliveries are the IDs of the deliveries the answer created.
	Deliveries []string `json:"deliveries,omitempty"`
	Error      string   `json:"error,omitempty"`
	Job        string   `json:"job"`
	Kind       string   `json:"kind"`
	// Proposal is the draft ACTION.md a proposing assistant's answer became.
	Proposal string `json:"proposal,omitempty"`
	// Record is the brain-relative folder of the run record, when one was stored.
	Record string      `json:"record,omitempty"`
	State  queue.State `json:"state"`
	// Wake is when the assistant asked to run again.
	Wake string `json:"wake,omitempty"`
}

// current is the configuration a worker compares a job's snapshot with: the assistant's
// and every channel's send.
func current(b *brain.Brain, name string) queue.JobConfig {
	cur := queue.JobConfig{Channels: map[string]queue.Send{}}
	if b.Config == nil {
		return cur
	}
	if a := b.Config.Assistants[name]; a != nil && a.Enabled {
		cur.Assistant, _ = configOf(b.Root, name, a)
	}
	for n, ch := range b.Config.Channels {
		if s, ok := sendOf(ch); ok {
			cur.Channels[n] = s
		}
	}
	return cur
}

// Exec runs one attempt of pending job id of q, whose state folder is state. It returns
// the job's state afterwards. Errors are the queue's refusals (a job still running, no
// answer space yet, a changed configuration) and failures to record; a harness that fails
// is a Result in state failed, or pending when its run kind retries by itself. When ctx
// ends while the harness runs, the attempt is recorded as interrupted (uncertain) and
// ctx's error returned.
func (o Runner) Exec(ctx context.Context, b *brain.Brain, q *queue.Queue, state, id string) (*Result, error) {
	d, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	run, err := q.StartJob(id, current(b, d.Assistant))
	if err != nil {
		return nil, err
	}
	job := run.Job()
	name := job.Assistant
	res := &Result{Job: id, Assistant: name, Kind: job.Kind}
	var snap snapshot
	var in Input
	if err := json.Unmarshal(job.Config, &snap); err != nil {
		return o.fail(run, res, nil, "", fmt.Sprintf("assistant %s: the job's saved configuration cannot be read; cancel it with bf queue %s --cancel", name, id))
	}
	if err := json.Unmarshal(job.Input, &in); err != nil {
		return o.fail(run, res, &snap, "", fmt.Sprintf("assistant %s: the job's saved input cannot be read; cancel it with bf queue %s --cancel", name, id))
	}
	env := o.env()
	var turns []queue.Turn
	if in.Kind == config.RunMessage && len(in.Messages) > 0 {
		if t, err := timestamp.Parse(in.Messages[0].Time); err == nil {
			turns, _ = q.Conversation(in.Channel, in.Messages[0].Conversation, t, maxTurns)
		}
	}
	prompt := expandPrompt(snap.Prompt, b.Root, env.Home, in, turns)
	if len(prompt) > maxPromptBytes {
		return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: the expanded prompt holds %d bytes, more than %d; shorten the prompt or the input", name, len(prompt), maxPromptBytes))
	}
	ctxFile, err := writeContext(state, id, name, in)
	if err != nil {
		return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: cannot write the run's context file in the state folder: %v", name, err))
	}
	defer os.Remove(ctxFile)
	cmd := append(config.Command{}, snap.Command...)
	switch in.Kind {
	case config.RunMessage:
		cmd = append(cmd, snap.InputArgs...)
	case config.RunSchedule, config.RunWake:
		cmd = append(cmd, snap.ScheduleArgs...)
	}
	cmd = append(cmd, in.Args...)
	start, end := in.window()
	vars := proc.Vars{Home: env.Home, Start: start, End: end, Context: ctxFile}
	if snap.Reply != nil {
		vars.Schema = schema
	}
	started := o.now()
	out, err := proc.Run(ctx, proc.Spec{
		Name: name, Root: b.Root, Command: cmd, Vars: vars, Stdin: []byte(prompt),
		Timeout: time.Duration(snap.Timeout) * time.Second, MaxBytes: snap.MaxBytes,
		Env:     []string{"BF_BRAIN=" + b.Root},
		Started: run.Started,
	})
	if err != nil {
		if ctx.Err() != nil {
			if _, ierr := run.Interrupt(); ierr != nil {
				return nil, ierr
			}
			return nil, ctx.Err()
		}
		return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: %v", name, err))
	}
	ans, err := parseAnswer(out.Stdout, snap.Reply, o.now())
	if err != nil {
		return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: %v; see %s", name, err, proc.LogPath(name)))
	}
	silent := strings.TrimSpace(ans.Say) == ""
	if silent && in.Kind == config.RunMessage {
		return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: the harness printed an empty answer to a message; see %s", name, proc.LogPath(name)))
	}
	var marks []queue.Mark
	if !ans.Wake.IsZero() {
		marks = append(marks, queue.Mark{Name: wakeMark(name, ans.Slot), Progress: queue.Progress{Position: ans.Wake}})
		res.Wake = timestamp.Canonical(ans.Wake)
	}
	if !silent && snap.Propose {
		rel := proposalPath(name, started)
		if err := propose(b.Root, rel, ans.Say); err != nil {
			return o.fail(run, res, &snap, in.Kind, fmt.Sprintf("assistant %s: the harness %v; see %s", name, err, proc.LogPath(name)))
		}
		res.Proposal = rel
	}
	if !silent {
		rec := runRecord(name, id, in, cmd[0], started, out.Elapsed, ans.Say)
		keep := 0
		if a := b.Config.Assistants[name]; a != nil {
			keep = a.Keep
		}
		if err := storeRun(context.WithoutCancel(ctx), b.Root, name, rec, keep); err != nil {
			return o.fail(run, res, &snap, in.Kind, err.Error())
		}
		res.Record, res.Answer = "memories/"+name, ans.Say
	} else {
		ans.Say = ""
	}
	it, err := run.AnswerMarked([]byte(ans.Say), marks...)
	if err != nil {
		return nil, err
	}
	res.State = it.State
	if it.State == queue.Answered {
		for i := range job.Routes {
			res.Deliveries = append(res.Deliveries, fmt.Sprintf("%s.%d", id, i+1))
		}
	}
	return res, nil
}

// fail records a failed attempt: back to pending after a backoff when kind retries by
// itself and attempts remain, otherwise failed until the user retries or cancels it.
func (o Runner) fail(run *queue.Run, res *Result, snap *snapshot, kind, reason string) (*Result, error) {
	var it queue.Item
	var err error
	if snap != nil && slices.Contains(snap.Idempotent, kind) {
		it, err = run.FailRetrying(reason, snap.Retries)
	} else {
		it, err = run.Fail(reason)
	}
	if err != nil {
		return nil, err
	}
	res.State, res.Error = it.State, it.Error
	return res, nil
}

// wakeMark names the checkpoint of an assistant's wake in slot.
func wakeMark(name, slot string) string { return "wake:" + name + ":" + slot }

// writeContext writes the private context file of a run in the state folder's runs/ and
// returns its path.
func writeContext(state, id, name string, in Input) (string, error) {
	dir := filepath.Join(state, messaging.RunsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// The run's fields are Input's, but a harness always finds messages and args here ([]
	// when none), where the queue's saved Input omits them: the two encodings differ on
	// purpose, so the context document spells its fields out.
	doc := struct {
		Assistant string    `json:"assistant"`
		Job       string    `json:"job"`
		Kind      string    `json:"kind"`
		Schedule  string    `json:"schedule,omitempty"`
		Slot      string    `json:"slot,omitempty"`
		Start     string    `json:"start"`
		End       string    `json:"end"`
		Channel   string    `json:"channel,omitempty"`
		Messages  []Message `json:"messages"`
		Stdin     string    `json:"stdin,omitempty"`
		Args      []string  `json:"args"`
		Notice    string    `json:"notice"`
	}{name, id, in.Kind, in.Schedule, in.Slot, in.Start, in.End, in.Channel, in.Messages, in.Stdin, in.Args, evidence}
	if doc.Messages == nil {
		doc.Messages = []Message{}
	}
	if doc.Args == nil {
		doc.Args = []string{}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	file := messaging.ContextFile(state, id)
	if err := durable.WriteFile(file, append(data, '\n'), 0o600); err != nil {
		return "", err
	}
	return file, nil
}
