package history

import (
	"time"

	"github.com/bfgo/bf/libbf/config"
)

// Limits of the due rules.
const (
	// catchUp bounds how far back a resumed window sensor reads after a pause.
	catchUp = 30 * 24 * time.Hour
	// firstRetry is the wait of a watch before retrying a program that failed once; it
	// doubles with every further consecutive failure, up to the program's refresh.
	firstRetry = time.Minute
)

// Outcome is what one run did, as the history records it.
type Outcome struct {
	// Started is the instant the run started: observed stamp, run and success instants.
	Started time.Time
	// Start and End are the run's window [Start, End).
	Start, End time.Time
	// Counts are the committed record counts (routines leave them zero).
	Counts Counts
	// Elapsed and OutputBytes measure the run.
	Elapsed     time.Duration
	OutputBytes int64
	// Reconcile is true when the window was widened to reconcile.
	Reconcile bool
	// Incomplete is true when the sensor reported items it missed; Missed counts them.
	Incomplete bool
	Missed     int
	// Log is the program's brain-relative log.
	Log string
	// Action is the ACTION.md an action routine wrote, or "".
	Action string
}

// Succeed returns e after a run that committed its output.
//
// A complete run over [s, e) is the latest when nothing was covered yet or e reaches the
// covered end: it then sets Success. Its window joins the covered interval when the two
// overlap or touch; a latest run that leaves a gap replaces the interval; an earlier run
// that leaves a gap (a backfill entirely before the interval) keeps it. So a backfill that
// ends before the interval changes neither the resume point nor freshness, and one that
// touches it extends the interval backwards without counting as a fresh success.
//
// An incomplete run records its counts and the attempt but leaves the interval, Success and
// the reconcile clock alone (see the package comment).
func (e Entry) Succeed(o Outcome) Entry {
	first := e.Changed.IsZero()
	e.Run = o.Started
	e.Error = ""
	e.Failures = 0
	e.Log = o.Log
	e.Counts = o.Counts
	e.Elapsed = o.Elapsed
	e.OutputBytes = o.OutputBytes
	e.Action = o.Action
	if o.Counts.Changes() > 0 || first {
		e.Changed = o.Started
	}
	if o.Incomplete {
		e.Incomplete++
		e.Missed = max(o.Missed, 0)
		return e
	}
	e.Incomplete, e.Missed = 0, 0
	// Nothing after the run's start can have been collected yet: a window reaching into the
	// future (bf collect --until tomorrow) covers up to the start only, or later runs,
	// which end at their own start, would never count as the latest.
	// A window wholly in the future covers nothing.
	if !o.Started.IsZero() && o.End.After(o.Started) {
		if !o.Start.Before(o.Started) {
			return e
		}
		o.End = o.Started
	}
	e.Reconcile = o.Reconcile
	if o.Reconcile || e.Reconciled.IsZero() {
		e.Reconciled = o.Started
	}
	latest := e.End.IsZero() || !o.End.Before(e.End)
	switch {
	case e.End.IsZero():
		e.Start, e.End = o.Start, o.End
	case !o.Start.After(e.End) && !o.End.Before(e.Start):
		e.Start, e.End = earliest(o.Start, e.Start), latestOf(o.End, e.End)
	case latest:
		e.Start, e.End = o.Start, o.End
	}
	if latest {
		e.Success = o.Started
	}
	return e
}

// Fail returns e after an attempt that started at started and failed with msg: the
// attempt, its error and the failure count change; coverage and Success stay.
func (e Entry) Fail(started time.Time, msg, log string) Entry {
	e.Run = started
	e.Error = msg
	e.Failures++
	if log != "" {
		e.Log = log
	}
	return e
}

// Window is a program's next window [Start, End).
type Window struct {
	Start, End time.Time
	// Reconcile is true when a window sensor's window was widened to reconcile.
	Reconcile bool
}

// paced is the instant refresh counts from: the last fresh success, or the last attempt
// when it completed but was incomplete.
func (e Entry) paced() time.Time {
	if !e.Failed() && e.Incomplete > 0 && e.Run.After(e.Success) {
		return e.Run
	}
	return e.Success
}

// NextDue is when a scheduled program is due again, ignoring failure backoff: at once
// (the zero time) when it never ran to completion, else refresh after the last success.
// Manual programs (refresh 0) are never due; NextDue returns the zero time for them too,
// so callers check the refresh first.
func NextDue(refresh int, e Entry) time.Time {
	last := e.paced()
	if refresh <= 0 || last.IsZero() {
		return time.Time{}
	}
	return last.Add(seconds(refresh))
}

// scheduled reports whether a program runs on its own: enabled with a refresh.
func scheduled(enabled bool, refresh int) bool { return enabled && refresh > 0 }

// SensorDue returns the window of sensor s at now and whether it is due: enabled, with a
// refresh, and refresh seconds past its last success (or never successful).
func SensorDue(s *config.Sensor, e Entry, now time.Time) (Window, bool) {
	if !scheduled(s.Enabled, s.Refresh) || now.Before(NextDue(s.Refresh, e)) {
		return Window{}, false
	}
	return sensorWindow(s, e, now), true
}

// sensorWindow is the window a scheduled run of s would read at now.
//
// Snapshot sensors read [now-lookback, now). A window sensor with a covered interval resumes
// overlap seconds before its end, but never further back than catchUp; without one it reads
// lookback. A window sensor with reconcile widens the window to reconcile.lookback once
// reconcile.refresh has passed since its last reconciliation.
func sensorWindow(s *config.Sensor, e Entry, now time.Time) Window {
	w := Window{Start: now.Add(-seconds(s.Lookback)), End: now}
	if s.Mode == config.ModeSnapshot {
		return w
	}
	if !e.End.IsZero() {
		if resumed := e.End.Add(-seconds(s.Overlap)); resumed.Before(now) {
			w.Start = latestOf(resumed, now.Add(-catchUp))
		}
	}
	if rc := s.Reconcile; rc != nil && !e.Reconciled.IsZero() &&
		!now.Before(e.Reconciled.Add(seconds(rc.Refresh))) {
		w.Start = earliest(w.Start, now.Add(-seconds(rc.Lookback)))
		w.Reconcile = true
	}
	return w
}

