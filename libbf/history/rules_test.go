package history

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/config"
)

// at is a fixed instant plus h hours; tests never read the clock.
func at(h float64) time.Time {
	return time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
}

func covered(start, end float64) Entry {
	return Entry{Start: at(start), End: at(end), Success: at(end), Changed: at(end), Reconciled: at(end)}
}

func TestSucceedCoverage(t *testing.T) {
	tests := []struct {
		name        string
		before      Entry
		start, end  float64
		wantStart   float64
		wantEnd     float64
		wantSuccess bool // Success moves to the run's start
	}{
		{"first run", Entry{}, -24, 0, -24, 0, true},
		{"overlapping later run joins", covered(-48, -24), -25, 0, -48, 0, true},
		{"touching later run joins", covered(-48, -24), -24, 0, -48, 0, true},
		{"later run after a gap replaces", covered(-48, -24), -10, 0, -10, 0, true},
		{"run ending at the covered end is the latest", covered(-48, -24), -30, -24, -48, -24, true},
		{"backfill before a gap keeps coverage", covered(-48, -24), -100, -60, -48, -24, false},
		{"backfill touching extends backwards", covered(-48, -24), -100, -48, -100, -24, false},
		{"backfill overlapping extends backwards", covered(-48, -24), -100, -30, -100, -24, false},
		{"run inside the interval changes nothing", covered(-48, -24), -40, -30, -48, -24, false},
		{"wider run covers both sides", covered(-48, -24), -60, -12, -60, -12, true},
		{"a window into the future covers up to the run's start", covered(-48, -24), -30, 30, -48, 1, true},
		{"a window wholly in the future covers nothing", covered(-48, -24), 5, 30, -48, -24, false},
	}
	run := at(1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.before.Succeed(Outcome{Started: run, Start: at(tt.start), End: at(tt.end)})
			if !got.Start.Equal(at(tt.wantStart)) || !got.End.Equal(at(tt.wantEnd)) {
				t.Errorf("coverage [%v, %v), want [%v, %v)", got.Start, got.End, at(tt.wantStart), at(tt.wantEnd))
			}
			wantSuccess := tt.before.Success
			if tt.wantSuccess {
				wantSuccess = run
			}
			if !got.Success.Equal(wantSuccess) {
				t.Errorf("success %v, want %v", got.Success, wantSuccess)
			}
			if !got.Run.Equal(run) || got.Error != "" || got.Failures != 0 {
				t.Errorf("attempt not recorded as a success: %+v", got)
			}
		})
	}
}

