package assist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
)

// inputMark names the checkpoint of a channel's read input: where its admitted messages
// end. One read per channel serves every assistant that reads it.
func inputMark(ch string) string { return "read:" + ch }

// Report is what one cycle did.
type Report struct {
	// Admitted are the jobs admitted: due schedules, wakes and messages.
	Admitted []string `json:"admitted"`
	// Backlog is true when a read input stopped before catching up: poll again soon.
	Backlog bool `json:"backlog,omitempty"`
	// Delivered and Undelivered are the delivery attempts made, by ID.
	Delivered []string `json:"delivered"`
	// Errors are input reads and other steps that failed, one sentence each.
	Errors []string `json:"errors"`
	// Ran are the job attempts made.
	Ran []Result `json:"ran"`
	// Skipped are schedule slots a gate or when passed over, as ASSISTANT:SCHEDULE.
	Skipped     []string `json:"skipped"`
	Undelivered []string `json:"undelivered"`
}

// Did reports whether the cycle did any work.
func (r *Report) Did() bool {
	return len(r.Admitted)+len(r.Ran)+len(r.Delivered)+len(r.Undelivered) > 0
}

// Cycle is one pass of a worker over brain b's assistants (all, or those named in only):
// it records attempts of dead processes and requeues interrupted jobs of kinds that retry
// by themselves, admits due schedules and wakes, reads due read inputs, runs every ready
// job and attempts every due delivery. A failing step never stops the others; it is
// reported in Report.Errors and, for a read input, saved for bf status.
func (o Runner) Cycle(ctx context.Context, b *brain.Brain, only []string) (*Report, error) {
	rep := &Report{Admitted: []string{}, Skipped: []string{}, Ran: []Result{}, Delivered: []string{}, Undelivered: []string{}, Errors: []string{}}
	mo := messaging.Messenger{Env: o.Env, Queue: queue.Options{Now: o.Now}}
	q, state, err := mo.OpenQueue(b)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	names := selected(b, only)
	if err := o.requeue(b, q); err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	}
	now := o.now()
	for _, name := range names {
		a := b.Config.Assistants[name]
		if err := o.schedules(ctx, b, q, name, a, now, rep); err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
		if err := o.wakes(b, q, name, a, now, rep); err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	o.reads(ctx, b, q, state, names, now, rep)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := o.work(ctx, b, q, state, rep); err != nil {
		return rep, err
	}
	if err := o.deliver(ctx, b, q, mo, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// selected lists the enabled assistants of b by name, restricted to only when given.
func selected(b *brain.Brain, only []string) []string {
	var out []string
	if b.Config == nil {
		return out
	}
	for name, a := range b.Config.Assistants {
		if !a.Enabled {
			continue
		}
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// requeue makes interrupted jobs of run kinds that retry by themselves pending again.
func (o Runner) requeue(b *brain.Brain, q *queue.Queue) error {
	items, err := q.List()
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Type != "job" || it.State != queue.Uncertain {
			continue
		}
		a := b.Config.Assistants[it.Assistant]
		if a == nil || !a.Enabled || !a.Idempotent.Retries(it.Kind) {
			continue
		}
		if _, err := q.Requeue(it.ID, a.Retries); err != nil {
			return err
		}
	}
	return nil
}

// routes are where a schedule or wake run's answer goes: the post channel, if any.
func postRoutes(b *brain.Brain, a *config.Assistant) []queue.Route {
	if a.Post == "" {
		return nil
	}
	s, ok := sendOf(b.Config.Channels[a.Post])
	if !ok {
		return nil
	}
	return []queue.Route{{Channel: a.Post, Send: s}}
}

func (o Runner) schedules(ctx context.Context, b *brain.Brain, q *queue.Queue, name string, a *config.Assistant, now time.Time, rep *Report) error {
	if len(a.Schedules) == 0 {
		return nil
	}
	marks, err := q.Checkpoints("schedule:" + name + ":")
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(a.Schedules))
	for k := range a.Schedules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, sched := range keys {
		s := a.Schedules[sched]
		mark := ScheduleMark(name, sched)
		last := marks[mark].Position
		if s.At != "" && last.IsZero() {
			if err := q.Mark(queue.Mark{Name: mark, Progress: queue.Progress{Position: now}}); err != nil {
				return err
			}
			continue
		}
		slot, due := due(s, last, now)
		if !due {
			continue
		}
		start := last
		if start.IsZero() {
			start = slot.Add(-time.Duration(max(s.Every, 86400)) * time.Second)
		}
		in := Input{Kind: config.RunSchedule, Schedule: sched, Start: timestamp.Canonical(start), End: timestamp.Canonical(slot)}
		ok, err := o.gated(ctx, b, q, name, a, start, slot)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
		if !ok {
			rep.Skipped = append(rep.Skipped, name+":"+sched)
			if err := q.Mark(queue.Mark{Name: mark, Progress: queue.Progress{Position: slot}}); err != nil {
				return err
			}
			continue
		}
		id := jobID("s-", slot, name, sched)
		if err := o.admit(b, q, name, a, id, in, "", "", sched, postRoutes(b, a), rep, queue.Mark{Name: mark, Progress: queue.Progress{Position: slot}}); err != nil {
			return err
		}
	}
	return nil
}

func (o Runner) wakes(b *brain.Brain, q *queue.Queue, name string, a *config.Assistant, now time.Time, rep *Report) error {
	marks, err := q.Checkpoints("wake:" + name + ":")
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(marks))
	for k := range marks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, mark := range keys {
		at := marks[mark].Position
		if at.IsZero() || now.Before(at) {
			continue
		}
		slot := mark[len("wake:"+name+":"):]
		in := Input{Kind: config.RunWake, Slot: slot, Start: timestamp.Canonical(at), End: timestamp.Canonical(now)}
		id := jobID("w-", at, name, slot)
		if err := o.admit(b, q, name, a, id, in, "", "", slot, postRoutes(b, a), rep, queue.Mark{Name: mark}); err != nil {
			return err
		}
	}
	return nil
}

func (o Runner) admit(b *brain.Brain, q *queue.Queue, name string, a *config.Assistant, id string, in Input, ch, conv, sched string, routes []queue.Route, rep *Report, marks ...queue.Mark) error {
	cfg, err := configOf(b.Root, name, a)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(in)
	_, added, err := q.AdmitJobMarked(queue.NewJob{ID: id, Assistant: name, Kind: in.Kind, Channel: ch, Conversation: conv,
		Schedule: sched, Input: data, Config: cfg, MaxBytes: a.MaxBytes, Routes: routes}, marks...)
	if err != nil {
		return err
	}
	if added {
		rep.Admitted = append(rep.Admitted, id)
	}
	return nil
}

// gated reports whether a schedule run of [start, end) should start the harness: one of
// the declared when conditions must hold (each judged offline, from the brain's history and
// cache), then the gate program must allow it.
func (o Runner) gated(ctx context.Context, b *brain.Brain, q *queue.Queue, name string, a *config.Assistant, start, end time.Time) (bool, error) {
	if w := a.When; w != nil {
		h, _ := history.Load(o.env(), b)
		hold := false
		for _, s := range w.Sources {
			if c := h.Sensor(s).Changed; !c.IsZero() && !c.Before(start) {
				hold = true
			}
		}
		if w.Attention && len(history.Attention(b.Config, h, end)) > 0 {
			hold = true
		}
		var err error
		if !hold && w.Review {
			if hold, err = review(ctx, b, end); err != nil {
				return false, fmt.Errorf("assistant %s: when review: %w", name, err)
			}
		}
		if !hold && w.Actions {
			if hold, err = openAction(ctx, b, end); err != nil {
				return false, fmt.Errorf("assistant %s: when actions: %w", name, err)
			}
		}
		if !hold {
			return false, nil
		}
	}
	if len(a.Gate) == 0 {
		return true, nil
	}
	_, err := proc.Run(ctx, proc.Spec{Name: name + ".gate", Root: b.Root, Command: a.Gate,
		Vars: proc.Vars{Home: o.env().Home, Start: start, End: end}, Timeout: time.Duration(a.Timeout) * time.Second,
		MaxBytes: 1 << 20, Env: []string{"BF_BRAIN=" + b.Root}})
	var pe *proc.Error
	if errors.As(err, &pe) && pe.Kind == proc.Exit {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("assistant %s: gate: %w", name, err)
	}
	return true, nil
}

// reads polls every due read input of the selected assistants, one read per channel.
func (o Runner) reads(ctx context.Context, b *brain.Brain, q *queue.Queue, state string, names []string, now time.Time, rep *Report) {
	every := map[string]int{}
	readers := map[string][]string{}
	for _, name := range names {
		for _, in := range b.Config.Assistants[name].Inputs {
			if in.Mode != config.InputRead {
				continue
			}
			if e, ok := every[in.Channel]; !ok || in.Every < e {
				every[in.Channel] = in.Every
			}
			readers[in.Channel] = append(readers[in.Channel], name)
		}
	}
	chans := make([]string, 0, len(every))
	for ch := range every {
		chans = append(chans, ch)
	}
	sort.Strings(chans)
	for _, ch := range chans {
		err := o.read(ctx, b, q, ch, readers[ch], every[ch], now, rep)
		messaging.SaveInputError(state, ch, err, now)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
}

func (o Runner) read(ctx context.Context, b *brain.Brain, q *queue.Queue, ch string, readers []string, every int, now time.Time, rep *Report) error {
	mark := inputMark(ch)
	p, err := q.InputProgress(mark)
	if err != nil {
		return err
	}
	if p.Position.IsZero() {
		// The first activation starts at the current time.
		return q.Mark(queue.Mark{Name: mark, Progress: queue.Progress{Position: now}})
	}
	if now.Before(p.Position.Add(time.Duration(every) * time.Second)) {
		return nil
	}
	e, err := channel.Open(b, o.env().Home, ch)
	if err != nil {
		return err
	}
	jobs, err := o.messageJobs(b, ch, readers)
	if err != nil {
		return fmt.Errorf("channel %s: %w", ch, err)
	}
	admit := func(ctx context.Context, msgs []channel.Message, end time.Time) error {
		batch := queue.Batch{Channel: ch, Input: mark, Done: queue.Progress{Position: end}, Jobs: jobs}
		for _, m := range msgs {
			batch.Messages = append(batch.Messages, queue.Message(m))
		}
		res, err := q.AdmitMessages(batch)
		rep.Admitted = append(rep.Admitted, res.Jobs...)
		if err != nil {
			// As a stream's refused admission does, the error names its channel.
			return fmt.Errorf("channel %s: %w", ch, err)
		}
		return nil
	}
	res, err := channel.Poll(ctx, ch, channel.Window{Checkpoint: p.Position, End: now, Overlap: channel.ReadOverlap}, e.Read, admit)
	if res.Backlog {
		rep.Backlog = true
	}
	return err
}

// work runs every ready job once, oldest first, including those that become ready as the
// earlier jobs of their conversation or schedule are answered.
func (o Runner) work(ctx context.Context, b *brain.Brain, q *queue.Queue, state string, rep *Report) error {
	tried := map[string]bool{}
	for {
		ids, err := q.Ready()
		if err != nil {
			return err
		}
		fresh := 0
		for _, id := range ids {
			if tried[id] {
				continue
			}
			tried[id] = true
			fresh++
			res, err := o.Exec(ctx, b, q, state, id)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				if !errors.Is(err, queue.ErrNoAnswerSpace) && !errors.Is(err, queue.ErrInFlight) {
					rep.Errors = append(rep.Errors, fmt.Sprintf("job %s: %v", id, err))
				}
				continue
			}
			rep.Ran = append(rep.Ran, *res)
		}
		if fresh == 0 {
			return nil
		}
	}
}

// deliver attempts every due delivery once; a delivery a job just created is due at once.
func (o Runner) deliver(ctx context.Context, b *brain.Brain, q *queue.Queue, mo messaging.Messenger, rep *Report) error {
	for range 4 {
		ids, err := q.Due()
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			r, err := mo.Deliver(ctx, b, q, id)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			switch {
			case err != nil:
				rep.Errors = append(rep.Errors, fmt.Sprintf("delivery %s: %v", id, err))
			case r.Delivered():
				rep.Delivered = append(rep.Delivered, id)
			default:
				rep.Undelivered = append(rep.Undelivered, id)
			}
		}
	}
	return nil
}

