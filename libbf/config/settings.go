package config

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Setting describes one scalar setting of bf.yaml once: where it is, what it holds, its
// range, its default and what it means. The decoder fills the default of an absent or null
// setting and checks the range from it, Marshal leaves out a value equal to the default,
// and the schema package's tests hold brain.schema.json to every description.
type Setting struct {
	// Path is the dotted key, with * for each name a mapping is keyed by and for each list
	// index: sensors.*.timeout, assistants.*.inputs.*.every.
	Path string
	// Type is SettingInteger, SettingNumber, SettingWord or SettingBool.
	Type string
	// Min and Max bound an integer or a number.
	Min, Max float64
	// Words are the values a word may take.
	Words []string
	// Default is what an absent or null setting means: an int64, a float64, a string or a
	// bool.
	// nil means none: the setting is then required or, when absent, unset (0 or "").
	Default any
	// Doc says what the setting means, as the schema's description does; "" where the
	// schema gives none.
	Doc string
}

// Types of a Setting.
const (
	SettingInteger = "integer"
	SettingNumber  = "number"
	SettingWord    = "word"
	SettingBool    = "boolean"
)

// Settings are bf.yaml's scalar settings, section by section.
var Settings = []Setting{
	{Path: "fields.*.type", Type: SettingWord, Words: fieldTypes},
	{Path: "fields.*.cardinality", Type: SettingWord, Words: []string{string(one), string(optional), string(Many)}, Default: string(optional),
		Doc: "one: every mapped record must carry it; optional: at most one value; many: a list of at most 1000 values."},
	{Path: "fields.*.relation", Type: SettingBool, Default: false,
		Doc: "Values are typed links; requires type: identity."},

	{Path: "sensors.*.enabled", Type: SettingBool, Default: true,
		Doc: "false keeps the sensor from running; its records stay searchable."},
	{Path: "sensors.*.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultTimeout)},
	{Path: "sensors.*.max_bytes", Type: SettingInteger, Min: 1, Max: maxSensorBytes, Default: int64(defaultSensorBytes),
		Doc: "Output cap in bytes."},
	{Path: "sensors.*.refresh", Type: SettingInteger, Min: 0, Max: MaxSeconds, Default: int64(0),
		Doc: "Seconds between automatic runs; 0 runs only by hand."},
	{Path: "sensors.*.lookback", Type: SettingInteger, Min: 1, Max: MaxSeconds, Default: int64(defaultLookback),
		Doc: "The window of a first run and of every snapshot run."},
	{Path: "sensors.*.mode", Type: SettingWord, Words: []string{ModeWindow, ModeSnapshot}, Default: ModeWindow,
		Doc: "window upserts the returned records; snapshot treats them as the whole catalog."},
	{Path: "sensors.*.overlap", Type: SettingInteger, Min: 0, Max: MaxSeconds, Default: int64(defaultOverlap),
		Doc: "Seconds re-read before the previous window end."},
	{Path: "sensors.*.reconcile.refresh", Type: SettingInteger, Min: 1, Max: MaxSeconds,
		Doc: "A duration in seconds, at most 365 days."},
	{Path: "sensors.*.reconcile.lookback", Type: SettingInteger, Min: 1, Max: MaxSeconds,
		Doc: "A duration in seconds, at most 365 days."},
	{Path: "sensors.*.priority", Type: SettingWord, Words: []string{priorityNormal, priorityLow}, Default: priorityNormal,
		Doc: "low halves the source's weight in word search and lists its records only as counts on period and home pages."},
	{Path: "sensors.*.silent_after", Type: SettingInteger, Min: 1, Max: MaxSeconds,
		Doc: "Flag the source when successful runs bring nothing new for this many seconds; unset never flags it."},

	{Path: "routines.*.enabled", Type: SettingBool, Default: true},
	{Path: "routines.*.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultTimeout)},
	{Path: "routines.*.max_bytes", Type: SettingInteger, Min: 1, Max: maxRoutineBytes, Default: int64(defaultRoutineBytes),
		Doc: "Output cap in bytes."},
	{Path: "routines.*.refresh", Type: SettingInteger, Min: 0, Max: MaxSeconds, Default: int64(0),
		Doc: "Seconds between automatic runs; 0 runs only by hand."},
	{Path: "routines.*.lookback", Type: SettingInteger, Min: 1, Max: MaxSeconds, Default: int64(defaultLookback),
		Doc: "The window of a first run."},
	{Path: "routines.*.output", Type: SettingWord, Words: []string{OutputLog, OutputAction}, Default: OutputLog,
		Doc: "log appends stdout to logs/NAME.log; action turns non-empty Markdown into actions/YYYY-MM-DD_NAME/ACTION.md."},
	{Path: "routines.*.keep", Type: SettingInteger, Min: 1, Max: maxKeep,
		Doc: "Output action only: keep the newest N untouched actions; unset keeps all."},

	{Path: "watch.interval", Type: SettingInteger, Min: 5, Max: 86_400, Default: int64(60),
		Doc: "Pause in seconds after each collection cycle."},
	{Path: "watch.poll_interval", Type: SettingNumber, Min: 0.2, Max: 60, Default: 2.0,
		Doc: "How often, in seconds, the dashboard reads run history."},
	{Path: "watch.notifications", Type: SettingWord, Words: Notifications, Default: "failure"},
	{Path: "watch.notification_cooldown", Type: SettingInteger, Min: 0, Max: 86_400, Default: int64(300),
		Doc: "Minimum spacing of desktop notifications in seconds."},

	{Path: "assistants.*.enabled", Type: SettingBool, Default: true},
	{Path: "assistants.*.schedules.*.every", Type: SettingInteger, Min: 1, Max: MaxSeconds,
		Doc: "Interval in seconds."},
	{Path: "assistants.*.schedules.*.days.*", Type: SettingWord, Words: Days},
	{Path: "assistants.*.inputs.*.mode", Type: SettingWord, Words: []string{InputRead, InputStream},
		Doc: "read: a batch read every every seconds; stream: bf watch keeps the channel's stream running."},
	{Path: "assistants.*.inputs.*.every", Type: SettingInteger, Min: 1, Max: MaxSeconds,
		Doc: "Cadence of a read input, in seconds."},
	{Path: "assistants.*.propose", Type: SettingBool, Default: false,
		Doc: "Save the answer as a draft ACTION.md proposal."},
	{Path: "assistants.*.idempotent.*", Type: SettingWord, Words: RunKinds},
	{Path: "assistants.*.retries", Type: SettingInteger, Min: 1, Max: maxRetries, Default: int64(defaultRetries),
		Doc: "Automatic attempts of an idempotent run; only with idempotent run kinds."},
	{Path: "assistants.*.keep", Type: SettingInteger, Min: 1, Max: maxKeep,
		Doc: "Keep only the newest N run records in memories/NAME/; unset keeps all."},
	{Path: "assistants.*.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultTimeout)},
	{Path: "assistants.*.max_bytes", Type: SettingInteger, Min: 1, Max: maxAssistantBytes, Default: int64(defaultAssistantBytes),
		Doc: "Harness output cap in bytes."},

	{Path: "channels.*.send.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultTimeout)},
	{Path: "channels.*.send.max_bytes", Type: SettingInteger, Min: 1, Max: maxChannelBytes, Default: int64(DefaultChannelBytes)},
	{Path: "channels.*.send.idempotent", Type: SettingBool, Default: false,
		Doc: "Repeating a delivery ID and payload creates no second message, so failed deliveries retry by themselves."},
	{Path: "channels.*.read.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultTimeout)},
	{Path: "channels.*.read.max_bytes", Type: SettingInteger, Min: 1, Max: maxChannelBytes, Default: int64(DefaultChannelBytes)},
	{Path: "channels.*.stream.timeout", Type: SettingInteger, Min: 1, Max: maxTimeout, Default: int64(DefaultStreamTimeout),
		Doc: "Seconds an acknowledgement pipe may stay blocked."},
	{Path: "channels.*.stream.max_bytes", Type: SettingInteger, Min: minFrameBytes, Max: maxFrameBytes, Default: int64(DefaultFrameBytes),
		Doc: "Cap of one frame in bytes."},

	{Path: "embeddings.timeout", Type: SettingInteger, Min: 1, Max: 600, Default: int64(defaultEmbedTimeout),
		Doc: "Seconds per request or run."},
	{Path: "embeddings.batch", Type: SettingInteger, Min: 1, Max: 512, Default: int64(defaultEmbedBatch),
		Doc: "Texts per request or run."},
	{Path: "embeddings.query_timeout", Type: SettingInteger, Min: 1, Max: 60, Default: int64(defaultQueryTimeout),
		Doc: "Seconds a search waits for its query's vector."},
	{Path: "embeddings.cooldown", Type: SettingInteger, Min: 0, Max: 3600, Default: int64(defaultEmbedCooldown),
		Doc: "Seconds searches skip the provider after its query embedding failed; 0 retries every search."},

	{Path: "validate.required_status.*", Type: SettingWord, Words: statuses},

	{Path: "ask.timeout", Type: SettingInteger, Min: 1, Max: 600, Default: int64(defaultAskTimeout),
		Doc: "Seconds per answer."},
}

// keyedSections are the keys whose mapping is keyed by names: the next key of a path is a
// name, * in a Setting's Path.
var keyedSections = []string{"brains", "fields", "sensors", "routines", "assistants", "channels", "schedules"}

// settingPattern is the Setting.Path of the dotted key path: sensors.git.timeout is
// sensors.*.timeout, validate.required_status.0 is validate.required_status.*. Names
// start with a letter, so a key of digits alone is a list index.
func settingPattern(path string) string {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		if i > 0 && slices.Contains(keyedSections, keys[i-1]) || k != "" && strings.Trim(k, "0123456789") == "" {
			keys[i] = "*"
		}
	}
	return strings.Join(keys, ".")
}

var settingsByPath = sync.OnceValue(func() map[string]*Setting {
	out := make(map[string]*Setting, len(Settings))
	for i := range Settings {
		out[Settings[i].Path] = &Settings[i]
	}
	return out
})

// settingAt returns the description of the setting at the dotted key path (sensors.git.timeout),
// or nil when bf.yaml has no such scalar setting.
func settingAt(path string) *Setting {
	return settingsByPath()[settingPattern(path)]
}

// described is settingAt for a path the decoder or Marshal knows is described; a missing
// description is a mistake in this package, not in a file.
func described(path string) *Setting {
	s := settingAt(path)
	if s == nil {
		panic(fmt.Sprintf("config: no Setting describes %s", path))
	}
	return s
}

// isDefault reports a value Marshal leaves out: the setting's default, or the zero value
// where the setting has no default or cannot hold zero (a Config built in code leaves it
// unset).
func (s *Setting) isDefault(v any) bool {
	switch x := v.(type) {
	case int64:
		return s.Default == x || (x == 0 && (s.Default == nil || s.Min > 0))
	case float64:
		return s.Default == x || (x == 0 && (s.Default == nil || s.Min > 0))
	case string:
		return s.Default == x || x == ""
	case bool:
		return s.Default == x || (!x && s.Default == nil)
	}
	panic(fmt.Sprintf("config: setting %s holds a %T", s.Path, v))
}
