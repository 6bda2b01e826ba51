package watch

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Program statuses of a line.
const (
	statusFailed   = "failed"
	statusNever    = "never"
	statusDue      = "due"
	statusFresh    = "fresh"
	statusManual   = "manual"
	statusDisabled = "disabled"
	statusExcluded = "excluded"
	statusWaiting  = "waiting" // an assistant with nothing to do until its next slot
	statusOK       = "ok"      // a channel without a current error or unresolved delivery
)

// Line is what bf watch --json prints every poll interval.
type Line struct {
	Brain  string `json:"brain"`
	Cycles int    `json:"cycles"`
	// Last is what the last cycle did with assistants, when it did anything.
	Last     *assist.Report `json:"last,omitempty"`
	Message  string         `json:"message"`
	Observe  bool           `json:"observe,omitempty"`
	Programs []Program      `json:"programs"`
	Running  bool           `json:"running"`
}

// Program is one sensor, routine, assistant or channel in a line.
type Program struct {
	Action   string `json:"action,omitempty"`
	Error    string `json:"error"`
	Included bool   `json:"included"`
	Kind     string `json:"kind"`
	Log      string `json:"log"`
	Name     string `json:"name"`
	NextDue  string `json:"next_due"`
	Refresh  int    `json:"refresh,omitempty"`
	Status   string `json:"status"`
	Success  string `json:"success"`
	// Unresolved counts an assistant's failed and uncertain jobs, or a channel's failed
	// and uncertain deliveries. Error is then the newest one's error, unless a channel
	// has a current read or stream error (a refused admission, such as a full queue,
	// included), which comes first.
	Unresolved int `json:"unresolved,omitempty"`
	// Records counts a sensor's stored records, and Added, Updated and Removed what its
	// last successful run changed; null when unknown (routines, assistants, never run).
	Records *int `json:"records"`
	Added   *int `json:"added"`
	Updated *int `json:"updated"`
	Removed *int `json:"removed"`
}

func instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timestamp.Canonical(t)
}

func (w *watcher) emit() {
	if w.opt.Lines == nil && w.lock == nil {
		return
	}
	l := w.line()
	if w.lock != nil {
		w.publish(l)
	}
	if w.opt.Lines != nil {
		w.opt.Lines(l)
	}
}

