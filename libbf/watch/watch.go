// Package watch is bf watch: one collecting watcher per brain that, cycle after cycle,
// runs the brain's due sensors and routines, its assistants' due schedules, wakes, input
// reads, queued jobs and deliveries, and keeps its stream inputs running, until it is
// stopped. It prints what it sees as JSON lines (Line) every poll interval.
//
// Only one watcher collects per brain: it holds the lock watch.lock in the brain's state
// folder. A second JSON watcher fails; an interactive one observes (it reads history and
// the queue, never runs anything).
package watch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
	"github.com/bfgo/bf/libbf/vector"
)

// ErrOwned is a JSON watcher started while another watcher collects for the brain.
var ErrOwned = errors.New("another watcher owns this brain; stop it first, or run bf status to observe")

// backlogDelay is how soon a watch polls its inputs again while a read input has a
// backlog left (channel.Poll stopped before the end of its window).
const backlogDelay = time.Second

// Options tune Run.
type Options struct {
	// Env is the machine; nil: brain.System().
	Env *brain.Env
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Interval is the pause after each cycle; PollInterval how often a line is printed.
	// Zero: the brain's watch settings.
	Interval, PollInterval time.Duration
	// Sensors, Routines and Assistants restrict what runs; none: everything.
	Sensors, Routines, Assistants []string
	// Observe reads and reports without running anything (a second, interactive watcher):
	// the collecting watcher's cycles, and that none collects once it stopped.
	Observe bool
	// TakeOver makes an observer collect once the watcher it observes has stopped (a
	// second bf watch; bf status --watch never collects).
	TakeOver bool
	// Cycles, when positive, stops the watcher after that many cycles (tests and one-shot
	// runs); 0 runs until ctx ends.
	Cycles int
	// Lines receives each status line; Warn each warning (one sentence).
	Lines func(Line)
	Warn  func(string)
	// Notify sends desktop notifications; nil: none.
	Notify *Notifier
	// Paused, when set and true, holds new cycles (an observer still rereads).
	Paused func() bool
	// Check starts a cycle (an observer: a reread) at once when it receives.
	Check <-chan struct{}
}

func (o Options) now() time.Time { return timestamp.Clock(o.Now) }

func (o Options) env() brain.Env { return brain.EnvOrSystem(o.Env) }

// Run watches the brain at b.Root until ctx ends (or Cycles cycles ran). It returns
// ErrOwned when another watcher collects and Observe is false. Stopping lets the active
// cycle end: running harnesses and sends are stopped and recorded as interrupted.
func Run(ctx context.Context, b *brain.Brain, opt Options) error {
	env := opt.env()
	state, err := env.BrainStateDir(b.ID)
	if err != nil {
		return err
	}
	w := &watcher{opt: opt, env: env, root: b.Root, brain: b, state: state, wake: make(chan struct{}, 1),
		streams: map[string]*stream{}}
	if !opt.Observe {
		l, err := lock.AcquireOwned(ctx, state, lockName)
		if errors.Is(err, lock.ErrBusy) {
			return ErrOwned
		}
		if err != nil {
			return fmt.Errorf("cannot take the watch lock in the state folder: %w", err)
		}
		w.lock = l
	}
	defer func() {
		if w.lock != nil {
			w.unpublish()
			w.lock.Release()
		}
	}()
	defer w.stopStreams()
	defer keepFresh(ctx, b, opt.Warn)()
	return w.loop(ctx)
}

type stream struct {
	readers string
	cancel  context.CancelFunc
	done    chan struct{}
}

type watcher struct {
	opt   Options
	env   brain.Env
	root  string
	state string

	mu      sync.Mutex
	brain   *brain.Brain
	running bool
	message string
	last    *assist.Report
	errors  []string
	cycles  int

	wake    chan struct{}
	streams map[string]*stream
	q       *queue.Queue

	lock *lock.Lock // the watch lock, held while collecting
	seen *collector // observing: the collecting watcher's last published state
	gone bool       // observing: no watcher collects
}

