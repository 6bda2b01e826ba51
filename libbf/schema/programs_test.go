package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/status"
)

// closed compiles kind with every object that lists its properties closed to other keys
// (unevaluatedProperties false), except objects that say what else they hold and the
// subschemas of if, then, else and not, which only add conditions. The published schemas
// stay open for later releases; the closed form shows that today's replies carry no key a
// schema leaves undocumented.
func closed(t *testing.T, kind string) *jsonschema.Schema {
	t.Helper()
	data, err := schema.Get(kind)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(node any, conditional bool)
	walk = func(node any, conditional bool) {
		switch n := node.(type) {
		case map[string]any:
			_, props := n["properties"]
			_, open := n["additionalProperties"]
			_, unevaluated := n["unevaluatedProperties"]
			if props && !open && !unevaluated && !conditional {
				n["unevaluatedProperties"] = false
			}
			for k, v := range n {
				switch k {
				case "if", "then", "else", "not":
					walk(v, true)
				case "const", "enum", "default", "examples":
				default:
					walk(v, conditional)
				}
			}
		case []any:
			for _, v := range n {
				walk(v, conditional)
			}
		}
	}
	walk(doc, false)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem:///closed-" + kind + ".schema.json"
	if err := c.AddResource(url, inst); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("closed %s does not compile: %v", kind, err)
	}
	return s
}

