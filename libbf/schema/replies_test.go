package schema_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/ask"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/memory"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/vault"
)

// TestImportRepliesValidate imports a vault that gives every list of the reply something
// to say, for real and as a dry run, and validates both replies against import-reply.
func TestImportRepliesValidate(t *testing.T) {
	src := t.TempDir()
	for rel, text := range map[string]string{
		".obsidian/app.json": "{}",
		"Home.md":            "# Home\n\nSee [[home]], [[Missing]] and ![[pic.png]].\n",
		"home.md":            "lower case twin of [[Home]]\n",
		"index.md":           "an index note of the vault\n",
		"keys.md":            "---\naliases: [Start]\nstatus: doing\n---\nbody\n",
		"latin.md":           "caf\xe9\n",
		"pic.png":            "png",
	} {
		brainfix.WriteFile(t, src, rel, []byte(text), 0o644)
	}
	check := newReplyCheck(t, "import-reply")
	for _, dry := range []bool{true, false} {
		r, err := vault.Import(context.Background(), vault.Options{Source: src, Dest: filepath.Join(t.TempDir(), "brain"), DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		check.check(map[bool]string{true: "dry run", false: "import"}[dry], r,
			`"converted":[{"from":"Home.md","to":"concepts/Home.md"}`, `"copied":[{"from":"pic.png"`, `"created":true`,
			`"dropped":[{"file":".obsidian","reason":`, `"key":"status"`, `"renamed":[{"from":`, `"unresolved":[{"file":"Home.md","line":3,"link":"[[Missing]]"`,
			`"changed":[{"change":`, `"from":"obsidian"`, `"folder":"concepts"`)
	}
}

// TestImportSchemaCoversReply checks that the properties of each object of import-reply
// are exactly the JSON keys of its Go type.
func TestImportSchemaCoversReply(t *testing.T) {
	doc := schemaDoc(t, "import-reply")
	def := func(name string) map[string]any { return doc["$defs"].(map[string]any)[name].(map[string]any) }
	for _, c := range []struct {
		typ    any
		schema map[string]any
	}{
		{vault.Report{}, doc}, {vault.Moved{}, def("Moved")}, {vault.Renamed{}, def("Renamed")},
		{vault.Dropped{}, def("Dropped")}, {vault.Unresolved{}, def("Unresolved")}, {vault.Change{}, def("Change")},
	} {
		rt := reflect.TypeOf(c.typ)
		if keys, want := goKeys(c.typ), propertyKeys(c.schema); !slices.Equal(keys, want) {
			t.Errorf("vault.%s: Go keys %v, schema keys %v", rt.Name(), keys, want)
		}
	}
}

// TestRememberRepliesValidate saves memories through bf remember's function and validates
// each reply, keys sorted, against remember-reply.
func TestRememberRepliesValidate(t *testing.T) {
	b := brainfix.New(t, brainfix.Spec{Name: "test"})
	t.Setenv("HOME", b.Env.Home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(b.Env.Home, "state"))
	s := &memory.Store{Brain: b.Open(), Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}
	check := newReplyCheck(t, "remember-reply")
	save := func(req memory.RememberRequest) *memory.RememberReply {
		t.Helper()
		r, err := s.Remember(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := memory.RememberRequest{Type: "infra", Title: "Staging box is stage-3", Body: "stage-3 runs staging.", Importance: 4}
	check.check("created", save(first), `"action":"created"`, `"review":`, `"said":[`, `"tier":"B"`)
	first.Body, first.Update = "stage-4 runs staging.", true
	check.check("updated", save(first), `"action":"updated"`, `"history":`)
}

// TestAskRepliesValidate asks a brain whose model cites the first block sent, from a note
// holding a secret, and validates the reply against ask-reply; the schema's properties are
// exactly the JSON keys of the reply's Go types.
func TestAskRepliesValidate(t *testing.T) {
	fb := brainfix.New(t, brainfix.Spec{Name: "acme", Trusted: true,
		Config: "version: 8\nname: acme\nask:\n  command: [tools/model.sh]\n",
		Notes: map[string]string{"projects/ledger.md": "---\ntype: project\n---\n# Ledger migration\n\n## Rollback\n\n" +
			"Restore the snapshot taken before the switch; the service logs in with password: s3cr3t-Pa55.\n"}})
	fb.Script("tools/model.sh", `cat >/dev/null
printf '{"answer":"Restore the snapshot.","citations":["b1"]}\n'`)
	r, err := ask.Ask(context.Background(), ask.Request{Question: "how does the rollback work", Brain: fb.Open(),
		StateDir: t.TempDir(), Env: &fb.Env})
	if err != nil {
		t.Fatal(err)
	}
	newReplyCheck(t, "ask-reply").check("answer", r, `"answer":"Restore the snapshot."`,
		`"citations":[{"block":"b1","excerpt":`, `"ref":"projects/ledger.md#rollback"`, `"redacted":1`)

	doc := schemaDoc(t, "ask-reply")
	citation := doc["properties"].(map[string]any)["citations"].(map[string]any)["items"].(map[string]any)
	for _, c := range []struct {
		typ    any
		schema map[string]any
	}{{ask.Reply{}, doc}, {ask.Citation{}, citation}} {
		rt := reflect.TypeOf(c.typ)
		if keys, want := goKeys(c.typ), propertyKeys(c.schema); !slices.Equal(keys, want) {
			t.Errorf("ask.%s: Go keys %v, schema keys %v", rt.Name(), keys, want)
		}
	}
}

// goKeys are the JSON keys of a struct's exported fields, sorted.
func goKeys(v any) []string {
	var keys []string
	var collect func(rt reflect.Type)
	collect = func(rt reflect.Type) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				collect(f.Type) // an embedded struct's keys are its container's
			case f.IsExported():
				keys = append(keys, name)
			}
		}
	}
	collect(reflect.TypeOf(v))
	sort.Strings(keys)
	return keys
}

// schemaDoc is the published schema of kind, decoded.
func schemaDoc(t *testing.T, kind string) map[string]any {
	t.Helper()
	data, err := schema.Get(kind)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// propertyKeys are the names of a schema object's properties, sorted.
func propertyKeys(node map[string]any) []string {
	var keys []string
	for k := range node["properties"].(map[string]any) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
