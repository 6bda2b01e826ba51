package collect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/reply"
)

const collectConfig = `version: 8
name: b
sensors:
  cal:
    command: [sensors/cal, "{{start}}", "{{end}}"]
    refresh: 3600
    lookback: 7200
  many:
    command: [sensors/many]
  broken:
    command: [sensors/broken]
  junk:
    command: [sensors/junk]
  off:
    command: [sensors/cal]
    enabled: false
  partial:
    command: [sensors/partial]
`

// newCollectFixture writes the sensors of collectConfig. cal prints one record whose title
// carries its window and whose text names the brain it was given.
func newCollectFixture(t *testing.T, trusted bool) *fixture {
	f := newFixture(t, collectConfig, trusted)
	f.Script("sensors/cal", `printf '[{"id":"c1","title":"window %s %s","text":"%s"}]' "$1" "$2" "$BF_BRAIN"`)
	f.Script("sensors/many", `echo '[{"id":"m1","title":"One"},{"id":"m2","title":"Two"},{"id":"m3","title":"Three"},{"id":"m4","title":"Four"}]'`)
	f.Script("sensors/broken", `echo 'provider said no' >&2; echo '[{"id":"x","title":"X"}]'; exit 3`)
	f.Script("sensors/junk", `echo '[{"id":"j1","title":"J"},{"id":"j2"}]'`)
	f.Script("sensors/partial", `echo '{"records":[{"id":"p1","title":"P"}],"incomplete":{"missed":2}}'`)
	return f
}

func TestCollect(t *testing.T) {
	f := newCollectFixture(t, true)
	start, end := f.clock.Add(-2*time.Hour), f.clock
	r, err := f.collect("cal", nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "reply", printed(t, r), `{"added":1,"records":1,"removed":0,"sensor":"cal","unchanged":0,"updated":0}`)
	want := map[string]string{"c1": "window " + stamp(start) + " " + stamp(end)}
	if diff := cmp.Diff(want, f.stored("cal")); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	wantEntry := history.Entry{Run: end.UTC(), Success: end.UTC(), Start: start.UTC(), End: end.UTC(), Log: "logs/cal.log",
		Counts: history.Counts{Records: 1, Added: 1}, Changed: end.UTC(), Reconciled: end.UTC()}
	got := f.history().Sensor("cal")
	if got.OutputBytes == 0 {
		t.Errorf("output bytes not recorded: %+v", got)
	}
	got.Elapsed, got.OutputBytes = 0, 0
	if diff := cmp.Diff(wantEntry, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}

	// Records already stored unchanged are counted, not rewritten.
	r, err = f.collect("many", nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "many", printed(t, r), `{"added":4,"records":4,"removed":0,"sensor":"many","unchanged":0,"updated":0}`)
	r, err = f.collect("many", nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "many again", printed(t, r), `{"added":0,"records":4,"removed":0,"sensor":"many","unchanged":4,"updated":0}`)
}