// messageJobs returns the function that gives a new message of channel ch one job per
// assistant in readers, answering in the message's conversation. It reads every reader's
// prompt first and fails when one cannot be read: a message is then left unadmitted (a
// read keeps its checkpoint, a stream leaves it unacknowledged) and the failure becomes
// the channel's input error, rather than a message admitted that no job answers.
func (o Runner) messageJobs(b *brain.Brain, ch string, readers []string) (func(queue.Message) []queue.NewJob, error) {
	send, _ := sendOf(b.Config.Channels[ch])
	configs := make([][]byte, len(readers))
	for i, name := range readers {
		cfg, err := configOf(b.Root, name, b.Config.Assistants[name])
		if err != nil {
			return nil, fmt.Errorf("messages not admitted: %w", err)
		}
		configs[i] = cfg
	}
	return func(m queue.Message) []queue.NewJob {
		out := make([]queue.NewJob, 0, len(readers))
		for i, name := range readers {
			a := b.Config.Assistants[name]
			in := Input{Kind: config.RunMessage, Channel: ch, Start: timestamp.Canonical(m.Time), End: timestamp.Canonical(o.now()),
				Messages: []Message{{ID: m.ID, Sender: m.Sender, Conversation: m.Conversation, Time: timestamp.Canonical(m.Time), Text: m.Text, ReplyTo: m.ReplyTo}}}
			data, _ := json.Marshal(in)
			out = append(out, queue.NewJob{ID: jobID("m-", m.Time, name, ch, m.ID), Assistant: name, Kind: config.RunMessage,
				Channel: ch, Conversation: m.Conversation, Input: data, Config: configs[i], MaxBytes: a.MaxBytes,
				Routes: []queue.Route{{Channel: ch, Conversation: m.Conversation, ReplyTo: m.ID, Send: send}}})
		}
		return out
	}, nil
}
