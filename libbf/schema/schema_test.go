package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/search"
	"github.com/bfgo/bf/libbf/starter"
	"github.com/bfgo/bf/libbf/yamlx"
)

// compiled compiles every kind once per test binary, asserting formats (date, date-time).
func compiled(t *testing.T, kind string) *jsonschema.Schema {
	t.Helper()
	data, err := schema.Get(kind)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem:///" + kind + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s does not compile: %v", kind, err)
	}
	return s
}

// instance turns any Go value (YAML trees included) into a validator instance.
func instance(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func yamlInstance(t *testing.T, file string, data []byte) any {
	t.Helper()
	tree, err := yamlx.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return instance(t, tree)
}

func TestKinds(t *testing.T) {
	want := []string{"brain", "registry", "eval", "search-reply", "read-reply", "collect-reply", "update-reply", "status-reply", "remember-reply", "recall-reply", "brief-reply", "import-reply", "ask-reply"}
	if got := schema.Kinds(); !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	titles := map[string]string{
		"brain": "Config", "registry": "UserConfig", "eval": "Suite",
		"search-reply": "bf search reply", "read-reply": "bf read reply",
		"collect-reply": "bf collect reply", "update-reply": "bf update reply", "status-reply": "bf status reply", "remember-reply": "bf remember reply", "recall-reply": "bf recall reply", "brief-reply": "bf brief reply",
		"import-reply": "bf import reply", "ask-reply": "bf ask reply",
	}
	for _, kind := range want {
		data, err := schema.Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if doc["title"] != titles[kind] {
			t.Errorf("%s: title %v, want %q", kind, doc["title"], titles[kind])
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %v", kind, doc["$schema"])
		}
		if bytes.Contains(data, []byte(`"additionalProperties":false`)) {
			t.Errorf("%s: published schemas stay open", kind)
		}
		if bytes.ContainsAny(data, "\n") || bytes.Contains(data, []byte(`\u003c`)) {
			t.Errorf("%s: expected compact JSON without HTML escapes", kind)
		}
		compiled(t, kind)
	}
	def, _ := schema.Get("")
	brainSchema, _ := schema.Get("brain")
	if !bytes.Equal(def, brainSchema) {
		t.Error("an empty kind should print the brain schema")
	}
}

func TestUnknownKind(t *testing.T) {
	_, err := schema.Get("status")
	var ie *reply.InputError
	if !errors.As(err, &ie) || ie.Argument != "kind" {
		t.Fatalf("err = %v, want an InputError on kind", err)
	}
	want := "invalid input: kind: expected brain, registry, eval, search-reply, read-reply, collect-reply, update-reply, status-reply, remember-reply, recall-reply, brief-reply, import-reply or ask-reply"
	if err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
}

func TestGetReturnsACopy(t *testing.T) {
	a, _ := schema.Get("eval")
	a[0] = 'x'
	b, _ := schema.Get("eval")
	if b[0] != '{' {
		t.Fatal("Get must not hand out its own buffer")
	}
}

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestBrainSchemaAcceptsValidConfigs(t *testing.T) {
	s := compiled(t, "brain")
	full, err := os.ReadFile(filepath.Join("..", "config", "testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	starterYAML, err := config.Starter("fresh").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"examples/brain/bf.yaml":    repoFile(t, "examples/brain/bf.yaml"),
		"config/testdata/full.yaml": full,
		"starter":                   starterYAML,
		"nulls":                     []byte("version: 8\nname: x\nbrains:\nsensors:\nwatch:\n  interval:\nvalidate:\n"),
	}
	for name, data := range cases {
		if _, err := config.Parse("bf.yaml", data); err != nil {
			t.Fatalf("%s: config rejects it: %v", name, err)
		}
		if err := s.Validate(yamlInstance(t, name, data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestBrainSchemaRejects checks that values config.Parse refuses fail the schema too.
func TestBrainSchemaRejects(t *testing.T) {
	s := compiled(t, "brain")
	const head = "version: 8\nname: acme\n"
	cases := map[string]string{
		"version":        "version: 7\nname: acme\n",
		"no name":        "version: 8\n",
		"name":           "version: 8\nname: Acme\n",
		"brain path":     head + "brains:\n  team: {}\n",
		"builtin field":  head + "fields:\n  cites: {description: x, type: identity}\n",
		"field type":     head + "fields:\n  f: {description: x, type: date}\n",
		"relation type":  head + "fields:\n  f: {description: x, type: string, relation: true}\n",
		"broader":        head + "fields:\n  f: {description: x, type: identity, broader: g}\n",
		"targets":        head + "fields:\n  f: {description: x, type: identity, relation: true, targets: []}\n",
		"pointer":        head + "fields:\n  f: {description: x, type: string, default: attributes}\n",
		"sensor command": head + "sensors:\n  s: {command: []}\n",
		"sensor program": head + "sensors:\n  s: {command: [routines2/x.sh]}\n",
		"sensor timeout": head + "sensors:\n  s: {command: [x], timeout: 0}\n",
		"sensor mode":    head + "sensors:\n  s: {command: [x], mode: stream}\n",
		"reconcile":      head + "sensors:\n  s: {command: [x], mode: snapshot, reconcile: {refresh: 1, lookback: 1}}\n",
		"mapping":        head + "fields:\n  f: {description: x, type: string}\nsensors:\n  s: {command: [x], fields: {f: {path: /a, value: b}}}\n",
		"routine name":   head + "routines:\n  a--b: {command: [x]}\n",
		"routine keep":   head + "routines:\n  r: {command: [x], keep: 3}\n",
		"hooks":          head + "routines:\n  r: {command: [x], hooks: [pre-push, pre-push]}\n",
		"watch":          head + "watch: {poll_interval: 0.1}\n",
		"notifications":  head + "watch: {notifications: some}\n",
		"channel":        head + "channels:\n  c: {}\n",
		"stream bytes":   head + "channels:\n  c: {stream: {command: [x], max_bytes: 10}}\n",
		"schedule":       head + "assistants:\n  a: {command: [x], schedules: {s: {every: 60, at: '08:00'}}}\n",
		"at":             head + "assistants:\n  a: {command: [x], schedules: {s: {at: '8:00'}}}\n",
		"retries":        head + "assistants:\n  a: {command: [x], idempotent: true, retries: 21}\n",
		"status":         head + "validate: {required_status: [final]}\n",
	}
	for name, text := range cases {
		if _, err := config.Parse("bf.yaml", []byte(text)); err == nil {
			t.Fatalf("%s: config accepts it; the case is wrong", name)
		}
		if err := s.Validate(yamlInstance(t, name, []byte(text))); err == nil {
			t.Errorf("%s: the schema accepts what bf.yaml refuses", name)
		}
	}
}

// TestBrainSchemaCoversConfig checks that every key of the config types has a property in
// the schema, and that the schema names no key the types lack.
func TestBrainSchemaCoversConfig(t *testing.T) {
	data, _ := schema.Get("brain")
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	props := func(path ...string) []string {
		var node any = doc
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
	defs := func(name string) []string { return props("$defs", name) }
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
	cases := []struct {
		typ  any
		keys []string
	}{
		{config.Config{}, props()},
		{config.Brain{}, defs("Brain")},
		{config.Field{}, defs("Field")},
		{config.Mapping{}, defs("Mapping")},
		{config.Sensor{}, defs("Sensor")},
		{config.Reconcile{}, props("$defs", "Sensor", "properties", "reconcile")},
		{config.Routine{}, defs("Routine")},
		{config.Watch{}, defs("Watch")},
		{config.Assistant{}, defs("Assistant")},
		{config.Schedule{}, defs("Schedule")},
		{config.Input{}, defs("Input")},
		{config.Reply{}, props("$defs", "Assistant", "properties", "reply")},
		{config.When{}, props("$defs", "Assistant", "properties", "when")},
		{config.Channel{}, defs("Channel")},
		{config.Capability{}, union(defs("SendCapability"), defs("ReadCapability"), defs("StreamCapability"))},
		{config.Validate{}, defs("Validate")},
	}
	for _, c := range cases {
		rt := reflect.TypeOf(c.typ)
		keys := goKeys(c.typ)
		if !slices.Equal(keys, c.keys) {
			t.Errorf("%s: Go keys %v, schema keys %v", rt.Name(), keys, c.keys)
		}
	}
}

func TestRegistrySchema(t *testing.T) {
	s := compiled(t, "registry")
	valid := []string{
		"# bf machine registry\nbrains:\n  work:\n    path: /home/me/work\n  team-brain:\n    path: ~/team-brain\n  home:\n    path: \"~\"\n",
		"brains:\n",
		"{}\n",
	}
	for _, text := range valid {
		if err := s.Validate(yamlInstance(t, "config.yaml", []byte(text))); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
	invalid := []string{
		"brains:\n  work:\n    path: work\n",
		"brains:\n  work:\n    path: ~me/work\n",
		"brains:\n  Work:\n    path: /w\n",
		"brains:\n  work: {}\n",
		"brains:\n  work:\n    path: \"\"\n",
	}
	for _, text := range invalid {
		if err := s.Validate(yamlInstance(t, "config.yaml", []byte(text))); err == nil {
			t.Errorf("%q: accepted", text)
		}
	}
}

func TestEvalSchema(t *testing.T) {
	s := compiled(t, "eval")
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := starter.Write(dir, starter.Options{Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	starterSuite, err := os.ReadFile(filepath.Join(dir, "evals", "retrieval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"examples/brain/evals/retrieval.yaml": repoFile(t, "examples/brain/evals/retrieval.yaml"),
		"starter":                             starterSuite,
	} {
		if err := s.Validate(yamlInstance(t, name, data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	const head = "version: 8\ncases:\n"
	invalid := map[string]string{
		"version":         "version: 7\ncases:\n  - {name: a, query: x, empty: true}\n",
		"no cases":        "version: 8\ncases: []\n",
		"both":            head + "  - {name: a, query: x, read: y, empty: true}\n",
		"neither":         head + "  - {name: a, empty: true}\n",
		"blank query":     head + "  - {name: a, query: '  ', empty: true}\n",
		"read with limit": head + "  - {name: a, read: x, limit: 3, empty: true}\n",
		"read with scope": head + "  - {name: a, read: x, scope: projects, empty: true}\n",
		"empty and text":  head + "  - {name: a, query: x, empty: true, text: [y]}\n",
		"no assertion":    head + "  - {name: a, query: x}\n",
		"limit":           head + "  - {name: a, query: x, limit: 51, empty: true}\n",
		"blank name":      head + "  - {name: ' ', query: x, empty: true}\n",
		"blank expect":    head + "  - {name: a, query: x, expect: ['']}\n",
	}
	for name, text := range invalid {
		if err := s.Validate(yamlInstance(t, name, []byte(text))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	valid := head + "  - {name: home, read: '', text: [projects]}\n  - {name: q, query: x, scope: projects, limit: 3, expect: [projects/a.md], forbid: [projects/b.md], empty: false}\n"
	if err := s.Validate(yamlInstance(t, "valid", []byte(valid))); err != nil {
		t.Error(err)
	}
}

// exampleBrain opens a copy of examples/brain.
func exampleBrain(t *testing.T) *brain.Brain {
	t.Helper()
	root := brainfix.Copy(t, filepath.Join("..", "..", "examples", "brain"), false)
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	zone = time.FixedZone("CET", 3600)
	now  = time.Date(2026, 10, 14, 12, 0, 0, 0, zone)
)

// validateReply checks an encoded reply against a schema.
func validateReply(t *testing.T, s *jsonschema.Schema, name string, v any) {
	t.Helper()
	b, err := reply.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s: %v\nreply: %s", name, err, b)
	}
}

func TestSearchRepliesValidate(t *testing.T) {
	s := compiled(t, "search-reply")
	acme := exampleBrain(t)
	other := filepath.Join(t.TempDir(), "fresh")
	if _, err := starter.Write(other, starter.Options{Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	fresh, err := brain.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	one := []*brain.Brain{acme}
	both := []*brain.Brain{acme, fresh}
	cases := []struct {
		name   string
		req    search.Request
		expect func(*search.Reply) bool
	}{
		{"words", search.Request{Query: "Why does the ledger use double-entry postings?", Brains: one},
			func(r *search.Reply) bool { return len(r.Items) > 0 }},
		{"identity", search.Request{Query: "repo:github.com/acme/billing", Brains: one},
			func(r *search.Reply) bool {
				return len(r.Items) > 0 && len(r.Items[0].Relations) > 0 || len(r.Items) > 1
			}},
		{"unknown identity", search.Request{Query: "re:invent", Brains: one},
			func(r *search.Reply) bool { return r.Identity == "unknown" }},
		{"unmatched", search.Request{Query: "ledgr bfabsentword", Brains: one},
			func(r *search.Reply) bool { return len(r.Unmatched) > 0 && len(r.Sources) > 0 }},
		{"source scope", search.Request{Query: "ledger standup", Scope: "memories/calendar", Brains: one},
			func(r *search.Reply) bool { return len(r.Sources) > 0 }},
		{"folder scope", search.Request{Query: "reminder sequence", Scope: "projects", Brains: one},
			func(r *search.Reply) bool { return len(r.Items) > 0 && r.Sources == nil }},
		{"tag scope", search.Request{Query: "ledger", Scope: "bf://acme/tags/ledger", Brains: one}, nil},
		{"period scope", search.Request{Query: "ledger", Scope: "2026-10", Brains: one}, nil},
		{"paged", search.Request{Query: "ledger", Limit: 2, Brains: one},
			func(r *search.Reply) bool { return r.NextOffset != nil }},
		{"next page", search.Request{Query: "ledger", Limit: 2, Offset: 2, Brains: one}, nil},
		{"records", search.Request{Query: "Estonia VAT rate", Brains: one},
			func(r *search.Reply) bool { return len(r.Items) > 0 }},
		{"several brains", search.Request{Query: "knowledge ledger", Brains: both},
			func(r *search.Reply) bool { return len(r.Items) > 0 && r.Items[0].URI != "" }},
	}
	for _, c := range cases {
		c.req.Now, c.req.Location = now, zone
		r, err := search.Run(context.Background(), c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.expect != nil && !c.expect(r) {
			b, _ := reply.Marshal(r)
			t.Errorf("%s: the reply does not show what the case is for: %s", c.name, b)
		}
		validateReply(t, s, c.name, r)
	}
}

func TestReplySchemasReject(t *testing.T) {
	cases := []struct{ kind, doc string }{
		{"search-reply", `{"items":[]}`},
		{"search-reply", `{"notice":"n"}`},
		{"search-reply", `{"notice":"n","items":[{"ref":"x","kind":"page"}]}`},
		{"search-reply", `{"notice":"n","items":[{"ref":"x","kind":"record","time":"yesterday"}]}`},
		{"search-reply", `{"notice":"n","items":[{"kind":"note"}]}`},
		{"search-reply", `{"notice":"n","items":[],"identity":"known"}`},
		{"search-reply", `{"notice":"n","items":[],"unmatched":[]}`},
		{"search-reply", `{"notice":"n","items":[],"sources":[{"source":"s","state":"active","freshness":"stale"}]}`},
		{"search-reply", `{"notice":"n","items":[],"next_offset":-1}`},
		{"read-reply", `{"notice":"n"}`},
		{"read-reply", `{"notice":"n","brain":"b","ref":"projects/a.md","text":"x","sha256":"abc"}`},
		{"read-reply", `{"notice":"n","page":"tasks","items":[],"total":0}`},
		{"read-reply", `{"notice":"n","page":"memories","items":[],"total":0}`},
	}
	for _, c := range cases {
		s := compiled(t, c.kind)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); err == nil {
			t.Errorf("%s accepts %s", c.kind, c.doc)
		}
	}
	ok := []struct{ kind, doc string }{
		{"search-reply", `{"notice":"n","items":[{"ref":"x","kind":"note","date":"2026-09-27","later_field":1}],"added":true}`},
		{"read-reply", `{"notice":"n","brain":"b","ref":"projects/a.md","text":"x","sha256":"` + strings.Repeat("a", 64) + `"}`},
		{"read-reply", `{"notice":"n","page":"tasks","items":[{"ref":"projects/a.md#next","note":"projects/a.md","line":3,"text":"Do it"}],"total":1,"summary":{"open":1,"done":0,"notes":1}}`},
	}
	for _, c := range ok {
		s := compiled(t, c.kind)
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(c.doc))
		if err := s.Validate(inst); err != nil {
			t.Errorf("%s rejects %s: %v", c.kind, c.doc, err)
		}
	}
}

func TestReadRepliesValidate(t *testing.T) {
	s := compiled(t, "read-reply")
	acme := exampleBrain(t)
	var long strings.Builder
	long.WriteString("---\ntype: concept\ntitle: Long\nfields:\n  depends-on: [\"repo:github.com/acme/unowned\"]\n---\n\n# Long\n\n")
	for i := range 30 {
		fmt.Fprintf(&long, "## Part %d\n\n", i)
		for j := range 40 {
			fmt.Fprintf(&long, "Line %d of part %d, about the ledger.\n", j, i)
		}
		long.WriteString("\n")
	}
	writeFile(t, acme.Root, "concepts/long.md", long.String())
	bigRecord := `{"id":"big","title":"Big","text":"` + strings.Repeat("Ledger words. ", 5000) + `","time":"2026-10-10T10:00:00Z"}`
	writeFile(t, acme.Root, "memories/docs/"+record.FileName("big"), bigRecord)
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := starter.Write(fresh, starter.Options{Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	other, err := brain.Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	one := []*brain.Brain{acme}
	both := []*brain.Brain{acme, other}
	file := "memories/calendar/" + record.FileName("standup-2026-10-05")
	cases := []struct {
		name string
		req  read.Request
		page string // a key the reply must hold, to show the case reads what it says
	}{
		{"home", read.Request{}, "pages"},
		{"home of several brains", read.Request{Brains: both}, "pages"},
		{"projects", read.Request{Ref: "projects"}, "items"},
		{"concepts", read.Request{Ref: "concepts/"}, "items"},
		{"actions", read.Request{Ref: "actions"}, "items"},
		{"subfolder", read.Request{Ref: "projects/platform"}, "items"},
		{"tasks", read.Request{Ref: "tasks"}, "summary"},
		{"today", read.Request{Ref: "today"}, "since"},
		{"7d", read.Request{Ref: "7d"}, "since"},
		{"month", read.Request{Ref: "2026-10"}, "previous"},
		{"range", read.Request{Ref: "2026-10-01..2026-10-12"}, "next"},
		{"memories", read.Request{Ref: "memories"}, "sources"},
		{"source", read.Request{Ref: "memories/calendar"}, "sources"},
		{"source period", read.Request{Ref: "memories/calendar/2026-10"}, "items"},
		{"source undated", read.Request{Ref: "memories/calendar/undated"}, "total"},
		{"record file", read.Request{Ref: file}, "items"},
		{"tags", read.Request{Ref: "tags"}, "items"},
		{"tag", read.Request{Ref: "tags/ledger"}, "items"},
		{"tag address", read.Request{Ref: "bf://acme/tags/ledger"}, "items"},
		{"note", read.Request{Ref: "projects/ledger-migration.md"}, "sha256"},
		{"section", read.Request{Ref: "concepts/ledger.md#decision"}, "title"},
		{"action", read.Request{Ref: "actions/2026-10-05_ledger-cutover-rehearsal"}, "files"},
		{"action file", read.Request{Ref: "actions/2026-10-05_ledger-cutover-rehearsal/outputs/rehearsal-report.md"}, "sha256"},
		{"record", read.Request{Ref: "tickets:BILL-142"}, "record"},
		{"record address", read.Request{Ref: "bf://acme/calendar:standup-2026-10-05"}, "uri"},
		{"entity", read.Request{Ref: "bf://acme/people/dana"}, "backlinks"},
		{"alias", read.Request{Ref: "repo:github.com/acme/ledger"}, "claims"},
		{"identity without owner", read.Request{Ref: "repo:github.com/acme/unowned"}, "backlinks"},
		{"relation page", read.Request{Ref: "concepts/ledger.md", Rel: "links"}, "relation"},
		{"relation page of an identity", read.Request{Ref: "bf://acme/people/dana", Rel: "participant"}, "relation"},
		{"note of several brains", read.Request{Ref: "concepts/welcome.md", Brains: both}, "uri"},
		{"paged note", read.Request{Ref: "concepts/long.md"}, "outline"},
		{"paged record", read.Request{Ref: "docs:big"}, "next_offset"},
	}
	for _, c := range cases {
		c.req.Now, c.req.Location = now, zone
		if c.req.Brains == nil {
			c.req.Brains = one
		}
		v, err := read.Run(context.Background(), c.req)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		validateReply(t, s, c.name, v)
		b, _ := reply.Marshal(v)
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc[c.page]; !ok {
			t.Errorf("%s: the reply has no %s: %s", c.name, c.page, b)
		}
		// Later pages of paged exact reads validate too.
		for next, n := doc["next_offset"], 0; next != nil && n < 3; n++ {
			c.req.Offset = int64(next.(float64))
			v, err := read.Run(context.Background(), c.req)
			if err != nil {
				t.Fatalf("%s at %d: %v", c.name, c.req.Offset, err)
			}
			validateReply(t, s, fmt.Sprintf("%s at %d", c.name, c.req.Offset), v)
			b, _ := reply.Marshal(v)
			doc = nil
			json.Unmarshal(b, &doc)
			next = doc["next_offset"]
		}
	}
}

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	brainfix.WriteFile(t, root, rel, []byte(text), 0o644)
}
