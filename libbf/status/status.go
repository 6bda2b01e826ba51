// Package status answers bf status: per brain, whether it may run programs here, the state
// of its search cache, each source's coverage and last run, each routine's last run, and
// what needs attention; and bf status --check, the same judgement as one yes or no.
//
// Status only reads. It never runs a program or contacts a provider; it opens the search
// cache as a search would (which brings the cache up to date) and reads this machine's run
// history (package history) without creating anything.
//
// Attention counts only brains trusted to collect on this machine: elsewhere nothing is
// expected to run, so a program that never ran there is no fault of the machine. Each
// entry is an enabled program with a refresh (or an assistant with a schedule) that failed,
// is overdue, never succeeded here or went silent.
package status

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/reply"
)

// Cache states.
const (
	indexReady       = "ready"       // up to date with the brain's files
	indexStale       = "stale"       // another bf process held the brain: the previous generation was read
	indexUnavailable = "unavailable" // the cache could not be opened; Error says why
)

// Options tune Status.
type Options struct {
	// Env is the machine (trust, state folder); nil: brain.System().
	Env *brain.Env
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Location is the zone replies show instants in; nil: time.Local.
	Location *time.Location
	// Problems are the brains the selection skipped; each makes the reply unhealthy.
	Problems []brain.Problem
	// Messaging, when set, adds each brain's messaging block (channels and the queue) and
	// says whether it is healthy. An error becomes a problem of the brain.
	Messaging func(ctx context.Context, b *brain.Brain) (block any, healthy bool, err error)
}

// Reply is what bf status prints.
type Reply struct {
	Brains []Brain `json:"brains"`
	// Healthy is true when every brain is healthy and the selection skipped none.
	Healthy  bool            `json:"healthy"`
	Problems []reply.Problem `json:"problems,omitempty"`
}

// Check is bf status --check: true when everything is healthy. It is false when a program
// needs attention, a cache is not ready or skipped files, a brain or its run history could
// not be read, messaging reports trouble, or the selection skipped a brain.
func (r *Reply) Check() bool { return r.Healthy }

// Brain is one brain's status.
type Brain struct {
	Attention []Attention `json:"attention"`
	Brain     string      `json:"brain"`
	// Collect is true when the brain may run its programs on this machine.
	Collect bool  `json:"collect"`
	Healthy bool  `json:"healthy"`
	Index   Index `json:"index"`
	// Messaging is the block Options.Messaging returned, if any.
	Messaging any    `json:"messaging,omitempty"`
	Path      string `json:"path"`
	// Problems are what could not be read besides the cache: trust, run history, messaging.
	Problems []reply.Problem    `json:"problems,omitempty"`
	Routines map[string]Routine `json:"routines"`
	Sources  map[string]Source  `json:"sources"`
}

// Index summarises the search cache.
type Index struct {
	Error    string          `json:"error,omitempty"`
	Notes    *int            `json:"notes,omitempty"`
	Problems []reply.Problem `json:"problems"`
	Records  *int            `json:"records,omitempty"`
	State    string          `json:"state"`
}

// Source is one source's coverage and last run on this machine.
type Source struct {
	Error         string          `json:"error,omitempty"`
	Failed        bool            `json:"failed,omitempty"`
	Freshness     string          `json:"freshness"`
	Incomplete    *Incomplete     `json:"incomplete,omitempty"`
	LastCollected string          `json:"last_collected,omitempty"`
	LastRun       *history.Counts `json:"last_run,omitempty"`
	Log           string          `json:"log,omitempty"`
	Mode          string          `json:"mode,omitempty"`
	Records       *int            `json:"records,omitempty"`
	Run           string          `json:"run,omitempty"`
	Silent        bool            `json:"silent,omitempty"`
	State         string          `json:"state"`
	Window        *reply.Window   `json:"window,omitempty"`
}

// Incomplete is the report of a last run that missed items.
type Incomplete struct {
	Missed int `json:"missed"`
}

// Routine is one routine's last run on this machine.
type Routine struct {
	Action    string `json:"action,omitempty"`
	Enabled   bool   `json:"enabled"`
	Error     string `json:"error,omitempty"`
	Failed    bool   `json:"failed,omitempty"`
	Freshness string `json:"freshness"`
	Log       string `json:"log,omitempty"`
	Run       string `json:"run,omitempty"`
	Success   string `json:"success,omitempty"`
}