func (w *watcher) loop(ctx context.Context) error {
	poll := w.pollInterval()
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		if w.opt.Observe {
			w.observe(ctx)
		}
		switch {
		case w.opt.Observe:
			w.reload()
			w.cycles++
		case w.opt.Paused != nil && w.opt.Paused():
			w.reload()
		default:
			w.cycle(ctx)
			w.cycles++
		}
		w.emit()
		if ctx.Err() != nil {
			return nil
		}
		if w.opt.Cycles > 0 && w.cycles >= w.opt.Cycles {
			return nil
		}
		wait := w.interval()
		if w.last != nil && w.last.Backlog {
			wait = backlogDelay
		}
		timer := time.NewTimer(wait)
	idle:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil
			case <-w.wake:
				timer.Stop()
				break idle
			case <-w.opt.Check:
				timer.Stop()
				break idle
			case <-timer.C:
				break idle
			case <-ticker.C:
				w.emit()
			}
		}
	}
}

func (w *watcher) interval() time.Duration {
	if w.opt.Interval > 0 {
		return w.opt.Interval
	}
	if b := w.current(); b != nil && b.Config != nil && b.Config.Watch.Interval > 0 {
		return time.Duration(b.Config.Watch.Interval) * time.Second
	}
	return 60 * time.Second
}

func (w *watcher) pollInterval() time.Duration {
	if w.opt.PollInterval > 0 {
		return w.opt.PollInterval
	}
	if b := w.current(); b != nil && b.Config != nil && b.Config.Watch.PollInterval > 0 {
		return time.Duration(b.Config.Watch.PollInterval * float64(time.Second))
	}
	return 2 * time.Second
}

func (w *watcher) current() *brain.Brain {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.brain
}

// reload reads bf.yaml again: program settings apply from the next cycle. A bf.yaml that
// does not load keeps the previous settings, and the cycle runs nothing.
func (w *watcher) reload() bool {
	b, err := w.env.Open(w.root)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.message = fmt.Sprintf("bf.yaml does not load, so nothing runs until it does: %v", err)
		return false
	}
	w.brain = b
	w.message = ""
	return true
}

func (w *watcher) cycle(ctx context.Context) {
	if !w.reload() {
		return
	}
	b := w.current()
	w.setRunning(true)
	defer w.setRunning(false)
	var errs []string
	// Sensors and routines that are due and not backing off after a failure.
	sensors, routines := w.duePrograms(b)
	if len(sensors)+len(routines) > 0 {
		res, err := collect.Update(ctx, b, collect.Options{Sensors: sensors, Routines: routines, Now: w.opt.Now, Env: w.opt.Env})
		if err != nil && ctx.Err() == nil {
			errs = append(errs, err.Error())
		}
		if res != nil && !res.OK {
			errs = append(errs, updateErrors(res)...)
		}
	}
	if ctx.Err() != nil {
		return
	}
	ao := assist.Runner{Env: w.opt.Env, Now: w.opt.Now}
	if len(b.Config.Assistants) > 0 {
		rep, err := ao.Cycle(ctx, b, w.opt.Assistants)
		if err != nil && ctx.Err() == nil {
			errs = append(errs, err.Error())
		}
		if rep != nil {
			errs = append(errs, rep.Errors...)
			w.mu.Lock()
			w.last = rep
			w.mu.Unlock()
		}
		w.superviseStreams(ctx, b, ao)
	}
	// Then the chunks waiting for vectors, when bf.yaml declares a provider: text is
	// searchable at once and the dense strategy catches up here.
	if b.Config.Embeddings != nil && ctx.Err() == nil {
		if _, err := vector.Embed(ctx, b); err != nil && ctx.Err() == nil {
			errs = append(errs, "embeddings: "+err.Error())
		}
	}
	w.mu.Lock()
	w.errors = errs
	w.mu.Unlock()
	if w.opt.Notify != nil {
		w.opt.Notify.cycle(b.Root, errs, w.last != nil && w.last.Did(), w.opt.Warn)
	}
}

