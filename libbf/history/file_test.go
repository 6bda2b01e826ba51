package history

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// testBrain opens a minimal brain with an environment whose home and state live in
// temporary folders.
func testBrain(t *testing.T) (brain.Env, *brain.Brain) {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state")}
	env := brain.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
	root := filepath.Join(home, "brain")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bf.yaml"), []byte("version: 8\nname: b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := env.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return env, b
}

func TestEntryJSON(t *testing.T) {
	e := Entry{Run: at(0), Success: at(0), Start: at(-24), End: at(0), Log: "logs/cal.log",
		Counts: Counts{Records: 3, Added: 1, Updated: 1, Unchanged: 1}, Elapsed: 1500 * time.Millisecond,
		OutputBytes: 120, Reconciled: at(0), Changed: at(0)}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"added":1,"changed":"2026-10-01T12:00:00.000000Z","elapsed_seconds":1.5,"end":"2026-10-01T12:00:00.000000Z",` +
		`"log":"logs/cal.log","output_bytes":120,"reconciled":"2026-10-01T12:00:00.000000Z","records":3,` +
		`"run":"2026-10-01T12:00:00.000000Z","start":"2026-09-30T12:00:00.000000Z","success":"2026-10-01T12:00:00.000000Z",` +
		`"unchanged":1,"updated":1}`
	if string(data) != want {
		t.Errorf("stored form\n got %s\nwant %s", data, want)
	}
	var back Entry
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestEntryJSONTolerant(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Entry
	}{
		{"bad instants read as absent", `{"run":"yesterday","success":"2026-10-01T12:00:00Z","error":"x"}`,
			Entry{Success: at(0), Error: "x"}},
		{"negative counts read as zero", `{"records":-4,"failures":-1,"added":2}`, Entry{Counts: Counts{Added: 2}}},
		{"a reversed interval is dropped", `{"start":"2026-10-01T12:00:00Z","end":"2026-10-01T11:00:00Z"}`, Entry{}},
		{"half an interval is dropped", `{"start":"2026-10-01T12:00:00Z"}`, Entry{}},
		{"unknown keys are ignored", `{"when":{"x":1},"missed":3}`, Entry{Missed: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Entry
			if err := json.Unmarshal([]byte(tt.data), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatePathMatchesBrain(t *testing.T) {
	env, b := testBrain(t)
	got, err := env.BrainStatePath(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(got); !os.IsNotExist(err) {
		t.Fatalf("BrainStatePath created or found %s: %v", got, err)
	}
	want, err := env.BrainStateDir(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("BrainStatePath %s, BrainStateDir %s", got, want)
	}
	noXDG := brain.Env{Home: env.Home, Getenv: func(string) string { return "relative/ignored" }}
	got, _ = noXDG.BrainStatePath(b.ID)
	if want := filepath.Join(env.Home, ".local", "state", "bf", "runtime", b.ID.String()); got != want {
		t.Errorf("without XDG_STATE_HOME: %s, want %s", got, want)
	}
}

func TestRecordAndLoad(t *testing.T) {
	env, b := testBrain(t)
	ctx := context.Background()

	h, err := Load(env, b)
	if err != nil || len(h.Sensors)+len(h.Routines) != 0 {
		t.Fatalf("Load without history = %+v, %v", h, err)
	}
	dir, err := env.BrainStateDir(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	// An entry this release cannot read survives other programs' writes untouched.
	foreign := `{"cal":{"run":"2026-10-01T12:00:00.000000Z"},"odd":[1,2]}`
	if err := os.WriteFile(filepath.Join(dir, string(Sensors)), []byte(foreign), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Record(ctx, dir, Sensors, "cal", func(e Entry) Entry {
		if !e.Run.Equal(at(0)) {
			t.Errorf("change got %+v, want the stored entry", e)
		}
		return e.Fail(at(1), "timed out", "logs/cal.log")
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Failures != 1 || !got.Run.Equal(at(1)) {
		t.Errorf("Record returned %+v", got)
	}
	if _, err := Record(ctx, dir, Routines, "weekly", func(e Entry) Entry {
		return e.Succeed(Outcome{Started: at(2), Start: at(-22), End: at(2)})
	}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, string(Sensors)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cal":{"error":"timed out","failures":1,"log":"logs/cal.log","run":"2026-10-01T13:00:00.000000Z"},"odd":[1,2]}` + "\n"
	if string(data) != want {
		t.Errorf("sensors.json\n got %s\nwant %s", data, want)
	}
	for _, name := range []string{string(Sensors), string(Routines)} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, %v; want 0600", name, st.Mode().Perm(), err)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	h, err = Load(env, b)
	if err != nil {
		t.Fatal(err)
	}
	wantSensors := map[string]Entry{"cal": {Run: at(1), Error: "timed out", Failures: 1, Log: "logs/cal.log"}}
	if diff := cmp.Diff(wantSensors, h.Sensors); diff != "" {
		t.Errorf("sensors (-want +got):\n%s", diff)
	}
	if e := h.Routine("weekly"); !e.Success.Equal(at(2)) {
		t.Errorf("routine weekly %+v", e)
	}
	if e := h.Sensor("none"); !cmp.Equal(e, Entry{}) {
		t.Errorf("unknown sensor %+v", e)
	}
}