// sortedKeys reports the first object whose keys are not in sorted order, as bf prints
// every reply with sorted keys.
func sortedKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var value func() error
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			prev := ""
			for first := true; dec.More(); first = false {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if !first && key <= prev {
					return fmt.Errorf("key %q follows %q", key, prev)
				}
				prev = key
				if err := value(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := value(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := value(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

// replyCheck validates printed replies of one kind against the published schema and its
// closed form.
type replyCheck struct {
	t            *testing.T
	kind         string
	open, strict *jsonschema.Schema
}

func newReplyCheck(t *testing.T, kind string) *replyCheck {
	return &replyCheck{t: t, kind: kind, open: compiled(t, kind), strict: closed(t, kind)}
}

// check validates v as printed, and requires the printed reply to contain each of want, so
// that the case shows what it is for.
func (c *replyCheck) check(name string, v any, want ...string) {
	c.t.Helper()
	b, err := reply.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, w := range want {
		if !bytes.Contains(b, []byte(w)) {
			c.t.Errorf("%s %s: the reply has no %s: %s", c.kind, name, w, b)
		}
	}
	if err := sortedKeys(b); err != nil {
		c.t.Errorf("%s %s: keys not sorted: %v\nreply: %s", c.kind, name, err, b)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.open.Validate(inst); err != nil {
		c.t.Errorf("%s %s: %v\nreply: %s", c.kind, name, err, b)
	}
	if err := c.strict.Validate(inst); err != nil {
		c.t.Errorf("%s %s: a key the schema does not document: %v\nreply: %s", c.kind, name, err, b)
	}
}

const opsConfig = `version: 8
name: ops
fields:
  team:
    description: The team owning the item.
    type: string
sensors:
  cal:
    command: [sensors/cal, "{{start}}", "{{end}}"]
    refresh: 3600
    lookback: 7200
  broken:
    command: [sensors/broken]
    refresh: 3600
  partial:
    command: [sensors/partial]
    refresh: 3600
  feed:
    command: [sensors/feed]
    refresh: 3600
    mode: snapshot
    silent_after: 3600
  hand:
    command: [sensors/hand]
    fields:
      team: {value: billing}
  later:
    command: [sensors/cal, "{{start}}", "{{end}}"]
    refresh: 3600
  off:
    command: [sensors/hand]
    refresh: 3600
    enabled: false
routines:
  review:
    command: [routines/review]
    refresh: 3600
    output: action
  notes:
    command: [routines/notes]
    refresh: 3600
  bad:
    command: [routines/bad]
    refresh: 3600
    output: action
  weekly:
    command: [routines/notes]
  dormant:
    command: [routines/notes]
    refresh: 3600
    enabled: false
assistants:
  daily:
    command: [assistants/daily]
    schedules:
      morning: {every: 86400}
`

// machine is a private home: its state folder holds trust and run history.
type machine struct {
	t     *testing.T
	env   brain.Env
	home  string
	clock time.Time
}

func newMachine(t *testing.T) *machine {
	home := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state")}
	return &machine{t: t, home: home, clock: now,
		env: brain.Env{Home: home, Getenv: func(k string) string { return vars[k] }}}
}

// brain writes a brain folder with config and files (an executable when its path starts
// with sensors/ or routines/), trusting it to collect when asked.
func (m *machine) brain(name, config string, trusted bool, files map[string]string) string {
	m.t.Helper()
	root := filepath.Join(m.home, name)
	writeFile(m.t, root, "bf.yaml", config)
	for rel, text := range files {
		writeFile(m.t, root, rel, text)
		if strings.HasPrefix(rel, "sensors/") || strings.HasPrefix(rel, "routines/") {
			if err := os.Chmod(filepath.Join(root, filepath.FromSlash(rel)), 0o755); err != nil {
				m.t.Fatal(err)
			}
		}
	}
	if trusted {
		if err := m.env.Trust(root); err != nil {
			m.t.Fatal(err)
		}
	}
	return root
}

func (m *machine) open(root string) *brain.Brain {
	m.t.Helper()
	b, err := m.env.Open(root)
	if err != nil {
		m.t.Fatal(err)
	}
	return b
}

func (m *machine) options(mutate func(*collect.Options)) collect.Options {
	opt := collect.Options{Env: &m.env, Location: zone, Now: func() time.Time { return m.clock }}
	if mutate != nil {
		mutate(&opt)
	}
	return opt
}

func (m *machine) collect(root, sensor string, mutate func(*collect.Options)) *collect.Reply {
	m.t.Helper()
	r, err := collect.Collect(context.Background(), m.open(root), sensor, m.options(mutate))
	if err != nil {
		m.t.Fatalf("collect %s: %v", sensor, err)
	}
	return r
}

func (m *machine) update(root string, mutate func(*collect.Options)) *collect.UpdateReply {
	m.t.Helper()
	r, err := collect.Update(context.Background(), m.open(root), m.options(mutate))
	if err != nil {
		m.t.Fatalf("update: %v", err)
	}
	return r
}

func (m *machine) status(roots []string, mutate func(*status.Options)) *status.Reply {
	m.t.Helper()
	var brains []*brain.Brain
	for _, root := range roots {
		brains = append(brains, m.open(root))
	}
	opt := status.Options{Env: &m.env, Location: zone, Now: func() time.Time { return m.clock }}
	if mutate != nil {
		mutate(&opt)
	}
	r, err := status.Status(context.Background(), brains, opt)
	if err != nil {
		m.t.Fatal(err)
	}
	return r
}

// opsBrain writes the brain of opsConfig: cal prints one record naming its window, broken
// fails, partial reports missed items, feed is a snapshot that never changes, hand prints
// four records with every member a record can have; review writes an action, notes logs and
// bad prints an invalid action. memories/gone holds records no sensor declares.
func opsBrain(m *machine) string {
	hand := `[{"id":"h1","title":"One","text":"Body","time":"2026-10-14T09:30:00+02:00","url":"https://example.test/h1",` +
		`"links":["repo:github.com/acme/b","person:email/dana@example.test","repo:github.com/acme/b"],"aliases":["jira:OPS-1"],` +
		`"attributes":{"updated":"2026-10-14T09:00:00Z","partial":true,"labels":["x"]}},` +
		`{"id":"h2","title":"Two","attributes":{"updated":""}},{"id":"h3","title":"Three"},{"id":"h4","title":"Four"}]`
	return m.brain("ops", opsConfig, true, map[string]string{
		"projects/plan.md":                       "---\ntype: project\n---\n# Plan\n",
		"memories/gone/" + record.FileName("g1"): `{"id":"g1","title":"Gone"}`,
		"sensors/cal":                            "#!/bin/sh\nprintf '[{\"id\":\"c1\",\"title\":\"window %s %s\"}]' \"$1\" \"$2\"\n",
		"sensors/broken":                         "#!/bin/sh\necho 'provider said no' >&2\nexit 3\n",
		"sensors/partial":                        "#!/bin/sh\necho '{\"records\":[{\"id\":\"p1\",\"title\":\"P\"}],\"incomplete\":{\"missed\":2}}'\n",
		"sensors/feed":                           "#!/bin/sh\necho '[{\"id\":\"f1\",\"title\":\"Feed\"}]'\n",
		"sensors/hand":                           "#!/bin/sh\necho '" + hand + "'\n",
		"routines/review":                        "#!/bin/sh\nprintf '%s\\n' '---' 'type: action' '---' '# Review' '' 'Looked.'\n",
		"routines/notes":                         "#!/bin/sh\necho noted\n",
		"routines/bad":                           "#!/bin/sh\necho '# No front matter'\n",
	})
}

// TestProgramRepliesValidate runs bf collect, bf update and bf status on brains of a
// private machine and validates every reply against its schema.
func TestProgramRepliesValidate(t *testing.T) {
	m := newMachine(t)
	ops := opsBrain(m)
	collects := newReplyCheck(t, "collect-reply")
	updates := newReplyCheck(t, "update-reply")
	statuses := newReplyCheck(t, "status-reply")
	t0 := m.clock

	// Before anything ran: what is due, and the manual programs.
	updates.check("dry run", m.update(ops, func(o *collect.Options) { o.DryRun = true }),
		`"dry_run":true`, `"status":"due"`, `"manual":{"routines":["weekly"],"sensors":["hand"]}`)
	updates.check("selected dry run", m.update(ops, func(o *collect.Options) {
		o.DryRun, o.Sensors = true, []string{"hand", "off"}
	}), `{"brain":"ops","manual":{"sensors":["hand"]}}`)

	// later stays out of every update, so it never runs.
	selected := func(sensors, routines []string) func(*collect.Options) {
		return func(o *collect.Options) { o.Sensors, o.Routines = sensors, routines }
	}
	updates.check("run", m.update(ops, selected([]string{"broken", "cal", "feed", "partial"}, []string{"bad", "notes", "review"})),
		`"status":"collected"`, `"status":"failed"`, `"error":"sensor broken failed`, `"incomplete":{"missed":2}`,
		`"action":"actions/2026-10-14_review/ACTION.md"`, `"status":"ran"`, `"index":{"problems":[],"state":"ready"}`, `"ok":false`)

	statuses.check("after the run", m.status([]string{ops}, nil), `"action":"actions/2026-10-14_review/ACTION.md"`)

	collects.check("dry run", m.collect(ops, "hand", func(o *collect.Options) { o.DryRun = true }),
		`"records":4,"samples":[`, `"fields":{"team":"billing"}`, `"time":"2026-10-14T07:30:00.000000Z"`, `"observed":`)
	collects.check("incomplete dry run", m.collect(ops, "partial", func(o *collect.Options) { o.DryRun = true }),
		`{"incomplete":{"missed":2},"records":1,"samples":[`)
	collects.check("collected", m.collect(ops, "hand", nil), `{"added":4,"records":4,"removed":0,"sensor":"hand","unchanged":0,"updated":0}`)
	collects.check("collected again", m.collect(ops, "hand", nil), `"unchanged":4`)
	collects.check("incomplete", m.collect(ops, "partial", nil), `{"added":0,"incomplete":{"missed":2},"records":1`)

	// An hour later the same day: review's action folder exists, feed prints the same record.
	m.clock = t0.Add(61 * time.Minute)
	updates.check("second run", m.update(ops, selected([]string{"cal", "feed"}, []string{"review"})),
		`"status":"skipped"`, `"unchanged":1`, `"ok":true`)

	// Status: cal fresh, feed fresh but silent, broken failed and never, later and partial
	// never, hand manual, off disabled, gone historical; review fresh with its action, bad
	// failed, weekly manual, dormant disabled; the assistant has a schedule.
	m.clock = t0.Add(119 * time.Minute)
	statuses.check("one brain", m.status([]string{ops}, nil),
		`"cal":{"freshness":"fresh"`, `"silent":true`, `"broken":{"error":"sensor broken failed`, `"failed":true,"freshness":"never"`,
		`"log":"logs/broken.log"`, `"later":{"freshness":"never"`, `"hand":{"freshness":"manual"`, `"state":"disabled"`,
		`"gone":{"freshness":"unknown","records":1,"state":"historical"}`, `"incomplete":{"missed":2}`,
		`"last_run":{"added":0,"records":1,"removed":0,"unchanged":1,"updated":0}`, `"window":{"since":`,
		`"dormant":{"enabled":false,"freshness":"unknown"}`,
		`{"failed":true,"freshness":"never","routine":"bad"}`,
		`"index":{"notes":`, `"state":"ready"`, `"healthy":false`)
	m.clock = t0.Add(5 * time.Hour)
	statuses.check("overdue", m.status([]string{ops}, nil), `"freshness":"overdue"`)

	// Another bf process holds the cache while a note changed: the previous generation.
	writeFile(t, ops, "projects/next.md", "---\ntype: project\n---\n# Next\n")
	held, err := lock.Acquire(context.Background(), filepath.Join(ops, cache.Dir), cache.WriterLockFile, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	statuses.check("stale cache", m.status([]string{ops}, nil), `"state":"stale"`)
	held.Release()

	// idle may not collect here and holds a record the cache skips; cold cannot open its
	// cache; calm is healthy. The selection skipped a brain; messaging reports on some.
	idle := m.brain("idle", strings.Replace(opsConfig, "name: ops", "name: idle", 1), false, map[string]string{
		"memories/cal/" + record.FileName("bad"): `{"id":"bad"}`,
	})
	cold := m.brain("cold", "version: 8\nname: cold\n", false, map[string]string{".bf": "not a folder\n"})
	calm := m.brain("calm", "version: 8\nname: calm\n", false, map[string]string{"concepts/a.md": "---\ntype: concept\n---\n# A\n"})
	updates.check("untrusted", m.update(idle, nil), `{"brains":[{"brain":"idle","skipped":"not trusted to collect on this machine"}],"dry_run":false,"ok":true}`)
	updates.check("untrusted dry run", m.update(idle, func(o *collect.Options) { o.DryRun = true }), `"skipped":`)
	messaging := func(ctx context.Context, b *brain.Brain) (any, bool, error) {
		switch b.Name {
		case "ops":
			return channelBlock{"channels": map[string]any{"chat": map[string]any{"state": "ok"}}, "queue": map[string]int{"failed": 2}}, false, nil
		case "idle":
			return nil, false, errors.New("the queue cannot be read")
		}
		return nil, true, nil
	}
	statuses.check("several brains", m.status([]string{ops, idle, cold, calm}, func(o *status.Options) {
		o.Problems = []brain.Problem{{Brain: "lost", Error: "brain folder does not exist"}}
		o.Messaging = messaging
	}), `"messaging":{"channels":`, `{"channel":"chat","unresolved":2}`, `{"channel":"inbox","failed":true}`, `"problems":[{"error":"the queue cannot be read"}]`, `"collect":false`,
		`"problems":[{"error":`, `"file":"memories/cal/`, `"state":"unavailable"`, `"error":`,
		`"problems":[{"brain":"lost","error":"brain folder does not exist"}]`)
	statuses.check("healthy", m.status([]string{calm}, func(o *status.Options) { o.Messaging = messaging }),
		`"attention":[],"brain":"calm","collect":false,"healthy":true,"index":{"notes":1,"problems":[],"records":0,"state":"ready"}`,
		`"routines":{},"sources":{}}],"healthy":true}`)
	statuses.check("no brains", m.status(nil, nil), `{"brains":[],"healthy":true}`)

	// A trusted brain whose cache cannot be opened: its routine runs, the refresh fails.
	broken := m.brain("shaky", "version: 8\nname: shaky\nroutines:\n  notes:\n    command: [routines/notes]\n    refresh: 3600\n", true,
		map[string]string{"routines/notes": "#!/bin/sh\necho noted\n"})
	if err := os.RemoveAll(filepath.Join(broken, cache.Dir)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, broken, cache.Dir, "not a folder\n")
	updates.check("failed refresh", m.update(broken, nil), `"state":"failed"`, `"ok":false`)
}

// TestProgramSchemasReject checks that the schemas refuse replies that break them, and that
// their closed forms refuse undocumented keys.
func TestProgramSchemasReject(t *testing.T) {
	const (
		local   = `"2026-10-14T12:00:00+01:00"`
		sensor  = `{"end":` + local + `,"sensor":"cal","start":` + local
		routine = `{"end":` + local + `,"routine":"review","start":` + local
		counts  = `"added":1,"records":1,"removed":0,"unchanged":0,"updated":0`
		index   = `"index":{"problems":[],"state":"ready"}`
		source  = `{"freshness":"fresh","mode":"window","state":"active"}`
		brainOK = `"attention":[],"brain":"b","collect":true,"healthy":true,"index":{"notes":0,"problems":[],"records":0,"state":"ready"},"path":"/b","routines":{},`
	)
	statusOf := func(brainRest string) string {
		return `{"brains":[{` + brainOK + brainRest + `}],"healthy":true}`
	}
	updateOf := func(dry, ok bool, b string) string {
		return fmt.Sprintf(`{"brains":[%s],"dry_run":%v,"ok":%v}`, b, dry, ok)
	}
	// What each schema makes of a document: both refuse it, only the closed form refuses
	// it (an undocumented key), or both accept it.
	const (
		bad = iota
		unknownKey
		good
	)
	cases := []struct {
		kind, doc string
		want      int
	}{
		// Sanity: the bases of the cases below are valid.
		{"collect-reply", `{"added":1,"records":1,"removed":0,"sensor":"cal","unchanged":0,"updated":0}`, good},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"collected",`+counts+`}]}`), good},
		{"status-reply", statusOf(`"sources":{"cal":` + source + `}`), good},

		// collect-reply
		{"collect-reply", `{"added":1,"records":1,"removed":0,"sensor":"cal","unchanged":0,"updated":0,"later":1}`, unknownKey},
		{"collect-reply", `{"added":1,"records":1,"removed":0,"sensor":"cal","unchanged":0}`, bad},
		{"collect-reply", `{"added":-1,"records":1,"removed":0,"sensor":"cal","unchanged":0,"updated":0}`, bad},
		{"collect-reply", `{"added":1,"incomplete":{"missed":0},"records":1,"removed":0,"sensor":"cal","unchanged":0,"updated":0}`, bad},
		{"collect-reply", `{"records":1,"samples":[],"sensor":"Cal"}`, bad},
		{"collect-reply", `{"added":1,"records":1,"removed":0,"samples":[],"sensor":"cal","unchanged":0,"updated":0}`, bad},
		{"collect-reply", `{"records":4,"samples":[{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"a","title":"A"},{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"b","title":"B"},{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"c","title":"C"},{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"d","title":"D"}],"sensor":"cal"}`, bad},
		{"collect-reply", `{"records":1,"samples":[{"attributes":{"observed":"2026-10-14T12:00:00+01:00"},"id":"a","title":"A"}],"sensor":"cal"}`, bad},
		{"collect-reply", `{"records":1,"samples":[{"id":"a","title":"A"}],"sensor":"cal"}`, bad},
		{"collect-reply", `{"records":1,"samples":[{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"a","title":"A","links":[]}],"sensor":"cal"}`, bad},
		{"collect-reply", `{"records":1,"samples":[{"attributes":{"observed":"2026-10-14T11:00:00.000000Z"},"id":"a","title":"A","owner":"x"}],"sensor":"cal"}`, unknownKey},

		// update-reply
		{"update-reply", `{"brains":[],"dry_run":false,"ok":true}`, bad},
		{"update-reply", `{"brains":[{"brain":"b",` + index + `}],"ok":true}`, bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"extra":1}`), unknownKey},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"stored",`+counts+`}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"collected"}]}`), bad},
		{"update-reply", updateOf(false, false, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"failed"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"error":"x","status":"failed"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"due"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[{"end":"2026-10-14T11:00:00Z","sensor":"cal","start":"yesterday","status":"collected",`+counts+`}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"sensors":[`+sensor+`,"status":"collected",`+counts+`,"elapsed":1}]}`), unknownKey},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"routines":[`+routine+`,"action":"actions/2026-10-14_review/ACTION.md","status":"skipped"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"routines":[`+routine+`,"action":"actions/review.md","status":"ran"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b",`+index+`,"routines":[`+routine+`,"status":"collected"}]}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b"}`), bad},
		{"update-reply", updateOf(true, true, `{"brain":"b",`+index+`}`), bad},
		{"update-reply", updateOf(true, true, `{"brain":"b","sensors":[`+sensor+`,"status":"collected",`+counts+`}]}`), bad},
		{"update-reply", updateOf(true, true, `{"brain":"b","manual":{}}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b","index":{"problems":[],"state":"gone"}}`), bad},
		{"update-reply", updateOf(false, false, `{"brain":"b","index":{"problems":[],"state":"failed"}}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b","index":{"problems":[{"error":"x","file":"a.md"}],"state":"ready"}}`), bad},
		{"update-reply", updateOf(false, true, `{"brain":"b","skipped":"x",`+index+`}`), bad},

		// status-reply
		{"status-reply", `{"brains":[],"healthy":true,"later":1}`, unknownKey},
		{"status-reply", `{"brains":[]}`, bad},
		{"status-reply", `{"brains":[],"healthy":true,"problems":[{"brain":"x","error":"gone"}]}`, bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"stale","mode":"window","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","mode":"stream","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","mode":"window","state":"gone"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","mode":"window","state":"active","colour":"red"}}`), unknownKey},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","state":"historical"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"unknown","mode":"window","state":"historical"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"failed":true,"freshness":"fresh","mode":"window","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","mode":"snapshot","state":"active","window":{"since":` + local + `,"until":` + local + `}}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","last_collected":"2026-10-14","mode":"window","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"cal":{"freshness":"fresh","last_run":{"added":1},"mode":"window","state":"active"}}`), bad},
		{"status-reply", statusOf(`"sources":{"Cal":` + source + `}`), bad},
		{"status-reply", statusOf(`"sources":{},"messaging":"fine"`), bad},
		{"status-reply", statusOf(`"sources":{},"messaging":{"anything":[1,2]}`), good},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"routines":{}`, `"routines":{"r":{"enabled":false,"freshness":"fresh"}}`, 1) + `"sources":{}}],"healthy":true}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"routines":{}`, `"routines":{"r":{"enabled":true,"error":"x","freshness":"fresh"}}`, 1) + `"sources":{}}],"healthy":true}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"attention":[]`, `"attention":[{"freshness":"never","sensor":"cal"}]`, 1) + `"sources":{}}],"healthy":true}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(strings.Replace(brainOK, `"attention":[]`, `"attention":[{"freshness":"never","sensor":"cal"}]`, 1), `"collect":true,"healthy":true`, `"collect":false,"healthy":false`, 1) + `"sources":{}}],"healthy":false}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"healthy":true`, `"healthy":false`, 1) + `"sources":{}}],"healthy":true}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(strings.Replace(brainOK, `"attention":[]`, `"attention":[{"freshness":"manual","sensor":"cal"}]`, 1), `"healthy":true`, `"healthy":false`, 1) + `"sources":{}}],"healthy":false}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(strings.Replace(brainOK, `"attention":[]`, `"attention":[{"freshness":"fresh","sensor":"cal"}]`, 1), `"healthy":true`, `"healthy":false`, 1) + `"sources":{}}],"healthy":false}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(strings.Replace(brainOK, `"attention":[]`, `"attention":[{"freshness":"never","routine":"r","sensor":"cal"}]`, 1), `"healthy":true`, `"healthy":false`, 1) + `"sources":{}}],"healthy":false}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"state":"ready"`, `"state":"unavailable"`, 1) + `"sources":{}}],"healthy":false}`, bad},
		{"status-reply", `{"brains":[{` + strings.Replace(brainOK, `"state":"ready"`, `"state":"broken"`, 1) + `"sources":{}}],"healthy":false}`, bad},
	}
	for _, c := range cases {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		if err := compiled(t, c.kind).Validate(inst); (err == nil) != (c.want != bad) {
			t.Errorf("%s: published schema: %v on %s", c.kind, orAccepted(err), c.doc)
		}
		if err := closed(t, c.kind).Validate(inst); (err == nil) != (c.want == good) {
			t.Errorf("%s: closed schema: %v on %s", c.kind, orAccepted(err), c.doc)
		}
	}
}