func (w *watcher) line() Line {
	w.mu.Lock()
	b, running, message, last := w.brain, w.running, w.message, w.last
	errs := w.errors
	cycles, observe, seen, gone := w.cycles, w.opt.Observe, w.seen, w.gone
	w.mu.Unlock()
	if observe {
		// An observer shows the collecting watcher, not its own rereads.
		cycles, running, last = 0, false, nil
		if seen != nil {
			cycles, running, last = seen.Cycles, seen.Running, seen.Last
		}
		if gone && message == "" {
			message = msgNoCollector
		}
	}
	out := Line{Brain: b.Name, Cycles: cycles, Message: message, Observe: observe, Programs: []Program{}, Running: running}
	if last != nil && (last.Did() || len(last.Skipped)+len(last.Errors) > 0) {
		out.Last = last
	}
	if out.Message == "" && len(errs) > 0 {
		out.Message = errs[0]
	}
	now := w.opt.now()
	h, _ := history.Load(w.env, b)
	sel := len(w.opt.Sensors)+len(w.opt.Routines) == 0
	for _, name := range slices.Sorted(maps.Keys(b.Config.Sensors)) {
		s := b.Config.Sensors[name]
		e := h.Sensor(name)
		p := program("sensor", name, history.SensorProgram(s), e, s.Refresh, now, sel || slices.Contains(w.opt.Sensors, name))
		if !e.Success.IsZero() {
			c := e.Counts
			p.Records, p.Added, p.Updated, p.Removed = &c.Records, &c.Added, &c.Updated, &c.Removed
		}
		out.Programs = append(out.Programs, p)
	}
	for _, name := range slices.Sorted(maps.Keys(b.Config.Routines)) {
		r := b.Config.Routines[name]
		e := h.Routine(name)
		p := program("routine", name, history.RoutineProgram(r), e, r.Refresh, now, sel || slices.Contains(w.opt.Routines, name))
		p.Action = e.Action
		out.Programs = append(out.Programs, p)
	}
	unresolved := map[string]int{}
	failure := map[string]string{}
	var marks map[string]queue.Progress
	if q, err := queue.OpenReadOnly(w.state, queue.Options{}); err == nil {
		if s, err := q.Summary(); err == nil {
			for _, it := range s.Attention {
				if it.Type == "job" {
					unresolved[it.Assistant]++
					failure[it.Assistant] = it.Error // oldest first: the newest stays
				}
			}
		}
		marks, _ = q.Checkpoints("")
		q.Close()
	}
	for _, name := range slices.Sorted(maps.Keys(b.Config.Assistants)) {
		a := b.Config.Assistants[name]
		p := Program{Kind: "assistant", Name: name, Included: len(w.opt.Assistants) == 0 || slices.Contains(w.opt.Assistants, name),
			Unresolved: unresolved[name], Error: failure[name]}
		var next time.Time
		for sched, s := range a.Schedules {
			last := marks[assist.ScheduleMark(name, sched)].Position
			n := time.Time{}
			if !last.IsZero() {
				n = assist.Next(s, last)
			}
			if n.IsZero() {
				n = assist.Next(s, now)
			}
			if next.IsZero() || n.Before(next) {
				next = n
			}
		}
		for mark, pr := range marks {
			if len(mark) > len("wake:"+name+":") && mark[:len("wake:"+name+":")] == "wake:"+name+":" {
				if next.IsZero() || pr.Position.Before(next) {
					next = pr.Position
				}
			}
		}
		p.NextDue = instant(next)
		switch {
		case !a.Enabled:
			p.Status = statusDisabled
		case !p.Included:
			p.Status = statusExcluded
		case p.Unresolved > 0:
			p.Status = statusFailed
		case !next.IsZero() && !now.Before(next):
			p.Status = statusDue
		case len(a.Schedules) == 0 && len(a.Inputs) == 0:
			p.Status = statusManual
		default:
			p.Status = statusWaiting
		}
		out.Programs = append(out.Programs, p)
	}
	out.Programs = append(out.Programs, w.channels(b, &out)...)
	return out
}

// channels are the rows of b's channels: each one's current read or stream error and its
// unresolved deliveries, as the messaging block of bf status has them. A problem of the
// queue itself (an interrupted write, a refused binding) becomes the line's message when
// it has none.
func (w *watcher) channels(b *brain.Brain, out *Line) []Program {
	blk, _, err := messaging.Messenger{Env: w.opt.Env}.Block(context.Background(), b)
	sb, ok := blk.(*messaging.StatusBlock)
	if err != nil || !ok || sb == nil {
		return nil
	}
	if out.Message == "" && len(sb.Problems) > 0 {
		out.Message = sb.Problems[0].Error
	}
	var rows []Program
	for _, name := range slices.Sorted(maps.Keys(sb.Channels)) {
		ch := sb.Channels[name]
		p := Program{Kind: "channel", Name: name, Included: true, Status: statusOK, Unresolved: len(ch.Unresolved)}
		if n := len(ch.Unresolved); n > 0 {
			p.Status, p.Error = statusFailed, ch.Unresolved[n-1].Error
		}
		if ch.Error != nil {
			p.Status, p.Error = statusFailed, ch.Error.Error
		}
		rows = append(rows, p)
	}
	return rows
}

func program(kind, name string, p history.Program, e history.Entry, refresh int, now time.Time, included bool) Program {
	out := Program{Kind: kind, Name: name, Included: included, Refresh: refresh, Success: instant(e.Success), Error: e.Error, Log: e.Log}
	if p.Scheduled() {
		out.NextDue = instant(history.RetryAt(refresh, e))
	}
	switch {
	case !p.Enabled:
		out.Status = statusDisabled
	case !included:
		out.Status = statusExcluded
	case e.Failed():
		out.Status = statusFailed
	case refresh <= 0:
		out.Status = statusManual
	case e.Success.IsZero():
		out.Status = statusNever
	case !now.Before(history.NextDue(refresh, e)):
		out.Status = statusDue
	default:
		out.Status = statusFresh
	}
	return out
}
