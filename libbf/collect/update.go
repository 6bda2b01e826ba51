package collect

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/store"
)

// Statuses of a program in bf update's reply.
const (
	statusDue       = "due"       // dry run: it would run
	statusCollected = "collected" // a sensor stored its records
	StatusFailed    = "failed"
)

// skippedUntrusted is why bf update passes over a brain that may not run programs here.
const skippedUntrusted = "not trusted to collect on this machine"

// UpdateReply is what bf update prints.
type UpdateReply struct {
	Brains []BrainUpdate `json:"brains"`
	DryRun bool          `json:"dry_run"`
	// OK is false when any program failed, the brain's records could not be recovered, or
	// the cache refresh failed or skipped files.
	OK bool `json:"ok"`
}

// BrainUpdate is one brain's part of an update.
type BrainUpdate struct {
	Brain string `json:"brain"`
	// Error says why nothing ran in this brain (records that could not be recovered).
	Error string `json:"error,omitempty"`
	// Index is the cache refresh after the runs (absent in a dry run or a skipped brain).
	Index *Index `json:"index,omitempty"`
	// Manual lists, in a dry run, the enabled programs that run only by hand.
	Manual   *Manual      `json:"manual,omitempty"`
	Routines []RoutineRun `json:"routines,omitempty"`
	Sensors  []SensorRun  `json:"sensors,omitempty"`
	// Assistants is what the assistants' cycle did after the programs (bf update runs
	// one), when the brain declares assistants.
	Assistants any `json:"assistants,omitempty"`
	// Embeddings is the embedding pass after the refresh, when bf.yaml declares a provider.
	Embeddings *Embeddings `json:"embeddings,omitempty"`
	// Skipped says why the brain was passed over.
	Skipped string `json:"skipped,omitempty"`
}

// Embeddings is what an update's embedding pass did.
type Embeddings struct {
	// Chunks counts the brain's distinct chunk texts.
	Chunks int `json:"chunks"`
	// Embedded counts the texts sent to the provider and stored.
	Embedded int `json:"embedded"`
	// Error says why the pass stopped; the vectors stored before are kept.
	Error string `json:"error,omitempty"`
	// Reused counts the texts whose vector the store already held.
	Reused int `json:"reused"`
}

// Index is the state of the search cache after an update.
type Index struct {
	Error    string          `json:"error,omitempty"`
	Problems []reply.Problem `json:"problems"`
	// State is ready, stale (another bf process held the cache; it refreshes on next use)
	// or failed.
	State string `json:"state"`
}

// Manual names the enabled programs without a refresh.
type Manual struct {
	Routines []string `json:"routines,omitempty"`
	Sensors  []string `json:"sensors,omitempty"`
}

// SensorRun is one sensor of an update. Counts are set once it collected.
type SensorRun struct {
	Added      *int        `json:"added,omitempty"`
	End        string      `json:"end"`
	Error      string      `json:"error,omitempty"`
	Incomplete *Incomplete `json:"incomplete,omitempty"`
	Records    *int        `json:"records,omitempty"`
	Removed    *int        `json:"removed,omitempty"`
	Sensor     string      `json:"sensor"`
	Start      string      `json:"start"`
	Status     string      `json:"status"`
	Unchanged  *int        `json:"unchanged,omitempty"`
	Updated    *int        `json:"updated,omitempty"`
}

// RoutineRun is one routine of an update.
type RoutineRun struct {
	Action  string `json:"action,omitempty"`
	End     string `json:"end"`
	Error   string `json:"error,omitempty"`
	Routine string `json:"routine"`
	Start   string `json:"start"`
	Status  string `json:"status"`
}

