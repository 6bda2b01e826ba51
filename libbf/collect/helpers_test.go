package collect

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests run in a fixed zone two hours east of UTC; the clock starts on 2026-10-01 at
// 12:00 there and only moves when a test moves it.
var zone = time.FixedZone("CEST", 2*3600)

// fixture is a brain on a machine of its own: a temporary home holding the state folder.
type fixture struct {
	t     *testing.T
	env   brain.Env
	root  string
	clock time.Time
}

func newFixture(t *testing.T, config string, trusted bool) *fixture {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "PATH": os.Getenv("PATH")}
	f := &fixture{
		t:     t,
		env:   brain.Env{Home: home, Getenv: func(k string) string { return vars[k] }},
		root:  filepath.Join(home, "brain"),
		clock: time.Date(2026, 10, 1, 12, 0, 0, 0, zone),
	}
	f.write("bf.yaml", config, 0o644)
	if trusted {
		if err := f.env.Trust(f.root); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) write(rel, data string, mode os.FileMode) {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// script writes an executable shell program under the brain.
func (f *fixture) script(rel, body string) { f.write(rel, "#!/bin/sh\n"+body+"\n", 0o755) }

func (f *fixture) brain() *brain.Brain {
	f.t.Helper()
	b, err := f.env.Open(f.root)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

func (f *fixture) opt() Options {
	return Options{Env: &f.env, Location: zone, Now: func() time.Time { return f.clock }}
}

// advance moves the clock forward.
func (f *fixture) advance(d time.Duration) { f.clock = f.clock.Add(d) }

func (f *fixture) collect(sensor string, mutate func(*Options)) (*Reply, error) {
	f.t.Helper()
	opt := f.opt()
	if mutate != nil {
		mutate(&opt)
	}
	return Collect(context.Background(), f.brain(), sensor, opt)
}

func (f *fixture) update(mutate func(*Options)) *UpdateReply {
	f.t.Helper()
	opt := f.opt()
	if mutate != nil {
		mutate(&opt)
	}
	r, err := Update(context.Background(), f.brain(), opt)
	if err != nil {
		f.t.Fatalf("update: %v", err)
	}
	return r
}

// stored lists the records of a source folder as id → title.
func (f *fixture) stored(source string) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(f.root, "memories", source, "*.json"))
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
	h, err := history.Load(f.env, f.brain())
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// stamp is a test instant as history and records store it.
func stamp(t time.Time) string { return history.Instant(t) }

// local is a test instant as replies show it.
func local(t time.Time) string { return reply.Local(history.Instant(t), zone) }

func printed(t *testing.T, v any) string {
	t.Helper()
	b, err := reply.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s\n got %s\nwant %s", what, got, want)
	}
}