// Attention is one program or channel needing attention; exactly one of Assistant,
// Channel, Routine and Sensor is set. Programs carry their freshness; a channel carries
// how many of its deliveries failed or are uncertain.
type Attention struct {
	Assistant  string `json:"assistant,omitempty"`
	Channel    string `json:"channel,omitempty"`
	Failed     bool   `json:"failed,omitempty"`
	Freshness  string `json:"freshness,omitempty"`
	Routine    string `json:"routine,omitempty"`
	Sensor     string `json:"sensor,omitempty"`
	Silent     bool   `json:"silent,omitempty"`
	Unresolved int    `json:"unresolved,omitempty"`
}

// channelNeeds is implemented by a messaging block that can name the channels holding
// unresolved deliveries, with how many each holds, and those failing to read or stream,
// so attention lists them beside the programs: {"channel","failed"?,"unresolved"?}.
type channelNeeds interface {
	UnresolvedByChannel() map[string]int
	// FailingChannels names the channels with a current read or stream error.
	FailingChannels() map[string]bool
}

// assistantNeeds is implemented by a messaging block that can name the assistants holding
// failed or uncertain jobs, with how many each holds.
type assistantNeeds interface {
	UnresolvedByAssistant() map[string]int
}

// Status reports on brains, in order. It fails only when ctx ends; whatever cannot be read
// is reported in the reply and makes it unhealthy.
func Status(ctx context.Context, brains []*brain.Brain, opt Options) (*Reply, error) {
	env := brain.System()
	if opt.Env != nil {
		env = *opt.Env
	}
	now := time.Now()
	if opt.Now != nil {
		now = opt.Now()
	}
	loc := opt.Location
	if loc == nil {
		loc = time.Local
	}
	out := &Reply{Brains: []Brain{}, Healthy: len(opt.Problems) == 0}
	for _, p := range opt.Problems {
		out.Problems = append(out.Problems, reply.Problem{Brain: p.Brain, Error: p.Error, File: p.File})
	}
	for _, b := range brains {
		s, err := brainStatus(ctx, b, env, now, loc, opt)
		if err != nil {
			return nil, err
		}
		out.Healthy = out.Healthy && s.Healthy
		out.Brains = append(out.Brains, s)
	}
	return out, nil
}