func TestCollectBrainAndObserved(t *testing.T) {
	f := newCollectFixture(t, true)
	if _, err := f.collect("cal", nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(f.Root, "memories", "cal", "*.json"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"attributes":{"observed":"` + stamp(f.clock) + `"},"id":"c1","text":"` + f.Root + `","title":"window ` +
		stamp(f.clock.Add(-2*time.Hour)) + ` ` + stamp(f.clock) + `"}` + "\n"
	jsonEqual(t, "record file", string(data), want)
}

func TestCollectDryRun(t *testing.T) {
	f := newCollectFixture(t, true)
	r, err := f.collect("many", func(o *Options) { o.DryRun = true })
	if err != nil {
		t.Fatal(err)
	}
	obs := `"attributes":{"observed":"` + stamp(f.clock) + `"}`
	jsonEqual(t, "dry run", printed(t, r), `{"records":4,"samples":[{`+obs+`,"id":"m1","title":"One"},{`+obs+
		`,"id":"m2","title":"Two"},{`+obs+`,"id":"m3","title":"Three"}],"sensor":"many"}`)
	if got := f.stored("many"); len(got) != 0 {
		t.Errorf("dry run stored %v", got)
	}
	if h := f.history(); len(h.Sensors) != 0 {
		t.Errorf("dry run recorded %+v", h.Sensors)
	}
	// A failing dry run records nothing either.
	if _, err := f.collect("broken", func(o *Options) { o.DryRun = true }); err == nil {
		t.Fatal("broken dry run succeeded")
	}
	if h := f.history(); len(h.Sensors) != 0 {
		t.Errorf("failed dry run recorded %+v", h.Sensors)
	}
}

func TestCollectIncomplete(t *testing.T) {
	f := newCollectFixture(t, true)
	r, err := f.collect("partial", nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "reply", printed(t, r),
		`{"added":1,"incomplete":{"missed":2},"records":1,"removed":0,"sensor":"partial","unchanged":0,"updated":0}`)
	e := f.history().Sensor("partial")
	if e.Incomplete != 1 || e.Missed != 2 || !e.Success.IsZero() || !e.End.IsZero() || !e.Run.Equal(f.clock) {
		t.Errorf("history %+v; want an incomplete run without coverage", e)
	}
	if got := f.stored("partial"); !cmp.Equal(got, map[string]string{"p1": "P"}) {
		t.Errorf("stored %v", got)
	}
}

func TestCollectBackfill(t *testing.T) {
	f := newCollectFixture(t, true)
	if _, err := f.collect("cal", nil); err != nil {
		t.Fatal(err)
	}
	first := f.history().Sensor("cal")
	f.advance(10 * time.Minute)
	if _, err := f.collect("cal", func(o *Options) { o.Since, o.Until = "2026-09-01", "2026-09-02" }); err != nil {
		t.Fatal(err)
	}
	e := f.history().Sensor("cal")
	if !e.Success.Equal(first.Success) || !e.End.Equal(first.End) || !e.Start.Equal(first.Start) || !e.Run.Equal(f.clock) {
		t.Errorf("backfill moved coverage or success: before %+v after %+v", first, e)
	}
	// Touching the covered interval extends it backwards, still without a fresh success.
	f.advance(10 * time.Minute)
	if _, err := f.collect("cal", func(o *Options) { o.Since, o.Until = "2026-09-30", stamp(first.Start) }); err != nil {
		t.Fatal(err)
	}
	e = f.history().Sensor("cal")
	if want := time.Date(2026, 9, 30, 0, 0, 0, 0, zone); !e.Start.Equal(want) || !e.Success.Equal(first.Success) {
		t.Errorf("touching backfill: %+v", e)
	}
}

func TestCollectErrors(t *testing.T) {
	tests := []struct {
		name    string
		trusted bool
		sensor  string
		opt     func(*Options)
		input   string // the argument of an invalid input error
		err     string // the whole message, or its start when it ends with …
		failed  bool   // the attempt is recorded in the history
	}{
		{name: "unknown sensor", trusted: true, sensor: "nope", input: "sensor",
			err: "invalid input: sensor: no sensor of this brain is called nope; its bf.yaml declares broken, cal, junk, many, off and partial"},
		{name: "invalid since", trusted: true, sensor: "cal", opt: func(o *Options) { o.Since = "2026-10" }, input: "since",
			err: "invalid input: since: " + errTime.Error()},
		{name: "invalid until", trusted: true, sensor: "cal", opt: func(o *Options) { o.Until = "soon" }, input: "until",
			err: "invalid input: until: " + errTime.Error()},
		{name: "window ending before it starts", trusted: true, sensor: "cal", opt: func(o *Options) { o.Since, o.Until = "today", "yesterday" },
			input: "since", err: "invalid input: since: the window must start before it ends; pass an earlier --since or a later --until"},
		{name: "disabled", trusted: true, sensor: "off", err: "sensor off is disabled in bf.yaml; set enabled: true to collect it"},
		{name: "untrusted", sensor: "cal", err: ErrUntrusted.Error()},
		{name: "program fails", trusted: true, sensor: "broken",
			err: "sensor broken failed: broken exited with status 3; see logs/broken.log; nothing was written", failed: true},
		{name: "invalid output", trusted: true, sensor: "junk",
			err: `sensor junk printed output that cannot be stored: record at index 1 (id "j2"): title: is required; nothing was written; see logs/junk.log`, failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCollectFixture(t, tt.trusted)
			r, err := f.collect(tt.sensor, tt.opt)
			if err == nil || r != nil {
				t.Fatalf("collect = %+v, %v; want an error", r, err)
			}
			if err.Error() != tt.err {
				t.Errorf("error\n got %s\nwant %s", err, tt.err)
			}
			var ie *reply.InputError
			if isInput := errors.As(err, &ie); isInput != (tt.input != "") || isInput && ie.Argument != tt.input {
				t.Errorf("input error %v, want argument %q", err, tt.input)
			}
			if (tt.name == "untrusted") != errors.Is(err, ErrUntrusted) {
				t.Errorf("errors.Is(ErrUntrusted) wrong for %v", err)
			}
			for _, src := range []string{"broken", "junk", "cal"} {
				if got := f.stored(src); len(got) != 0 {
					t.Errorf("%s stored %v", src, got)
				}
			}
			if !tt.trusted {
				return
			}
			e := f.history().Sensor(tt.sensor)
			if tt.failed {
				want := history.Entry{Run: f.clock.UTC(), Error: tt.err, Failures: 1, Log: "logs/" + tt.sensor + ".log"}
				if diff := cmp.Diff(want, e); diff != "" {
					t.Errorf("history (-want +got):\n%s", diff)
				}
			} else if !cmp.Equal(e, history.Entry{}) {
				t.Errorf("history %+v, want none", e)
			}
		})
	}
}

func TestCollectLocked(t *testing.T) {
	f := newCollectFixture(t, true)
	dir, err := f.Env.BrainStateDir(f.Open().ID)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Acquire(context.Background(), dir, "collect-cal.lock", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = f.collect("cal", nil)
	if err == nil || err.Error() != "sensor cal is already running on this machine; wait for it to finish" {
		t.Errorf("collect while running: %v", err)
	}
	if h := f.history(); len(h.Sensors) != 0 {
		t.Errorf("a refused run left history: %+v", h.Sensors)
	}
}