func (w *watcher) setRunning(v bool) {
	w.mu.Lock()
	w.running = v
	w.mu.Unlock()
	if v {
		w.emit()
	}
}

// duePrograms lists the selected sensors and routines that are due now and whose failure
// backoff (1, 2, 4 … minutes, capped at their refresh) has passed.
func (w *watcher) duePrograms(b *brain.Brain) (sensors, routines []string) {
	h, _ := history.Load(w.env, b)
	now := w.opt.now()
	noneSelected := len(w.opt.Sensors)+len(w.opt.Routines) == 0
	for name, s := range b.Config.Sensors {
		if !(noneSelected || slices.Contains(w.opt.Sensors, name)) {
			continue
		}
		e := h.Sensor(name)
		if _, due := history.SensorDue(s, e, now); due && !now.Before(history.RetryAt(s.Refresh, e)) {
			sensors = append(sensors, name)
		}
	}
	for name, r := range b.Config.Routines {
		if !(noneSelected || slices.Contains(w.opt.Routines, name)) {
			continue
		}
		e := h.Routine(name)
		if _, due := history.RoutineDue(r, e, now); due && !now.Before(history.RetryAt(r.Refresh, e)) {
			routines = append(routines, name)
		}
	}
	return sensors, routines
}

func updateErrors(res *collect.UpdateReply) []string {
	var out []string
	for _, bu := range res.Brains {
		if bu.Error != "" {
			out = append(out, bu.Error)
		}
		for _, s := range bu.Sensors {
			if s.Error != "" {
				out = append(out, s.Error)
			}
		}
		for _, r := range bu.Routines {
			if r.Error != "" {
				out = append(out, r.Error)
			}
		}
		if bu.Index != nil && bu.Index.Error != "" {
			out = append(out, bu.Index.Error)
		}
	}
	return out
}

// superviseStreams starts a stream for every channel a selected assistant reads as a
// stream, restarts one whose readers changed, and stops those no longer used.
func (w *watcher) superviseStreams(ctx context.Context, b *brain.Brain, ao assist.Runner) {
	want := assist.Streams(b, w.opt.Assistants)
	for ch, s := range w.streams {
		if r, ok := want[ch]; !ok || fmt.Sprint(r) != s.readers {
			s.cancel()
			<-s.done
			delete(w.streams, ch)
		}
	}
	if len(want) == 0 {
		return
	}
	if w.q == nil {
		q, _, err := messaging.Messenger{Env: w.opt.Env, Queue: queue.Options{Now: w.opt.Now}}.OpenQueue(b)
		if err != nil {
			w.warn(err.Error())
			return
		}
		w.q = q
	}
	for ch, readers := range want {
		if _, ok := w.streams[ch]; ok {
			continue
		}
		sctx, cancel := context.WithCancel(ctx)
		s := &stream{readers: fmt.Sprint(readers), cancel: cancel, done: make(chan struct{})}
		w.streams[ch] = s
		go func(ch string, readers []string) {
			defer close(s.done)
			err := ao.Stream(sctx, b, w.q, w.state, ch, readers, func() {
				select {
				case w.wake <- struct{}{}:
				default:
				}
			})
			if err != nil && sctx.Err() == nil {
				messaging.SaveInputError(w.state, ch, err, w.opt.now())
				w.warn(err.Error())
			}
		}(ch, readers)
	}
}

func (w *watcher) stopStreams() {
	for ch, s := range w.streams {
		s.cancel()
		<-s.done
		delete(w.streams, ch)
	}
	if w.q != nil {
		w.q.Close()
	}
}

func (w *watcher) warn(msg string) {
	if w.opt.Warn != nil {
		w.opt.Warn(msg)
	}
}
