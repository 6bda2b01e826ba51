// Package history keeps the run history of a brain's programs on this machine and the
// rules that read it: coverage after a run, when a program is due again, how long a failed
// program waits before a retry, freshness, silence and what needs attention.
//
// History is machine-local: it lives in the brain's state folder
// ($XDG_STATE_HOME/bf/runtime/<dev>-<ino>/, see brain.Env.BrainStateDir), never in the brain,
// because two machines collecting one brain each know only their own runs. Two files hold it,
// each a JSON object keyed by program name:
//
//	sensors.json   one Entry per sensor
//	routines.json  one Entry per routine
//
// Writers take an exclusive flock on state.lock in the same folder, read the file, change one
// entry and replace the file atomically, so concurrent programs never lose each other's
// entries. Readers take no lock: a rename is atomic. Reading is tolerant: a missing, damaged
// or foreign file, or an entry that cannot be decoded, reads as no history, so history never
// blocks collection; losing it only makes the next run start from lookback again.
//
// Decisions where nothing else speaks:
//   - A sensor that reports an incomplete collection has its records committed and its counts
//     recorded, but it neither extends the covered interval nor counts as a fresh success:
//     the interval would claim items the sensor knows it missed. It is paced like a success
//     (not due again before refresh), resumes from the old interval, and becomes overdue
//     when it stays incomplete for more than twice its refresh.
//   - A first successful run starts the reconcile clock: a window sensor with reconcile
//     widens its window once reconcile.refresh has passed since then.
//   - silent_after counts from the last successful run that added, updated or removed a
//     record, or from the first success when none ever did.
//   - Freshness has one definition everywhere (search sources, memories pages, home, status):
//     unknown means disabled or historical. Collection trust does not change it: a program
//     of a brain that may not collect here simply never succeeded here.
package history

import (
	"encoding/json"
	"time"

	"github.com/bfgo/bf/libbf/timestamp"
)

// Counts are the record counts of one collection.
type Counts struct {
	Added     int `json:"added"`
	Records   int `json:"records"`
	Removed   int `json:"removed"`
	Unchanged int `json:"unchanged"`
	Updated   int `json:"updated"`
}

// Changes counts the records a run added, updated or removed.
func (c Counts) Changes() int { return c.Added + c.Updated + c.Removed }

// Entry is one program's history. Zero times are absent.
type Entry struct {
	// Run is the start of the last attempt, whatever its outcome.
	Run time.Time
	// Success is the start of the last fresh success: a complete run whose window reached
	// the end of the covered interval.
	Success time.Time
	// Start and End bound the contiguous covered interval [Start, End) of a sensor.
	Start, End time.Time
	// Error is the last attempt's error sentence; "" after a success.
	Error string
	// Log is the brain-relative log of the program (logs/NAME.log) once it has run.
	Log string
	// Counts are those of the last run that committed records.
	Counts Counts
	// Elapsed and OutputBytes measure the last successful run.
	Elapsed     time.Duration
	OutputBytes int64
	// Reconcile is true when the last successful run widened its window to reconcile.
	Reconcile bool
	// Reconciled is the start of the last reconciling run (or of the first success).
	Reconciled time.Time
	// Incomplete counts consecutive runs that reported missing items; Missed is what the
	// last of them missed. Both are 0 after a complete success.
	Incomplete int
	Missed     int
	// Changed is the start of the last successful run that added, updated or removed a
	// record, or of the first success: the clock of silent_after.
	Changed time.Time
	// Failures counts consecutive failed attempts: the retry backoff of a watch.
	Failures int
	// Action is the brain-relative ACTION.md the last run of an action routine wrote.
	Action string
}

// Failed reports whether the last attempt failed.
func (e Entry) Failed() bool { return e.Error != "" }

// wire is the stored form of an Entry: instants in canonical UTC, durations in seconds.
type wire struct {
	Action         string  `json:"action,omitempty"`
	Added          int     `json:"added,omitempty"`
	Changed        string  `json:"changed,omitempty"`
	ElapsedSeconds float64 `json:"elapsed_seconds,omitempty"`
	End            string  `json:"end,omitempty"`
	Error          string  `json:"error,omitempty"`
	Failures       int     `json:"failures,omitempty"`
	Incomplete     int     `json:"incomplete,omitempty"`
	Log            string  `json:"log,omitempty"`
	Missed         int     `json:"missed,omitempty"`
	OutputBytes    int64   `json:"output_bytes,omitempty"`
	Reconcile      bool    `json:"reconcile,omitempty"`
	Reconciled     string  `json:"reconciled,omitempty"`
	Records        int     `json:"records,omitempty"`
	Removed        int     `json:"removed,omitempty"`
	Run            string  `json:"run,omitempty"`
	Start          string  `json:"start,omitempty"`
	Success        string  `json:"success,omitempty"`
	Unchanged      int     `json:"unchanged,omitempty"`
	Updated        int     `json:"updated,omitempty"`
}

// MarshalJSON writes the stored form.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(wire{
		Action:         e.Action,
		Added:          e.Counts.Added,
		Changed:        instant(e.Changed),
		ElapsedSeconds: e.Elapsed.Seconds(),
		End:            instant(e.End),
		Error:          e.Error,
		Failures:       e.Failures,
		Incomplete:     e.Incomplete,
		Log:            e.Log,
		Missed:         e.Missed,
		OutputBytes:    e.OutputBytes,
		Reconcile:      e.Reconcile,
		Reconciled:     instant(e.Reconciled),
		Records:        e.Counts.Records,
		Removed:        e.Counts.Removed,
		Run:            instant(e.Run),
		Start:          instant(e.Start),
		Success:        instant(e.Success),
		Unchanged:      e.Counts.Unchanged,
		Updated:        e.Counts.Updated,
	})
}

// UnmarshalJSON reads the stored form. An instant that does not parse reads as absent and
// a negative count as 0: a damaged value must not make a program look more recent or busier
// than it was.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	nat := func(n int) int { return max(n, 0) }
	*e = Entry{
		Run:         parseInstant(w.Run),
		Success:     parseInstant(w.Success),
		Start:       parseInstant(w.Start),
		End:         parseInstant(w.End),
		Error:       w.Error,
		Log:         w.Log,
		OutputBytes: max(w.OutputBytes, 0),
		Reconcile:   w.Reconcile,
		Reconciled:  parseInstant(w.Reconciled),
		Incomplete:  nat(w.Incomplete),
		Missed:      nat(w.Missed),
		Changed:     parseInstant(w.Changed),
		Failures:    nat(w.Failures),
		Action:      w.Action,
		Counts: Counts{Added: nat(w.Added), Records: nat(w.Records), Removed: nat(w.Removed),
			Unchanged: nat(w.Unchanged), Updated: nat(w.Updated)},
	}
	if w.ElapsedSeconds > 0 && w.ElapsedSeconds < 1e9 {
		e.Elapsed = time.Duration(w.ElapsedSeconds * float64(time.Second))
	}
	// An interval is kept only whole and in order.
	if e.Start.IsZero() || e.End.IsZero() || e.End.Before(e.Start) {
		e.Start, e.End = time.Time{}, time.Time{}
	}
	return nil
}

// instant is the stored form of t, "" when zero.
func instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timestamp.Canonical(t)
}

// Instant is the stored form of t, "" when zero: how replies carry history instants before
// they are presented in local time.
func Instant(t time.Time) string { return instant(t) }

func parseInstant(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := timestamp.Parse(s)
	if err != nil {
		return time.Time{}
	}
	return t
}