func TestLoadDamaged(t *testing.T) {
	tests := []struct {
		name    string
		content string
		symlink bool
		wantErr string
	}{
		{"not JSON", "{oops", false, ""},
		{"not an object", "[1]", false, ""},
		{"too large", `{"cal":{"error":"` + strings.Repeat("x", maxFileBytes) + `"}}`, false, ""},
		{"a symlink is refused", "", true, "run history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, b := testBrain(t)
			dir, err := env.BrainStateDir(b.ID)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, string(Sensors))
			if tt.symlink {
				target := filepath.Join(t.TempDir(), "elsewhere.json")
				os.WriteFile(target, []byte(`{"cal":{"success":"2026-10-01T12:00:00Z"}}`), 0o600)
				if err := os.Symlink(target, file); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			h, err := Load(env, b)
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load error %v, want %q", err, tt.wantErr)
			}
			if len(h.Sensors) != 0 {
				t.Errorf("damaged history read as %+v", h.Sensors)
			}
			// A writer starts over from a damaged file rather than failing forever.
			if !tt.symlink {
				if _, err := Record(context.Background(), dir, Sensors, "cal", func(e Entry) Entry { return e.Fail(at(0), "x", "") }); err != nil {
					t.Errorf("Record over a damaged file: %v", err)
				}
			}
		})
	}
}

func TestCoverage(t *testing.T) {
	now := at(0)
	win := sensor(nil)
	snap := sensor(func(s *config.Sensor) { s.Mode = config.ModeSnapshot })
	off := sensor(func(s *config.Sensor) { s.Enabled = false })
	manual := sensor(func(s *config.Sensor) { s.Refresh = 0 })
	hist := Entry{Start: at(-48), End: at(-1), Success: at(-1), Run: at(-0.5), Error: "timed out"}
	tests := []struct {
		name   string
		sensor *config.Sensor
		entry  Entry
		want   reply.Coverage
	}{
		{"never ran", win, Entry{}, reply.Coverage{Source: "s", State: active, Freshness: Never, Mode: "window"}},
		{"window with history", win, hist, reply.Coverage{Source: "s", State: active, Freshness: fresh, Mode: "window",
			Failed: true, LastCollected: "2026-10-01T11:00:00.000000Z",
			Window: &reply.Window{Since: "2026-09-29T12:00:00.000000Z", Until: "2026-10-01T11:00:00.000000Z"}}},
		{"snapshot shows no interval", snap, hist, reply.Coverage{Source: "s", State: active, Freshness: fresh,
			Mode: "snapshot", Failed: true, LastCollected: "2026-10-01T11:00:00.000000Z"}},
		{"disabled hides its last failure", off, hist, reply.Coverage{Source: "s", State: disabled, Freshness: unknown, Mode: "window",
			LastCollected: "2026-10-01T11:00:00.000000Z",
			Window:        &reply.Window{Since: "2026-09-29T12:00:00.000000Z", Until: "2026-10-01T11:00:00.000000Z"}}},
		{"manual", manual, Entry{}, reply.Coverage{Source: "s", State: active, Freshness: Manual, Mode: "window"}},
		{"historical keeps its interval", nil, Entry{Start: at(-48), End: at(-1), Success: at(-1), Error: "gone"},
			reply.Coverage{Source: "s", State: historical, Freshness: unknown, LastCollected: "2026-10-01T11:00:00.000000Z",
				Window: &reply.Window{Since: "2026-09-29T12:00:00.000000Z", Until: "2026-10-01T11:00:00.000000Z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Coverage("s", tt.sensor, tt.entry, now)); diff != "" {
				t.Errorf("coverage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttention(t *testing.T) {
	now := at(0)
	cfg := &config.Config{
		Sensors: map[string]*config.Sensor{
			"cal":   sensor(nil),
			"fine":  sensor(nil),
			"hand":  sensor(func(s *config.Sensor) { s.Refresh = 0 }),
			"off":   sensor(func(s *config.Sensor) { s.Enabled = false }),
			"quiet": sensor(func(s *config.Sensor) { s.SilentAfter = 3600 }),
		},
		Routines: map[string]*config.Routine{
			"weekly": {Program: config.Program{Enabled: true, Refresh: 86400, Lookback: 3600}},
			"late":   {Program: config.Program{Enabled: true, Refresh: 3600, Lookback: 3600}},
		},
		Assistants: map[string]*config.Assistant{
			"morning": {Enabled: true, Schedules: map[string]*config.Schedule{"daily": {}}},
			"idle":    {Enabled: true},
		},
	}
	h := &History{
		Sensors: map[string]Entry{
			"cal":   {Success: at(-0.5), Run: at(-0.1), Error: "x"},
			"fine":  {Success: at(-0.5), Changed: at(-0.5)},
			"quiet": {Success: at(-0.5), Changed: at(-5)},
		},
		Routines: map[string]Entry{"late": {Success: at(-3)}},
	}
	want := []Need{
		{Kind: KindSensor, Name: "cal", Flag: Flag{Failed: true, Freshness: fresh}},
		{Kind: KindSensor, Name: "quiet", Flag: Flag{Freshness: fresh, Silent: true}},
		{Kind: KindRoutine, Name: "late", Flag: Flag{Freshness: Overdue}},
		{Kind: KindRoutine, Name: "weekly", Flag: Flag{Freshness: Never}},
	}
	if diff := cmp.Diff(want, Attention(cfg, h, now)); diff != "" {
		t.Errorf("attention (-want +got):\n%s", diff)
	}
	if got := Attention(cfg, nil, now); len(got) != 5 {
		t.Errorf("without history every scheduled program never succeeded: %+v", got)
	}
}
