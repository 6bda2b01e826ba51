// Package collect runs a brain's programs on this machine: bf collect (one sensor now) and
// bf update (every sensor, then every routine, that is due), recording each run in the
// machine's run history (package history) and refreshing the search cache afterwards.
//
// A run of a sensor goes: per-program lock (two runs of one program never overlap, on this
// machine), the program through package proc (argv, own process group, timeout, output
// cap, stderr to logs/NAME.log, BF_BRAIN set to the brain), the whole output parsed and
// checked (parseOutput), attributes.observed stamped with the run's start, one transaction
// through package store, then the history. Anything that fails before the commit stores
// nothing. A routine runs the same way; an action routine's Markdown becomes
// actions/YYYY-MM-DD_NAME/ACTION.md.
//
// Running anything needs collection trust (bf register --collect): Collect fails with
// ErrUntrusted, Update skips the brain. Invalid input (an unknown program, an invalid time
// or window) is a *reply.InputError naming the argument; every other failure is a plain
// error whose message names the program and, when the program ran, its log, and never
// quotes what the program printed.
package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/store"
	"github.com/bfgo/bf/libbf/timestamp"
)

// ErrUntrusted is the failure of running a program of a brain that may not run programs
// on this machine. It is a failure (exit 1), not invalid input.
var ErrUntrusted = errors.New("this brain may not run collectors here; trust it with bf register --collect")

// maxSamples is how many records a dry run returns.
const maxSamples = 3

// Options tune Collect and Update.
type Options struct {
	// Since and Until bound bf collect's window [Since, Until) (ParseTime forms); empty:
	// lookback seconds before now, and now.
	Since, Until string
	// DryRun: Collect runs the sensor and checks its output but stores nothing and records
	// no run; Update runs nothing and lists what is due.
	DryRun bool
	// AllowRemoval lets a bf collect snapshot run remove more records than the removal
	// guard of package store allows. Scheduled runs never set it.
	AllowRemoval bool
	// Sensors and Routines select the programs bf update considers; with neither, all of
	// them. Selecting never forces a run: only due programs run.
	Sensors, Routines []string
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Location is the zone of replies, of days in --since/--until and of action folder
	// dates; nil: time.Local.
	Location *time.Location
	// Env is the machine (state folder, trust, home); nil: brain.System().
	Env *brain.Env
}

func (o Options) now() time.Time { return timestamp.Clock(o.Now) }

func (o Options) loc() *time.Location { return timestamp.Zone(o.Location) }

func (o Options) env() brain.Env { return brain.EnvOrSystem(o.Env) }

// Reply is what bf collect prints: the sensor's record count and what the commit did, or
// for a dry run the count and up to maxSamples records as they would be stored.
type Reply struct {
	Added      int
	DryRun     bool
	Incomplete *Incomplete
	Records    int
	Removed    int
	Samples    []record.Record
	Sensor     string
	Unchanged  int
	Updated    int
}

// MarshalJSON prints {"added","incomplete"?,"records","removed","sensor","unchanged",
// "updated"}, or for a dry run {"incomplete"?,"records","samples","sensor"}.
func (r Reply) MarshalJSON() ([]byte, error) {
	if r.DryRun {
		samples := r.Samples
		if samples == nil {
			samples = []record.Record{}
		}
		return json.Marshal(struct {
			Incomplete *Incomplete     `json:"incomplete,omitempty"`
			Records    int             `json:"records"`
			Samples    []record.Record `json:"samples"`
			Sensor     string          `json:"sensor"`
		}{r.Incomplete, r.Records, samples, r.Sensor})
	}
	return json.Marshal(struct {
		Added      int         `json:"added"`
		Incomplete *Incomplete `json:"incomplete,omitempty"`
		Records    int         `json:"records"`
		Removed    int         `json:"removed"`
		Sensor     string      `json:"sensor"`
		Unchanged  int         `json:"unchanged"`
		Updated    int         `json:"updated"`
	}{r.Added, r.Incomplete, r.Records, r.Removed, r.Sensor, r.Unchanged, r.Updated})
}