func brainStatus(ctx context.Context, b *brain.Brain, env brain.Env, now time.Time, loc *time.Location, opt Options) (Brain, error) {
	out := Brain{Brain: b.Name, Path: b.Root, Attention: []Attention{}, Routines: map[string]Routine{}, Sources: map[string]Source{}}
	problem := func(err error) {
		out.Problems = append(out.Problems, reply.Problem{Error: strings.ReplaceAll(err.Error(), b.Root, "<brain>")})
	}
	trusted, err := env.Trusted(b.Root)
	if err != nil {
		problem(fmt.Errorf("cannot tell whether this brain may run programs here: %w", err))
	}
	out.Collect = trusted
	h, err := history.Load(env, b)
	if err != nil {
		problem(err)
	}
	counts, err := index(ctx, b, &out.Index)
	if ctx.Err() != nil {
		return Brain{}, ctx.Err()
	}
	if err != nil {
		out.Index.State, out.Index.Error = indexUnavailable, strings.ReplaceAll(err.Error(), b.Root, "<brain>")
	}
	when := func(t time.Time) string { return reply.Local(history.Instant(t), loc) }
	cfg := b.Config
	if cfg == nil {
		cfg = &config.Config{}
	}

	names := map[string]bool{}
	for n := range counts {
		names[n] = true
	}
	for n := range cfg.Sensors {
		names[n] = true
	}
	for n := range names {
		if _, ok := cfg.Assistants[n]; ok {
			continue // an assistant's run records, not a sensor's source
		}
		s := cfg.Sensors[n]
		e := h.Sensor(n)
		c := history.Coverage(n, s, e, now)
		c.Present(loc)
		src := Source{
			Error: e.Error, Failed: c.Failed, Freshness: history.ForTrust(c.Freshness, trusted), LastCollected: c.LastCollected,
			Log: e.Log, Mode: c.Mode, Run: when(e.Run), State: c.State, Window: c.Window,
			Silent: history.SensorProgram(s).Silent(e, now),
		}
		if counts != nil {
			records := counts[n]
			src.Records = &records
		}
		if !e.Changed.IsZero() {
			last := e.Counts
			src.LastRun = &last
		}
		if e.Incomplete > 0 {
			src.Incomplete = &Incomplete{Missed: e.Missed}
		}
		out.Sources[n] = src
	}
	for n, rt := range cfg.Routines {
		e := h.Routine(n)
		p := history.RoutineProgram(rt)
		out.Routines[n] = Routine{
			Action: e.Action, Enabled: rt.Enabled, Error: e.Error, Failed: e.Failed(),
			Freshness: history.ForTrust(p.Freshness(e, now), trusted), Log: e.Log, Run: when(e.Run), Success: when(e.Success),
		}
	}
	if trusted {
		for _, need := range history.Attention(cfg, h, now) {
			a := Attention{Failed: need.Failed, Freshness: need.Freshness, Silent: need.Silent}
			switch need.Kind {
			case history.KindSensor:
				a.Sensor = need.Name
			case history.KindRoutine:
				a.Routine = need.Name
			default:
				a.Assistant = need.Name
			}
			out.Attention = append(out.Attention, a)
		}
	}

	messaging := true
	if opt.Messaging != nil {
		block, healthy, err := opt.Messaging(ctx, b)
		if ctx.Err() != nil {
			return Brain{}, ctx.Err()
		}
		if err != nil {
			problem(err)
		}
		out.Messaging, messaging = block, healthy && err == nil
		if needs, ok := block.(assistantNeeds); ok {
			byAssistant := needs.UnresolvedByAssistant()
			names := make([]string, 0, len(byAssistant))
			for name := range byAssistant {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				out.Attention = append(out.Attention, Attention{Assistant: name, Failed: true, Unresolved: byAssistant[name]})
			}
		}
		if needs, ok := block.(channelNeeds); ok {
			byChannel, failing := needs.UnresolvedByChannel(), needs.FailingChannels()
			names := make([]string, 0, len(byChannel))
			for name, n := range byChannel {
				if n > 0 && !failing[name] {
					names = append(names, name)
				}
			}
			for name := range failing {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				out.Attention = append(out.Attention, Attention{Channel: name, Failed: failing[name], Unresolved: byChannel[name]})
			}
		}
	}
	out.Healthy = out.Index.State == indexReady && len(out.Index.Problems) == 0 &&
		len(out.Attention) == 0 && len(out.Problems) == 0 && messaging
	return out, nil
}

// index opens the brain's cache, as a search would, and fills ix; it returns the record
// count of each indexed source.
func index(ctx context.Context, b *brain.Brain, ix *Index) (map[string]int, error) {
	ix.State, ix.Problems = indexReady, []reply.Problem{}
	c, err := cache.Open(ctx, b)
	if err != nil {
		return nil, err
	}
	defer func() { c.Close() }()
	// Status checks every page of the cache: a damaged one is discarded and rebuilt, as a
	// search that met it would do, so "ready" is the truth.
	if err := c.Check(ctx); err != nil {
		c.Close()
		if !cache.Heal(ctx, []*brain.Brain{b}, err) {
			return nil, err
		}
		if c, err = cache.Open(ctx, b); err != nil {
			return nil, err
		}
	}
	if c.Status.Stale {
		ix.State = indexStale
	}
	for _, p := range c.Status.Problems {
		ix.Problems = append(ix.Problems, reply.Problem{Error: p.Error, File: p.File})
	}
	db := c.DB()
	var notes int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE kind = ?`, cache.KindNote).Scan(&notes); err != nil {
		return nil, fmt.Errorf("cannot read the search cache in .bf; run bf build: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT source, count(*) FROM items WHERE kind = ? GROUP BY source`, cache.KindRecord)
	if err != nil {
		return nil, fmt.Errorf("cannot read the search cache in .bf; run bf build: %w", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	records := 0
	for rows.Next() {
		var source string
		var n int
		if err := rows.Scan(&source, &n); err != nil {
			return nil, fmt.Errorf("cannot read the search cache in .bf; run bf build: %w", err)
		}
		counts[source] = n
		records += n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the search cache in .bf; run bf build: %w", err)
	}
	ix.Notes, ix.Records = &notes, &records
	return counts, nil
}
