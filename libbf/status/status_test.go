package status

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests run in a zone two hours east of UTC, on 2026-10-01 at 12:00 there.
var (
	zone = time.FixedZone("CEST", 2*3600)
	now  = time.Date(2026, 10, 1, 12, 0, 0, 0, zone)
)

const statusConfig = `version: 8
name: ops
sensors:
  cal:
    command: [sensors/cal]
    refresh: 3600
  feed:
    command: [sensors/feed]
    refresh: 3600
    silent_after: 86400
    mode: snapshot
  hand:
    command: [sensors/hand]
  off:
    command: [sensors/off]
    refresh: 3600
    enabled: false
routines:
  weekly:
    command: [routines/weekly]
    refresh: 604800
    output: action
  tidy:
    command: [routines/tidy]
`

type fixture struct {
	*brainfix.Brain
	t *testing.T
}

func newFixture(t *testing.T, trusted bool) *fixture {
	t.Helper()
	return &fixture{t: t, Brain: brainfix.New(t, brainfix.Spec{
		Folder:  "ops",
		Config:  statusConfig,
		Notes:   map[string]string{"projects/plan.md": "---\ntype: project\n---\n# Plan\n"},
		Records: map[string][]string{"cal": {`{"id":"c1","title":"T"}`, `{"id":"c2","title":"T"}`}, "gone": {`{"id":"g1","title":"T"}`}},
		Trusted: trusted,
	})}
}

func (f *fixture) runs(k history.Kind, entries map[string]history.Entry) {
	f.t.Helper()
	dir, err := f.Env.BrainStateDir(f.Open().ID)
	if err != nil {
		f.t.Fatal(err)
	}
	for name, e := range entries {
		if _, err := history.Record(context.Background(), dir, k, name, func(history.Entry) history.Entry { return e }); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) status(mutate func(*Options)) *Reply {
	f.t.Helper()
	opt := Options{Env: &f.Env, Now: func() time.Time { return now }, Location: zone}
	if mutate != nil {
		mutate(&opt)
	}
	r, err := Status(context.Background(), []*brain.Brain{f.Open()}, opt)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// ago is the test time minus h hours, in UTC.
func ago(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))).UTC() }

func printed(t *testing.T, v any) string { return brainfix.JSON(t, v) }

func TestStatusWithoutHistory(t *testing.T) {
	tests := []struct {
		name      string
		trusted   bool
		attention string
		healthy   bool
		// never is the freshness of a program that never succeeded: unknown where the
		// brain may not run programs.
		never string
	}{
		{"untrusted: nothing expected to run", false, `[]`, true, "unknown"},
		{"trusted: scheduled programs never ran", true,
			`[{"freshness":"never","sensor":"cal"},{"freshness":"never","sensor":"feed"},{"freshness":"never","routine":"weekly"}]`, false, "never"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.trusted)
			r := f.status(nil)
			want := `{"brains":[{"attention":` + tt.attention + `,"brain":"ops","collect":` + fmt.Sprint(tt.trusted) +
				`,"healthy":` + fmt.Sprint(tt.healthy) + `,"index":{"notes":1,"problems":[],"records":3,"state":"ready"},"path":"` + f.Root + `",` +
				`"routines":{"tidy":{"enabled":true,"freshness":"manual"},"weekly":{"enabled":true,"freshness":"` + tt.never + `"}},` +
				`"sources":{"cal":{"freshness":"` + tt.never + `","mode":"window","records":2,"state":"active"},` +
				`"feed":{"freshness":"` + tt.never + `","mode":"snapshot","records":0,"state":"active"},` +
				`"gone":{"freshness":"unknown","records":1,"state":"historical"},` +
				`"hand":{"freshness":"manual","mode":"window","records":0,"state":"active"},` +
				`"off":{"freshness":"unknown","mode":"window","records":0,"state":"disabled"}}}],"healthy":` + fmt.Sprint(tt.healthy) + `}`
			if got := printed(t, r); got != want {
				t.Errorf("status\n got %s\nwant %s", got, want)
			}
			if r.Check() != tt.healthy {
				t.Errorf("Check() = %v", r.Check())
			}
		})
	}
}