// Update runs, in brain b, every due sensor (by name), then every due routine (so routines
// see fresh records), then refreshes the search cache once. A program is due when it is
// enabled, has a refresh, and refresh seconds have passed since its last success (or it
// never succeeded); its window follows history.SensorDue and history.RoutineDue at the
// instant Update starts. A failing program never stops the others.
//
// Selectors (Options.Sensors, Options.Routines) restrict the programs considered; a name
// the brain does not declare fails with *reply.InputError before anything runs. A brain not
// trusted to collect here is skipped, which is not a failure. With DryRun nothing runs and
// nothing is written: the reply lists the due programs with their windows and the enabled
// manual ones.
//
// Before running, Update recovers an interrupted record transaction. The error return is
// for invalid input and cancellation; everything else is reported in the reply.
func Update(ctx context.Context, b *brain.Brain, opt Options) (*UpdateReply, error) {
	sensors, routines, err := selected(b, opt)
	if err != nil {
		return nil, err
	}
	out := &UpdateReply{DryRun: opt.DryRun, OK: true}
	bu := BrainUpdate{Brain: b.Name}
	r, err := newRunner(b, opt)
	if errors.Is(err, ErrUntrusted) {
		bu.Skipped = skippedUntrusted
		out.Brains = append(out.Brains, bu)
		return out, nil
	}
	if err != nil {
		bu.Error = err.Error()
		out.Brains, out.OK = append(out.Brains, bu), false
		return out, nil
	}
	now, loc := opt.now(), opt.loc()
	when := func(t time.Time) string { return reply.Local(history.Instant(t), loc) }
	h, _ := history.Load(r.env, b)

	if opt.DryRun {
		var manual Manual
		for _, name := range sensors {
			s := b.Config.Sensors[name]
			if w, due := history.SensorDue(s, h.Sensor(name), now); due {
				bu.Sensors = append(bu.Sensors, SensorRun{Sensor: name, Start: when(w.Start), End: when(w.End), Status: statusDue})
			} else if s.Enabled && s.Refresh == 0 {
				manual.Sensors = append(manual.Sensors, name)
			}
		}
		for _, name := range routines {
			rt := b.Config.Routines[name]
			if w, due := history.RoutineDue(rt, h.Routine(name), now); due {
				bu.Routines = append(bu.Routines, RoutineRun{Routine: name, Start: when(w.Start), End: when(w.End), Status: statusDue})
			} else if rt.Enabled && rt.Refresh == 0 {
				manual.Routines = append(manual.Routines, name)
			}
		}
		if manual.Sensors != nil || manual.Routines != nil {
			bu.Manual = &manual
		}
		out.Brains = append(out.Brains, bu)
		return out, nil
	}

	if err := store.Recover(ctx, b.Root); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		bu.Error = fmt.Sprintf("interrupted record writes could not be recovered, so nothing ran: %v", err)
		out.Brains, out.OK = append(out.Brains, bu), false
		return out, nil
	}
	for _, name := range sensors {
		w, due := history.SensorDue(b.Config.Sensors[name], h.Sensor(name), now)
		if !due {
			continue
		}
		run := SensorRun{Sensor: name, Start: when(w.Start), End: when(w.End), Status: statusCollected}
		res, err := r.sensor(ctx, name, w, false, false)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			run.Status, run.Error, out.OK = StatusFailed, err.Error(), false
		} else {
			c := res.counts
			run.Records, run.Added, run.Updated = ptr(res.records), ptr(c.Added), ptr(c.Updated)
			run.Unchanged, run.Removed, run.Incomplete = ptr(c.Unchanged), ptr(c.Removed), res.incomplete
		}
		bu.Sensors = append(bu.Sensors, run)
	}
	for _, name := range routines {
		w, due := history.RoutineDue(b.Config.Routines[name], h.Routine(name), now)
		if !due {
			continue
		}
		run := RoutineRun{Routine: name, Start: when(w.Start), End: when(w.End)}
		res, err := r.routine(ctx, name, w)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			run.Status, run.Error, out.OK = StatusFailed, err.Error(), false
		} else {
			run.Status, run.Action = res.status, res.action
		}
		bu.Routines = append(bu.Routines, run)
	}

	ix := &Index{State: "ready", Problems: []reply.Problem{}}
	st, err := refresh(ctx, b)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		ix.State, ix.Error, out.OK = StatusFailed, err.Error(), false
	default:
		if st.Stale {
			ix.State = "stale"
		}
		for _, p := range st.Problems {
			ix.Problems = append(ix.Problems, reply.Problem{Error: p.Error, File: p.File})
		}
		if len(ix.Problems) > 0 {
			out.OK = false
		}
	}
	bu.Index = ix
	out.Brains = append(out.Brains, bu)
	return out, nil
}

// selected returns the sensors and routines an update considers, by name: every declared
// one without selectors, else only those named. An undeclared name is invalid input.
func selected(b *brain.Brain, opt Options) (sensors, routines []string, err error) {
	cfg := b.Config
	if len(opt.Sensors) == 0 && len(opt.Routines) == 0 {
		return slices.Sorted(maps.Keys(cfg.Sensors)), slices.Sorted(maps.Keys(cfg.Routines)), nil
	}
	pick := func(names []string, declared func(string) bool, arg, section string) ([]string, error) {
		set := map[string]bool{}
		for _, n := range names {
			if !declared(n) {
				return nil, &reply.InputError{Argument: arg,
					Err: fmt.Errorf("%s is not declared in the %s of bf.yaml; bf status lists them", n, section)}
			}
			set[n] = true
		}
		return slices.Sorted(maps.Keys(set)), nil
	}
	if sensors, err = pick(opt.Sensors, func(n string) bool { return cfg.Sensors[n] != nil }, "sensor", "sensors"); err != nil {
		return nil, nil, err
	}
	if routines, err = pick(opt.Routines, func(n string) bool { return cfg.Routines[n] != nil }, "routine", "routines"); err != nil {
		return nil, nil, err
	}
	return sensors, routines, nil
}

func ptr(n int) *int { return &n }
