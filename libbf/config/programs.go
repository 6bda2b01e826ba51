package config

// Byte sizes.
const (
	kiB = 1 << 10
	miB = 1 << 20
)

// Limits and defaults of programs (sensors, routines, assistants, channel commands).
const (
	DefaultTimeout        = 300
	maxTimeout            = 3600
	MaxSeconds            = 31_536_000 // 365 days: refresh, lookback, overlap, reconcile
	defaultLookback       = 86_400
	defaultOverlap        = 300
	defaultSensorBytes    = 64 * miB
	maxSensorBytes        = 256 * miB
	defaultRoutineBytes   = 1 * miB
	maxRoutineBytes       = 4 * miB
	maxHooks              = 16
	maxKeep               = 100_000
	defaultAssistantBytes = 1 * miB
	maxAssistantBytes     = 4 * miB
)

// Sensor modes.
const (
	ModeWindow   = "window"   // upsert the returned records
	ModeSnapshot = "snapshot" // the returned records are the whole catalog
)

// Source priorities.
const (
	priorityNormal = "normal"
	priorityLow    = "low" // half weight in word search, counts only on period and home pages
)

// Routine outputs.
const (
	OutputLog    = "log"    // stdout is appended to logs/NAME.log
	OutputAction = "action" // non-empty Markdown becomes actions/YYYY-MM-DD_NAME/ACTION.md
)

// Program holds the settings sensors and routines share: the argv bf runs and its limits.
type Program struct {
	// Command is the program's argv.
	Command Command `json:"command"`
	// Enabled is false for a program that never runs; a sensor's records stay searchable.
	Enabled bool `json:"enabled,omitempty"`
	// Timeout in seconds (1–3600, default 300).
	Timeout int `json:"timeout,omitempty"`
	// MaxBytes caps stdout: for a sensor 1 byte–256 MiB, default 64 MiB; for a routine
	// 1 byte–4 MiB, default 1 MiB.
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Refresh is the seconds between automatic runs; 0 (the default) runs only by hand.
	Refresh int `json:"refresh,omitempty"`
	// Lookback is the window of a first run, and of every run of a snapshot sensor
	// (default 86400).
	Lookback int `json:"lookback,omitempty"`
}

// Sensor is a program that prints records for one source, named like the sensor.
type Sensor struct {
	Program
	// Mode is window (the default) or snapshot.
	Mode string `json:"mode,omitempty"`
	// Overlap re-reads this many seconds before the previous window end (default 300).
	Overlap int `json:"overlap,omitempty"`
	// Reconcile periodically widens a window sensor's window to find edits.
	Reconcile *Reconcile `json:"reconcile,omitempty"`
	// Priority is normal (the default) or low.
	Priority string `json:"priority,omitempty"`
	// Fields maps the sensor's output into declared fields.
	Fields map[string]*Mapping `json:"fields,omitempty"`
	// SilentAfter flags the source when successful runs bring nothing new for this many
	// seconds; 0 (unset) never flags it.
	SilentAfter int `json:"silent_after,omitempty"`
}

// Reconcile widens the window of a window sensor every Refresh seconds to Lookback.
type Reconcile struct {
	Refresh  int `json:"refresh"`
	Lookback int `json:"lookback"`
}

// Mapping fills a declared field from a sensor's output: exactly one of Path and Value.
type Mapping struct {
	// Path is an RFC 6901 JSON Pointer into the record the sensor printed.
	Path string `json:"path,omitempty"`
	// Value is a literal, normalised under its field.
	Value any `json:"value,omitempty"`
}

// IsLiteral reports a {value: …} mapping.
func (m *Mapping) IsLiteral() bool { return m.Path == "" }

// Routine is a deterministic program run on a schedule, on a hook, or by hand.
type Routine struct {
	Program
	// Hooks are events (such as pre-push) that run the routine through bf run --hook.
	Hooks []string `json:"hooks,omitempty"`
	// Output is log (the default) or action.
	Output string `json:"output,omitempty"`
	// Keep, for action routines, keeps only the newest N untouched actions; 0 keeps all.
	Keep int `json:"keep,omitempty"`
}