func TestStatusWithHistory(t *testing.T) {
	f := newFixture(t, true)
	counts := history.Counts{Records: 2, Added: 1, Unchanged: 1}
	cal := history.Entry{}.Succeed(history.Outcome{Started: ago(0.5), Start: ago(24.5), End: ago(0.5), Counts: counts, Log: "logs/cal.log"})
	cal = cal.Fail(ago(0.1), "cal exited with status 1; see logs/cal.log; nothing was written", "logs/cal.log")
	f.runs(history.Sensors, map[string]history.Entry{
		"cal": cal,
		// feed kept succeeding without change for two days: silent; its last run was incomplete.
		"feed": {Run: ago(0.5), Success: ago(2), Start: ago(3), End: ago(2), Changed: ago(50), Counts: history.Counts{Records: 4, Unchanged: 4},
			Log: "logs/feed.log", Incomplete: 1, Missed: 2},
		"off": history.Entry{}.Succeed(history.Outcome{Started: ago(100), Start: ago(101), End: ago(100), Log: "logs/off.log"}),
	})
	f.runs(history.Routines, map[string]history.Entry{
		"weekly": history.Entry{}.Succeed(history.Outcome{Started: ago(1), Start: ago(2), End: ago(1),
			Action: "actions/2026-10-01_weekly/ACTION.md", Log: "logs/weekly.log"}),
	})
	r := f.status(nil)
	local := func(t time.Time) string { return reply.Local(history.Instant(t), zone) }
	want := `{"brains":[{"attention":[{"failed":true,"freshness":"fresh","sensor":"cal"},{"freshness":"fresh","sensor":"feed","silent":true}],` +
		`"brain":"ops","collect":true,"healthy":false,"index":{"notes":1,"problems":[],"records":3,"state":"ready"},"path":"` + f.Root + `",` +
		`"routines":{"tidy":{"enabled":true,"freshness":"manual"},"weekly":{"action":"actions/2026-10-01_weekly/ACTION.md","enabled":true,` +
		`"freshness":"fresh","log":"logs/weekly.log","run":"` + local(ago(1)) + `","success":"` + local(ago(1)) + `"}},` +
		`"sources":{"cal":{"error":"cal exited with status 1; see logs/cal.log; nothing was written","failed":true,"freshness":"fresh",` +
		`"last_collected":"` + local(ago(0.5)) + `","last_run":{"added":1,"records":2,"removed":0,"unchanged":1,"updated":0},"log":"logs/cal.log",` +
		`"mode":"window","records":2,"run":"` + local(ago(0.1)) + `","state":"active","window":{"since":"` + local(ago(24.5)) + `","until":"` + local(ago(0.5)) + `"}},` +
		`"feed":{"freshness":"fresh","incomplete":{"missed":2},"last_collected":"` + local(ago(2)) + `",` +
		`"last_run":{"added":0,"records":4,"removed":0,"unchanged":4,"updated":0},"log":"logs/feed.log","mode":"snapshot","records":0,` +
		`"run":"` + local(ago(0.5)) + `","silent":true,"state":"active"},` +
		`"gone":{"freshness":"unknown","records":1,"state":"historical"},` +
		`"hand":{"freshness":"manual","mode":"window","records":0,"state":"active"},` +
		`"off":{"freshness":"unknown","last_collected":"` + local(ago(100)) + `","last_run":{"added":0,"records":0,"removed":0,"unchanged":0,"updated":0},` +
		`"log":"logs/off.log","mode":"window","records":0,"run":"` + local(ago(100)) + `","state":"disabled",` +
		`"window":{"since":"` + local(ago(101)) + `","until":"` + local(ago(100)) + `"}}}}],"healthy":false}`
	if got := printed(t, r); got != want {
		t.Errorf("status\n got %s\nwant %s", got, want)
	}
	if r.Check() {
		t.Error("Check() passed with programs needing attention")
	}
}

func TestStatusCheck(t *testing.T) {
	fine := func(f *fixture) {
		e := history.Entry{}.Succeed(history.Outcome{Started: ago(0.5), Start: ago(1), End: ago(0.5), Counts: history.Counts{Added: 1}})
		f.runs(history.Sensors, map[string]history.Entry{"cal": e, "feed": e})
		f.runs(history.Routines, map[string]history.Entry{"weekly": e})
	}
	tests := []struct {
		name    string
		setup   func(*fixture)
		opt     func(*Options)
		healthy bool // the whole reply
		brain   bool // the brain's own verdict
	}{
		{"everything fresh", fine, nil, true, true},
		{"an overdue routine", func(f *fixture) {
			fine(f)
			f.runs(history.Routines, map[string]history.Entry{"weekly": {Success: ago(24*14 + 1)}})
		}, nil, false, false},
		{"skipped files", func(f *fixture) {
			fine(f)
			f.Write("memories/cal/"+record.FileName("bad"), `{"id":"bad"}`)
		}, nil, false, false},
		{"a selection problem", fine, func(o *Options) {
			o.Problems = []brain.Problem{{Brain: "other", Error: "brain folder does not exist"}}
		}, false, true},
		{"messaging trouble", fine, func(o *Options) {
			o.Messaging = func(context.Context, *brain.Brain) (any, bool, error) { return map[string]int{"failed": 1}, false, nil }
		}, false, false},
		{"messaging that cannot be read", fine, func(o *Options) {
			o.Messaging = func(context.Context, *brain.Brain) (any, bool, error) {
				return nil, true, errors.New("queue unreadable")
			}
		}, false, false},
		{"healthy messaging", fine, func(o *Options) {
			o.Messaging = func(context.Context, *brain.Brain) (any, bool, error) { return map[string]int{"failed": 0}, true, nil }
		}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, true)
			tt.setup(f)
			r := f.status(tt.opt)
			if r.Check() != tt.healthy || r.Brains[0].Healthy != tt.brain {
				t.Errorf("healthy %v (brain %v), want %v (%v): %s", r.Check(), r.Brains[0].Healthy, tt.healthy, tt.brain, printed(t, r))
			}
		})
	}
}

func TestStatusMessagingBlock(t *testing.T) {
	f := newFixture(t, false)
	r := f.status(func(o *Options) {
		o.Messaging = func(context.Context, *brain.Brain) (any, bool, error) {
			return nil, false, errors.New("queue unreadable")
		}
	})
	b := r.Brains[0]
	if got, want := printed(t, b.Problems), `[{"error":"queue unreadable"}]`; got != want || b.Messaging != nil || b.Healthy {
		t.Errorf("problems %s messaging %v healthy %v; want %s", got, b.Messaging, b.Healthy, want)
	}
	r = f.status(func(o *Options) {
		o.Messaging = func(context.Context, *brain.Brain) (any, bool, error) { return map[string]int{"pending": 2}, true, nil }
	})
	if got := printed(t, r.Brains[0].Messaging); got != `{"pending":2}` || !r.Healthy {
		t.Errorf("messaging %s healthy %v", got, r.Healthy)
	}
}