// Collect runs sensor now over [Since, Until) (by default the last lookback seconds),
// whatever its refresh, stores its records and records the run; or, with DryRun, runs it
// and returns samples without storing or recording anything. The sensor must be declared
// and enabled, and the brain trusted to collect here (ErrUntrusted).
//
// A window that ends before the covered interval is a backfill: it never moves the point
// where scheduled runs resume (history.Entry.Succeed).
//
// When the records were stored but the cache refresh that follows failed, Collect returns
// the reply and an error saying so: the next search, read or bf build refreshes the cache.
func Collect(ctx context.Context, b *brain.Brain, sensor string, opt Options) (*Reply, error) {
	s := b.Config.Sensors[sensor]
	if s == nil {
		return nil, &reply.InputError{Argument: "sensor",
			Err: fmt.Errorf("no sensor of this brain is called %s; its bf.yaml declares %s", sensor, names(b.Config.Sensors))}
	}
	now, loc := opt.now(), opt.loc()
	w := history.Window{Start: now.Add(-time.Duration(s.Lookback) * time.Second), End: now}
	var err error
	if opt.Since != "" {
		if w.Start, err = ParseTime(opt.Since, now, loc); err != nil {
			return nil, &reply.InputError{Argument: "since", Err: err}
		}
	}
	if opt.Until != "" {
		if w.End, err = ParseTime(opt.Until, now, loc); err != nil {
			return nil, &reply.InputError{Argument: "until", Err: err}
		}
	}
	if !w.Start.Before(w.End) {
		return nil, &reply.InputError{Argument: "since", Err: errors.New("the window must start before it ends; pass an earlier --since or a later --until")}
	}
	if !s.Enabled {
		return nil, fmt.Errorf("sensor %s is disabled in bf.yaml; set enabled: true to collect it", sensor)
	}
	r, err := newRunner(b, opt)
	if err != nil {
		return nil, err
	}
	res, err := r.sensor(ctx, sensor, w, opt.DryRun, opt.AllowRemoval)
	if err != nil {
		return nil, err
	}
	out := &Reply{Sensor: sensor, Records: res.records, Incomplete: res.incomplete, DryRun: opt.DryRun}
	if opt.DryRun {
		out.Samples = res.samples
		return out, nil
	}
	c := res.counts
	out.Added, out.Updated, out.Unchanged, out.Removed = c.Added, c.Updated, c.Unchanged, c.Removed
	if _, err := refresh(ctx, b); err != nil {
		return out, fmt.Errorf("the records of %s were stored but the search cache could not be refreshed; the next search or bf build refreshes it: %w", sensor, err)
	}
	return out, nil
}

// runner runs the programs of one brain.
type runner struct {
	b     *brain.Brain
	env   brain.Env
	state string // the brain's state folder
	now   func() time.Time
	loc   *time.Location
}

// newRunner checks collection trust and opens the brain's state folder.
func newRunner(b *brain.Brain, opt Options) (*runner, error) {
	env := opt.env()
	if err := env.RequireTrust(b.Root, ErrUntrusted); err != nil {
		return nil, err
	}
	dir, err := env.BrainStateDir(b.ID)
	if err != nil {
		return nil, err
	}
	return &runner{b: b, env: env, state: dir, now: opt.now, loc: opt.loc()}, nil
}

