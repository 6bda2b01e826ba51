package collect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/reply"
)

const updateConfig = `version: 8
name: b
sensors:
  cal:
    command: [sensors/cal, "{{start}}", "{{end}}"]
    refresh: 3600
    lookback: 7200
  broken:
    command: [sensors/broken]
    refresh: 60
  many:
    command: [sensors/many]
  off:
    command: [sensors/many]
    refresh: 60
    enabled: false
routines:
  review:
    command: [routines/review, "{{start}}"]
    refresh: 3600
    output: action
  notes:
    command: [routines/notes]
    refresh: 3600
  bad:
    command: [routines/bad]
    refresh: 3600
    output: action
  quiet:
    command: [routines/quiet]
    refresh: 3600
    output: action
  hand:
    command: [routines/hand]
`

// newUpdateFixture writes the programs of updateConfig. review writes an action that counts
// the records of cal, so it shows that routines run after sensors.
func newUpdateFixture(t *testing.T, trusted bool) *fixture {
	f := newFixture(t, updateConfig, trusted)
	f.Script("sensors/cal", `printf '[{"id":"c1","title":"window %s %s"}]' "$1" "$2"`)
	f.Script("sensors/broken", `echo 'provider said no' >&2; exit 3`)
	f.Script("sensors/many", `echo '[{"id":"m1","title":"One"}]'`)
	f.Script("routines/review", `n=$(ls memories/cal | wc -l | tr -d ' ')
printf '%s\n' '---' 'type: action' '---' '# Review' '' "Saw $n records since $1."`)
	f.Script("routines/notes", `echo 'noted'`)
	f.Script("routines/bad", `echo '# No front matter'`)
	f.Script("routines/quiet", `printf '  \n'`)
	f.Script("routines/hand", `exit 0`)
	return f
}

func TestUpdate(t *testing.T) {
	f := newUpdateFixture(t, true)
	t0 := f.clock
	r := f.update(nil)
	action := "actions/2026-10-01_review/ACTION.md"
	badErr := "routine bad: printed an action that is not a valid note: type: OKF concepts require a nonempty type in YAML frontmatter; nothing was written; see logs/bad.log"
	brokenErr := "sensor broken failed: broken exited with status 3; see logs/broken.log; nothing was written"
	day := local(t0.Add(-24 * time.Hour))
	jsonEqual(t, "first update", printed(t, r), `{"brains":[{"brain":"b","index":{"problems":[],"state":"ready"},"routines":[`+
		`{"end":"`+local(t0)+`","error":"`+badErr+`","routine":"bad","start":"`+day+`","status":"failed"},`+
		`{"end":"`+local(t0)+`","routine":"notes","start":"`+day+`","status":"ran"},`+
		`{"end":"`+local(t0)+`","routine":"quiet","start":"`+day+`","status":"ran"},`+
		`{"action":"`+action+`","end":"`+local(t0)+`","routine":"review","start":"`+day+`","status":"ran"}],"sensors":[`+
		`{"end":"`+local(t0)+`","error":"`+brokenErr+`","sensor":"broken","start":"`+local(t0.Add(-24*time.Hour))+`","status":"failed"},`+
		`{"added":1,"end":"`+local(t0)+`","records":1,"removed":0,"sensor":"cal","start":"`+local(t0.Add(-2*time.Hour))+
		`","status":"collected","unchanged":0,"updated":0}]}],"dry_run":false,"ok":false}`)
	data, err := os.ReadFile(filepath.Join(f.Root, action))
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "action", string(data), "---\ntype: action\n---\n# Review\n\nSaw 1 records since "+stamp(t0.Add(-24*time.Hour))+".\n")
	if _, err := os.Stat(filepath.Join(f.Root, "actions", "2026-10-01_bad")); !os.IsNotExist(err) {
		t.Errorf("an invalid action left a folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.Root, "actions", "2026-10-01_quiet")); !os.IsNotExist(err) {
		t.Errorf("empty output wrote an action: %v", err)
	}
	if logText, err := os.ReadFile(filepath.Join(f.Root, "logs", "notes.log")); err != nil || !strings.Contains(string(logText), "noted\n") {
		t.Errorf("log routine stdout not in its log: %q, %v", logText, err)
	}
	h := f.history()
	if e := h.Routine("review"); e.Action != action || !e.Success.Equal(t0) {
		t.Errorf("review history %+v", e)
	}
	if e := h.Routine("bad"); e.Error != badErr || e.Failures != 1 {
		t.Errorf("bad history %+v", e)
	}

	// Right after, only the failed programs are due: failures stay due for bf update.
	f.advance(time.Minute)
	t1 := f.clock
	r = f.update(nil)
	jsonEqual(t, "second update", printed(t, r), `{"brains":[{"brain":"b","index":{"problems":[],"state":"ready"},"routines":[`+
		`{"end":"`+local(t1)+`","error":"`+badErr+`","routine":"bad","start":"`+local(t1.Add(-24*time.Hour))+`","status":"failed"}],"sensors":[`+
		`{"end":"`+local(t1)+`","error":"`+brokenErr+`","sensor":"broken","start":"`+local(t1.Add(-24*time.Hour))+`","status":"failed"}]}],`+
		`"dry_run":false,"ok":false}`)

	// An hour later the same day, review runs again but its action folder exists: skipped.
	// cal resumes where its covered interval ended, minus overlap.
	f.advance(time.Hour)
	t2 := f.clock
	r = f.update(func(o *Options) { o.Sensors, o.Routines = []string{"cal"}, []string{"review", "review"} })
	jsonEqual(t, "selected update", printed(t, r), `{"brains":[{"brain":"b","index":{"problems":[],"state":"ready"},"routines":[`+
		`{"end":"`+local(t2)+`","routine":"review","start":"`+local(t0)+`","status":"skipped"}],"sensors":[`+
		`{"added":0,"end":"`+local(t2)+`","records":1,"removed":0,"sensor":"cal","start":"`+local(t0.Add(-5*time.Minute))+
		`","status":"collected","unchanged":0,"updated":1}]}],"dry_run":false,"ok":true}`)
	after, err := os.ReadFile(filepath.Join(f.Root, action))
	if err != nil || string(after) != string(data) {
		t.Errorf("a skipped run changed the action: %q, %v", after, err)
	}
}

