package collect

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests run in a fixed zone two hours east of UTC; the clock starts on 2026-10-01 at
// 12:00 there and only moves when a test moves it.
var zone = time.FixedZone("CEST", 2*3600)

// fixture is a brain on a machine of its own, with a test clock.
type fixture struct {
	*brainfix.Brain
	t     *testing.T
	clock time.Time
}

func newFixture(t *testing.T, config string, trusted bool) *fixture {
	t.Helper()
	return &fixture{
		Brain: brainfix.New(t, brainfix.Spec{Config: config, Trusted: trusted}),
		t:     t,
		clock: time.Date(2026, 10, 1, 12, 0, 0, 0, zone),
	}
}

func (f *fixture) opt() Options {
	return Options{Env: &f.Env, Location: zone, Now: func() time.Time { return f.clock }}
}

// advance moves the clock forward.
func (f *fixture) advance(d time.Duration) { f.clock = f.clock.Add(d) }

func (f *fixture) collect(sensor string, mutate func(*Options)) (*Reply, error) {
	f.t.Helper()
	opt := f.opt()
	if mutate != nil {
		mutate(&opt)
	}
	return Collect(context.Background(), f.Open(), sensor, opt)
}

func (f *fixture) update(mutate func(*Options)) *UpdateReply {
	f.t.Helper()
	opt := f.opt()
	if mutate != nil {
		mutate(&opt)
	}
	r, err := Update(context.Background(), f.Open(), opt)
	if err != nil {
		f.t.Fatalf("update: %v", err)
	}
	return r
}

// stored lists the records of a source folder as id → title.
func (f *fixture) stored(source string) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(f.Root, "memories", source, "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.t.Fatal(err)
		}
		r, err := record.Parse(data)
		if err != nil {
			f.t.Fatal(err)
		}
		out[r.ID] = r.Title
	}
	return out
}

// history reads the brain's run history.
func (f *fixture) history() *history.History {
	f.t.Helper()
	h, err := history.Load(f.Env, f.Open())
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// stamp is a test instant as history and records store it.
func stamp(t time.Time) string { return history.Instant(t) }

// local is a test instant as replies show it.
func local(t time.Time) string { return reply.Local(history.Instant(t), zone) }

func printed(t *testing.T, v any) string { return brainfix.JSON(t, v) }

func jsonEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s\n got %s\nwant %s", what, got, want)
	}
}