// programLock keeps two runs of one program apart on this machine. Sensor and routine
// names never clash, so one lock name per program is enough.
func (r *runner) programLock(ctx context.Context, kind, name string) (*lock.Lock, error) {
	l, err := lock.AcquireOwned(ctx, r.state, "collect-"+name+".lock")
	if errors.Is(err, lock.ErrBusy) {
		return nil, fmt.Errorf("%s %s is already running on this machine; wait for it to finish", kind, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: cannot take its run lock in the state folder: %w", kind, name, err)
	}
	return l, nil
}

// spec is how proc runs a program of the brain.
func (r *runner) spec(name string, cmd config.Command, w history.Window, timeout int, maxBytes int64) proc.Spec {
	return proc.Spec{
		Name:     name,
		Root:     r.b.Root,
		Command:  cmd,
		Vars:     proc.Vars{Home: r.env.Home, Start: w.Start, End: w.End},
		Timeout:  time.Duration(timeout) * time.Second,
		MaxBytes: maxBytes,
		// Nested bf commands of the program then work on this brain.
		Env: []string{"BF_BRAIN=" + r.b.Root},
	}
}

// sensorResult is what one sensor run brought.
type sensorResult struct {
	records    int
	counts     store.Counts
	incomplete *Incomplete
	samples    []record.Record
}

// sensor runs sensor name over w. Unless dry, it stores the records and records the run in
// the history, a failure included.
func (r *runner) sensor(ctx context.Context, name string, w history.Window, dry, allowRemoval bool) (*sensorResult, error) {
	s := r.b.Config.Sensors[name]
	l, err := r.programLock(ctx, "sensor", name)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	started := r.now()
	log := proc.LogPath(name)
	fail := func(err error) (*sensorResult, error) {
		if !dry {
			r.recordFailure(ctx, history.Sensors, name, started, err, log)
		}
		return nil, err
	}
	res, err := proc.Run(ctx, r.spec(name, s.Command, w, s.Timeout, s.MaxBytes))
	if err != nil {
		return fail(fmt.Errorf("sensor %s failed: %w; nothing was written", name, err))
	}
	out, err := parseOutput(r.b.Config, name, res.Stdout)
	if err != nil {
		// The run itself ended well and its log entry says so; the log also says why bf
		// stored nothing. A log that cannot be written changes nothing of the outcome.
		_ = proc.Note(r.b.Root, name, "output refused: "+err.Error())
		return fail(fmt.Errorf("sensor %s printed output that cannot be stored: %w; nothing was written; see %s", name, err, log))
	}
	stamp := history.Instant(started)
	for i := range out.Records {
		rec := &out.Records[i]
		attrs := make(map[string]any, len(rec.Attributes)+1)
		for k, v := range rec.Attributes {
			attrs[k] = v
		}
		attrs[record.AttrObserved] = stamp
		rec.Attributes = attrs
	}
	result := &sensorResult{records: len(out.Records), incomplete: out.Incomplete}
	if dry {
		result.samples = out.Records[:min(len(out.Records), maxSamples)]
		return result, nil
	}
	counts, err := store.Commit(ctx, r.b.Root, name, out.Records, store.Options{
		Mode: s.Mode, AllowRemoval: allowRemoval, Observed: started, Wait: store.DefaultWait})
	if err != nil {
		return fail(fmt.Errorf("sensor %s: its records were not stored: %w", name, err))
	}
	result.counts = counts
	o := history.Outcome{
		Started: started, Start: w.Start, End: w.End, Reconcile: w.Reconcile, Log: log,
		Counts: history.Counts{Records: len(out.Records), Added: counts.Added, Updated: counts.Updated,
			Unchanged: counts.Unchanged, Removed: counts.Removed},
		Elapsed: res.Elapsed, OutputBytes: int64(len(res.Stdout)),
	}
	if out.Incomplete != nil {
		o.Incomplete, o.Missed = true, out.Incomplete.Missed
	}
	if _, err := history.Record(context.WithoutCancel(ctx), r.state, history.Sensors, name,
		func(e history.Entry) history.Entry { return e.Succeed(o) }); err != nil {
		return nil, fmt.Errorf("sensor %s: records were committed but local run history could not be saved; retry is safe: %w", name, err)
	}
	return result, nil
}

// recordFailure records a failed attempt. A run the caller cancelled is not the program's
// failure and leaves no trace; a history that cannot be saved loses only this attempt.
func (r *runner) recordFailure(ctx context.Context, k history.Kind, name string, started time.Time, err error, log string) {
	if ctx.Err() != nil {
		return
	}
	history.Record(ctx, r.state, k, name, func(e history.Entry) history.Entry {
		return e.Fail(started, err.Error(), log)
	})
}

// refresh brings the brain's search cache up to date, as a search would.
func refresh(ctx context.Context, b *brain.Brain) (cache.Status, error) {
	c, err := cache.Open(ctx, b)
	if err != nil {
		return cache.Status{}, err
	}
	st := c.Status
	return st, c.Close()
}

// names lists the keys of a program section for a message.
func names[V any](m map[string]V) string {
	keys := slices.Sorted(maps.Keys(m))
	if len(keys) == 0 {
		return "none"
	}
	out := ""
	for i, k := range keys {
		switch {
		case i == 0:
		case i == len(keys)-1:
			out += " and "
		default:
			out += ", "
		}
		out += k
	}
	return out
}