func TestUpdateDryRun(t *testing.T) {
	f := newUpdateFixture(t, true)
	t0 := f.clock
	day := local(t0.Add(-24 * time.Hour))
	r := f.update(func(o *Options) { o.DryRun = true })
	jsonEqual(t, "dry run", printed(t, r), `{"brains":[{"brain":"b","manual":{"routines":["hand"],"sensors":["many"]},"routines":[`+
		`{"end":"`+local(t0)+`","routine":"bad","start":"`+day+`","status":"due"},`+
		`{"end":"`+local(t0)+`","routine":"notes","start":"`+day+`","status":"due"},`+
		`{"end":"`+local(t0)+`","routine":"quiet","start":"`+day+`","status":"due"},`+
		`{"end":"`+local(t0)+`","routine":"review","start":"`+day+`","status":"due"}],"sensors":[`+
		`{"end":"`+local(t0)+`","sensor":"broken","start":"`+day+`","status":"due"},`+
		`{"end":"`+local(t0)+`","sensor":"cal","start":"`+local(t0.Add(-2*time.Hour))+`","status":"due"}]}],"dry_run":true,"ok":true}`)
	if _, err := os.Stat(filepath.Join(f.Root, "memories")); !os.IsNotExist(err) {
		t.Errorf("a dry run stored records: %v", err)
	}
	if h := f.history(); len(h.Sensors)+len(h.Routines) != 0 {
		t.Errorf("a dry run recorded runs: %+v", h)
	}
	// Selectors restrict the listing too; a manual program selected is still only listed.
	r = f.update(func(o *Options) { o.DryRun, o.Sensors = true, []string{"many", "off"} })
	jsonEqual(t, "selected dry run", printed(t, r), `{"brains":[{"brain":"b","manual":{"sensors":["many"]}}],"dry_run":true,"ok":true}`)
}

func TestUpdateSkipsAndRefuses(t *testing.T) {
	f := newUpdateFixture(t, false)
	r := f.update(nil)
	jsonEqual(t, "untrusted", printed(t, r), `{"brains":[{"brain":"b","skipped":"not trusted to collect on this machine"}],"dry_run":false,"ok":true}`)
	if _, err := os.Stat(filepath.Join(f.Root, "memories")); !os.IsNotExist(err) {
		t.Errorf("an untrusted brain ran a sensor: %v", err)
	}

	tests := []struct {
		name      string
		sensors   []string
		routines  []string
		arg, want string
	}{
		{"unknown sensor", []string{"cal", "nope"}, nil, "sensor",
			"invalid input: sensor: nope is not declared in the sensors of bf.yaml; bf status lists them"},
		{"unknown routine", nil, []string{"review", "cal"}, "routine",
			"invalid input: routine: cal is not declared in the routines of bf.yaml; bf status lists them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := f.opt()
			opt.Sensors, opt.Routines = tt.sensors, tt.routines
			_, err := Update(context.Background(), f.Open(), opt)
			var ie *reply.InputError
			if !errors.As(err, &ie) || ie.Argument != tt.arg || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