// RoutineDue returns the window of routine r at now and whether it is due, by the rules of
// SensorDue.
func RoutineDue(r *config.Routine, e Entry, now time.Time) (Window, bool) {
	if !scheduled(r.Enabled, r.Refresh) || now.Before(NextDue(r.Refresh, e)) {
		return Window{}, false
	}
	return RoutineWindow(r, e, now), true
}

// RoutineWindow is a routine's window at now: from its last success, or lookback seconds
// back when it never succeeded, to now.
func RoutineWindow(r *config.Routine, e Entry, now time.Time) Window {
	if !e.Success.IsZero() && e.Success.Before(now) {
		return Window{Start: e.Success, End: now}
	}
	return Window{Start: now.Add(-seconds(r.Lookback)), End: now}
}

// backoff is how long a watch waits after the last of failures consecutive failures before
// trying again: firstRetry, doubled per further failure, capped at refresh seconds (no cap
// for a manual program). No failure, no wait.
func backoff(failures, refresh int) time.Duration {
	if failures <= 0 {
		return 0
	}
	limit := time.Duration(1<<62 - 1)
	if refresh > 0 {
		limit = seconds(refresh)
	}
	d := firstRetry
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// RetryAt is when a watch may run a program again: NextDue, but for a program whose last
// attempt failed, the end of its backoff after that attempt.
func RetryAt(refresh int, e Entry) time.Time {
	if !e.Failed() || e.Run.IsZero() {
		return NextDue(refresh, e)
	}
	return e.Run.Add(backoff(e.Failures, refresh))
}

// Freshness values.
const (
	fresh   = "fresh"   // succeeded within twice its refresh
	Overdue = "overdue" // last success older than twice its refresh
	Never   = "never"   // never succeeded on this machine
	Manual  = "manual"  // no refresh: runs only by hand
	unknown = "unknown" // disabled, or no longer declared
)

// Coverage states of a source.
const (
	active     = "active"
	disabled   = "disabled"
	historical = "historical" // records remain but bf.yaml no longer declares the sensor
)

// Program is what the freshness rules need of a declared or vanished program.
type Program struct {
	// Declared is false for a source whose sensor bf.yaml no longer declares.
	Declared bool
	Enabled  bool
	Refresh  int
	// SilentAfter is a sensor's silent_after in seconds; 0 never flags it.
	SilentAfter int
}

// SensorProgram describes sensor s (nil: a historical source).
func SensorProgram(s *config.Sensor) Program {
	if s == nil {
		return Program{}
	}
	return Program{Declared: true, Enabled: s.Enabled, Refresh: s.Refresh, SilentAfter: s.SilentAfter}
}

// RoutineProgram describes routine r.
func RoutineProgram(r *config.Routine) Program {
	if r == nil {
		return Program{}
	}
	return Program{Declared: true, Enabled: r.Enabled, Refresh: r.Refresh}
}

// State is the coverage state of a source whose sensor is p.
func (p Program) State() string {
	switch {
	case !p.Declared:
		return historical
	case !p.Enabled:
		return disabled
	}
	return active
}

// Scheduled reports whether the program runs on its own.
func (p Program) Scheduled() bool { return p.Declared && scheduled(p.Enabled, p.Refresh) }

// Freshness rates the program's history at now: unknown when disabled or no longer
// declared, manual without a refresh, never without a success, overdue when the last
// success is older than twice the refresh, else fresh.
func (p Program) Freshness(e Entry, now time.Time) string {
	switch {
	case !p.Declared || !p.Enabled:
		return unknown
	case p.Refresh <= 0:
		return Manual
	case e.Success.IsZero():
		return Never
	case now.Sub(e.Success) > 2*seconds(p.Refresh):
		return Overdue
	}
	return fresh
}

// Silent reports a scheduled sensor with silent_after whose last attempt succeeded but
// that has brought no new, changed or removed record for longer than silent_after.
func (p Program) Silent(e Entry, now time.Time) bool {
	if !p.Scheduled() || p.SilentAfter <= 0 || e.Failed() || e.Success.IsZero() {
		return false
	}
	since := e.Changed
	if since.IsZero() {
		since = e.Success
	}
	return now.Sub(since) > seconds(p.SilentAfter)
}

// Flag is one program needing attention.
type Flag struct {
	Failed    bool
	Freshness string
	Silent    bool
}

// Attention returns why the program needs attention at now, and whether it does: a
// scheduled program that failed, is overdue, never succeeded or is silent. Manual, disabled
// and vanished programs never need attention.
func (p Program) Attention(e Entry, now time.Time) (Flag, bool) {
	if !p.Scheduled() {
		return Flag{}, false
	}
	f := Flag{Failed: e.Failed(), Freshness: p.Freshness(e, now), Silent: p.Silent(e, now)}
	return f, f.Failed || f.Silent || f.Freshness == Overdue || f.Freshness == Never
}

// seconds converts a configured number of seconds (at most a year) to a Duration.
func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func latestOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// ForTrust is the freshness a program shows in a brain that may not run programs on this
// machine (trusted false): one that never succeeded here is unknown rather than never,
// since nothing here would run it.
func ForTrust(freshness string, trusted bool) string {
	if !trusted && freshness == Never {
		return unknown
	}
	return freshness
}