func TestSucceedRecordsRun(t *testing.T) {
	counts := Counts{Records: 3, Added: 1, Updated: 1, Unchanged: 1}
	failed := covered(-48, -24).Fail(at(-1), "program exited with status 1; nothing was written; see logs/cal.log", "logs/cal.log")
	failed.Failures = 3
	tests := []struct {
		name   string
		before Entry
		out    Outcome
		want   Entry
	}{
		{
			name:   "first success starts the silence and reconcile clocks",
			before: Entry{Run: at(-2), Error: "failed", Failures: 2},
			out: Outcome{Started: at(0), Start: at(-24), End: at(0), Counts: Counts{Records: 0},
				Elapsed: 2 * time.Second, OutputBytes: 2, Log: "logs/cal.log"},
			want: Entry{Run: at(0), Success: at(0), Start: at(-24), End: at(0), Log: "logs/cal.log",
				Elapsed: 2 * time.Second, OutputBytes: 2, Reconciled: at(0), Changed: at(0)},
		},
		{
			name:   "a run without changes keeps the silence clock",
			before: covered(-48, -24),
			out:    Outcome{Started: at(0), Start: at(-25), End: at(0), Counts: Counts{Records: 2, Unchanged: 2}},
			want: Entry{Run: at(0), Success: at(0), Start: at(-48), End: at(0), Changed: at(-24), Reconciled: at(-24),
				Counts: Counts{Records: 2, Unchanged: 2}},
		},
		{
			name:   "changes move the silence clock; a failure streak ends",
			before: failed,
			out:    Outcome{Started: at(0), Start: at(-25), End: at(0), Counts: counts, Log: "logs/cal.log"},
			want: Entry{Run: at(0), Success: at(0), Start: at(-48), End: at(0), Changed: at(0), Reconciled: at(-24),
				Counts: counts, Log: "logs/cal.log"},
		},
		{
			name:   "a reconciling run moves the reconcile clock",
			before: covered(-48, -24),
			out:    Outcome{Started: at(0), Start: at(-200), End: at(0), Reconcile: true},
			want: Entry{Run: at(0), Success: at(0), Start: at(-200), End: at(0), Changed: at(-24), Reconciled: at(0),
				Reconcile: true},
		},
		{
			name:   "an incomplete run records counts but no coverage or success",
			before: covered(-48, -24),
			out:    Outcome{Started: at(0), Start: at(-25), End: at(0), Counts: counts, Incomplete: true, Missed: 4},
			want: Entry{Run: at(0), Success: at(-24), Start: at(-48), End: at(-24), Changed: at(0), Reconciled: at(-24),
				Counts: counts, Incomplete: 1, Missed: 4},
		},
		{
			name:   "a complete run clears the incomplete streak",
			before: Entry{Run: at(-1), Incomplete: 2, Missed: 4, Changed: at(-1)},
			out:    Outcome{Started: at(0), Start: at(-24), End: at(0)},
			want:   Entry{Run: at(0), Success: at(0), Start: at(-24), End: at(0), Changed: at(-1), Reconciled: at(0)},
		},
		{
			name:   "an action routine names its action",
			before: Entry{},
			out:    Outcome{Started: at(0), Start: at(-24), End: at(0), Action: "actions/2026-10-01_weekly/ACTION.md"},
			want: Entry{Run: at(0), Success: at(0), Start: at(-24), End: at(0), Changed: at(0), Reconciled: at(0),
				Action: "actions/2026-10-01_weekly/ACTION.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.before.Succeed(tt.out)); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFail(t *testing.T) {
	before := covered(-48, -24)
	before.Counts = Counts{Records: 2}
	before.Log = "logs/cal.log"
	tests := []struct {
		name   string
		before Entry
		log    string
		want   Entry
	}{
		{"keeps coverage and success", before, "logs/cal.log", func() Entry {
			e := before
			e.Run, e.Error, e.Failures = at(0), "timed out", 1
			return e
		}()},
		{"counts consecutive failures", Entry{Run: at(-1), Error: "x", Failures: 4}, "", Entry{Run: at(0), Error: "timed out", Failures: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.before.Fail(at(0), "timed out", tt.log)); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func sensor(mutate func(*config.Sensor)) *config.Sensor {
	s := &config.Sensor{Program: config.Program{Enabled: true, Refresh: 3600, Lookback: 86400}, Overlap: 300, Mode: config.ModeWindow}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func TestSensorDue(t *testing.T) {
	now := at(0)
	reconcile := func(s *config.Sensor) { s.Reconcile = &config.Reconcile{Refresh: 7 * 86400, Lookback: 30 * 86400} }
	tests := []struct {
		name   string
		sensor *config.Sensor
		entry  Entry
		due    bool
		want   Window
	}{
		{"disabled", sensor(func(s *config.Sensor) { s.Enabled = false }), Entry{}, false, Window{}},
		{"manual", sensor(func(s *config.Sensor) { s.Refresh = 0 }), Entry{}, false, Window{}},
		{"never ran: lookback", sensor(nil), Entry{}, true, Window{Start: at(-24), End: now}},
		{"succeeded within refresh", sensor(nil), covered(-30, -0.5), false, Window{}},
		{"exactly refresh after success", sensor(nil), covered(-30, -1), true,
			Window{Start: at(-1).Add(-300 * time.Second), End: now}},
		{"failed attempts stay due", sensor(nil), Entry{Run: at(-0.1), Error: "x", Failures: 1}, true,
			Window{Start: at(-24), End: now}},
		{"resumes before the covered end by overlap", sensor(nil), covered(-30, -2), true,
			Window{Start: at(-2).Add(-300 * time.Second), End: now}},
		{"catch-up is capped at 30 days", sensor(nil), covered(-2000, -1000), true,
			Window{Start: now.Add(-catchUp), End: now}},
		{"a covered end ahead of now reads lookback", sensor(nil),
			Entry{Start: at(-10), End: at(5), Success: at(-2)}, true, Window{Start: at(-24), End: now}},
		{"snapshot always reads lookback", sensor(func(s *config.Sensor) { s.Mode = config.ModeSnapshot }),
			covered(-30, -2), true, Window{Start: at(-24), End: now}},
		{"reconcile widens once its refresh passed", sensor(reconcile),
			Entry{Start: at(-30), End: at(-2), Success: at(-2), Reconciled: at(-7 * 24)}, true,
			Window{Start: at(-30 * 24), End: now, Reconcile: true}},
		{"reconcile waits for its refresh", sensor(reconcile),
			Entry{Start: at(-30), End: at(-2), Success: at(-2), Reconciled: at(-7*24 + 1)}, true,
			Window{Start: at(-2).Add(-300 * time.Second), End: now}},
		{"reconcile starts with the first success", sensor(reconcile), Entry{}, true,
			Window{Start: at(-24), End: now}},
		{"reconcile never narrows a wider catch-up", sensor(func(s *config.Sensor) {
			s.Reconcile = &config.Reconcile{Refresh: 3600, Lookback: 3600}
		}), Entry{Start: at(-30), End: at(-10), Success: at(-10), Reconciled: at(-10)}, true,
			Window{Start: at(-10).Add(-300 * time.Second), End: now, Reconcile: true}},
		{"an incomplete run is paced like a success", sensor(nil),
			Entry{Run: at(-0.5), Incomplete: 1, Start: at(-30), End: at(-2), Success: at(-2)}, false, Window{}},
		{"an incomplete run resumes from the old interval", sensor(nil),
			Entry{Run: at(-1.5), Incomplete: 1, Start: at(-30), End: at(-2), Success: at(-2)}, true,
			Window{Start: at(-2).Add(-300 * time.Second), End: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, due := SensorDue(tt.sensor, tt.entry, now)
			if due != tt.due {
				t.Fatalf("due %v, want %v", due, tt.due)
			}
			if diff := cmp.Diff(tt.want, w); diff != "" {
				t.Errorf("window (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoutineDue(t *testing.T) {
	now := at(0)
	r := &config.Routine{Program: config.Program{Enabled: true, Refresh: 86400, Lookback: 3600}}
	tests := []struct {
		name    string
		routine *config.Routine
		entry   Entry
		due     bool
		want    Window
	}{
		{"manual", &config.Routine{Program: config.Program{Enabled: true, Lookback: 3600}}, Entry{}, false, Window{}},
		{"disabled", &config.Routine{Program: config.Program{Refresh: 60, Lookback: 3600}}, Entry{}, false, Window{}},
		{"never ran: lookback", r, Entry{}, true, Window{Start: at(-1), End: now}},
		{"not yet", r, Entry{Success: at(-23), Run: at(-23)}, false, Window{}},
		{"from the last success", r, Entry{Success: at(-30), Run: at(-30)}, true, Window{Start: at(-30), End: now}},
		{"a failure keeps the last success", r, Entry{Success: at(-30), Run: at(-1), Error: "x", Failures: 1}, true,
			Window{Start: at(-30), End: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, due := RoutineDue(tt.routine, tt.entry, now)
			if due != tt.due {
				t.Fatalf("due %v, want %v", due, tt.due)
			}
			if diff := cmp.Diff(tt.want, w); diff != "" {
				t.Errorf("window (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		failures, refresh int
		want              time.Duration
	}{
		{0, 3600, 0},
		{1, 3600, time.Minute},
		{2, 3600, 2 * time.Minute},
		{3, 3600, 4 * time.Minute},
		{7, 3600, 60 * time.Minute},
		{100, 3600, 60 * time.Minute},
		{3, 90, 90 * time.Second},
		{1, 30, 30 * time.Second},
		{4, 0, 8 * time.Minute},
		{200, 0, time.Duration(1<<62 - 1)},
	}
	for _, tt := range tests {
		if got := backoff(tt.failures, tt.refresh); got != tt.want {
			t.Errorf("Backoff(%d, %d) = %v, want %v", tt.failures, tt.refresh, got, tt.want)
		}
	}
}

func TestRetryAt(t *testing.T) {
	tests := []struct {
		name  string
		entry Entry
		want  time.Time
	}{
		{"never ran", Entry{}, time.Time{}},
		{"success: refresh later", Entry{Run: at(0), Success: at(0)}, at(1)},
		{"third failure waits 4 minutes", Entry{Run: at(0), Success: at(-5), Error: "x", Failures: 3}, at(0).Add(4 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RetryAt(3600, tt.entry); !got.Equal(tt.want) {
				t.Errorf("RetryAt = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFreshness(t *testing.T) {
	now := at(0)
	scheduled := Program{Declared: true, Enabled: true, Refresh: 3600}
	tests := []struct {
		name    string
		program Program
		entry   Entry
		want    string
		state   string
	}{
		{"historical", Program{}, Entry{Success: at(-1)}, unknown, historical},
		{"disabled", Program{Declared: true, Refresh: 3600}, Entry{Success: at(-1)}, unknown, disabled},
		{"manual", Program{Declared: true, Enabled: true}, Entry{}, Manual, active},
		{"manual that ran", Program{Declared: true, Enabled: true}, Entry{Success: at(-1000)}, Manual, active},
		{"never", scheduled, Entry{}, Never, active},
		{"only failures", scheduled, Entry{Run: at(-1), Error: "x"}, Never, active},
		{"fresh", scheduled, Entry{Success: at(-1.5)}, fresh, active},
		{"fresh at exactly twice refresh", scheduled, Entry{Success: at(-2)}, fresh, active},
		{"overdue past twice refresh", scheduled, Entry{Success: at(-2).Add(-time.Second)}, Overdue, active},
		{"a later failure keeps freshness", scheduled, Entry{Success: at(-1), Run: at(-0.5), Error: "x"}, fresh, active},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.program.Freshness(tt.entry, now); got != tt.want {
				t.Errorf("freshness %q, want %q", got, tt.want)
			}
			if got := tt.program.State(); got != tt.state {
				t.Errorf("state %q, want %q", got, tt.state)
			}
		})
	}
}

func TestSilentAndAttention(t *testing.T) {
	now := at(0)
	quiet := Program{Declared: true, Enabled: true, Refresh: 3600, SilentAfter: 86400}
	tests := []struct {
		name    string
		program Program
		entry   Entry
		silent  bool
		flag    Flag
		need    bool
	}{
		{"fresh and recently changed", quiet, Entry{Success: at(-1), Changed: at(-10)}, false, Flag{Freshness: fresh}, false},
		{"silent after silent_after without change", quiet, Entry{Success: at(-1), Changed: at(-25)}, true,
			Flag{Freshness: fresh, Silent: true}, true},
		{"exactly silent_after is not yet silent", quiet, Entry{Success: at(-1), Changed: at(-24)}, false,
			Flag{Freshness: fresh}, false},
		{"no silent_after", Program{Declared: true, Enabled: true, Refresh: 3600}, Entry{Success: at(-1), Changed: at(-900)},
			false, Flag{Freshness: fresh}, false},
		{"a failure is failed, not silent", quiet, Entry{Success: at(-1), Changed: at(-25), Run: at(-0.5), Error: "x"},
			false, Flag{Failed: true, Freshness: fresh}, true},
		{"never succeeded", quiet, Entry{}, false, Flag{Freshness: Never}, true},
		{"overdue", quiet, Entry{Success: at(-3), Changed: at(-3)}, false, Flag{Freshness: Overdue}, true},
		{"manual programs need nothing", Program{Declared: true, Enabled: true}, Entry{Error: "x"}, false, Flag{}, false},
		{"disabled programs need nothing", Program{Declared: true, Refresh: 60}, Entry{Error: "x"}, false, Flag{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.program.Silent(tt.entry, now); got != tt.silent {
				t.Errorf("silent %v, want %v", got, tt.silent)
			}
			flag, need := tt.program.Attention(tt.entry, now)
			if need != tt.need || flag != tt.flag {
				t.Errorf("attention %+v %v, want %+v %v", flag, need, tt.flag, tt.need)
			}
		})
	}
}

func TestForTrust(t *testing.T) {
	tests := []struct {
		freshness string
		trusted   bool
		want      string
	}{
		{Never, true, Never},
		{Never, false, unknown},
		{fresh, false, fresh},
		{Overdue, false, Overdue},
		{Manual, false, Manual},
		{unknown, true, unknown},
	}
	for _, tt := range tests {
		if got := ForTrust(tt.freshness, tt.trusted); got != tt.want {
			t.Errorf("ForTrust(%q, %v) = %q, want %q", tt.freshness, tt.trusted, got, tt.want)
		}
	}
}