func orAccepted(err error) any {
	if err == nil {
		return "accepted"
	}
	return err
}

// TestProgramSchemasCoverReplies checks that the properties of each reply object in the
// schemas are exactly the JSON keys of its Go type.
func TestProgramSchemasCoverReplies(t *testing.T) {
	docs := map[string]map[string]any{}
	for _, kind := range []string{"collect-reply", "update-reply", "status-reply"} {
		data, _ := schema.Get(kind)
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		docs[kind] = doc
	}
	props := func(kind string, path ...string) []string {
		var node any = docs[kind]
		for _, p := range path {
			node = node.(map[string]any)[p]
		}
		var keys []string
		for k := range node.(map[string]any)["properties"].(map[string]any) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	}
	def := func(kind, name string) []string { return props(kind, "$defs", name) }
	union := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			for _, k := range l {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		sort.Strings(out)
		return out
	}
	const u, s = "update-reply", "status-reply"
	cases := []struct {
		typ  any
		keys []string
	}{
		{collect.UpdateReply{}, props(u)},
		{collect.BrainUpdate{}, union(def(u, "Skipped"), def(u, "BrainError"), def(u, "Planned"), def(u, "Ran"))},
		{collect.Index{}, def(u, "Index")},
		{collect.Manual{}, def(u, "Manual")},
		{collect.SensorRun{}, def(u, "SensorRun")},
		{collect.RoutineRun{}, def(u, "RoutineRun")},
		{collect.Incomplete{}, props(u, "$defs", "SensorRun", "properties", "incomplete")},
		{status.Reply{}, props(s)},
		{status.Brain{}, def(s, "Brain")},
		{status.Index{}, def(s, "Index")},
		{status.Source{}, def(s, "Source")},
		{status.Incomplete{}, props(s, "$defs", "Source", "properties", "incomplete")},
		{history.Counts{}, def(s, "Counts")},
		{status.Routine{}, def(s, "Routine")},
		{status.Attention{}, def(s, "Attention")},
	}
	for _, c := range cases {
		rt := reflect.TypeOf(c.typ)
		keys := goKeys(c.typ)
		if !slices.Equal(keys, c.keys) {
			t.Errorf("%s.%s: Go keys %v, schema keys %v", rt.PkgPath(), rt.Name(), keys, c.keys)
		}
	}
	// bf collect prints its reply by hand: the stored run and the dry run.
	if got, want := union(def("collect-reply", "Collected"), def("collect-reply", "DryRun")),
		[]string{"added", "incomplete", "records", "removed", "samples", "sensor", "unchanged", "updated"}; !slices.Equal(got, want) {
		t.Errorf("collect-reply keys %v, want %v", got, want)
	}
}

// channelBlock is a messaging block that names the channels holding unresolved deliveries,
// as package messaging's does.
type channelBlock map[string]any

func (channelBlock) UnresolvedByChannel() map[string]int {
	return map[string]int{"chat": 2, "quiet": 0}
}

func (channelBlock) FailingChannels() map[string]bool {
	return map[string]bool{"inbox": true}
}
