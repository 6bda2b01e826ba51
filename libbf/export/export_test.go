package export

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests run one hour east of UTC, on 2026-10-14 at noon.
var (
	zone = time.FixedZone("CET", 3600)
	now  = time.Date(2026, 10, 14, 12, 0, 0, 0, zone)
)

const config = `version: 8
name: %s
fields:
` + brainfix.OwnerField + brainfix.KindField + `sensors:
  brief:
    command: [sensors/brief.sh]
    enabled: false
`

const alpha = `---
type: project
status: draft
title: Alpha
updated: 2026-10-02
summary: Alpha moves balances to the ledger.
tags: [ledger, q4]
aliases: ["repo:example/alpha"]
sources:
  - resource: "../concepts/beta.md"
fields:
  owner: ["person:dana"]
  kind: migration
---

# Alpha

Alpha depends on [Beta](../concepts/beta.md) and the [meeting](bf://work/brief:m1?rel=owner).

## Next

- [ ] Rehearse the cutover
- [x] Write the runbook
`

const beta = `---
type: concept
title: Beta
entity: bf://work/teams/beta
aliases: ["team:beta"]
---

# Beta

Beta is the ledger itself.
`

func files() map[string]string {
	return map[string]string{
		"bf.yaml":           strings.Replace(config, "%s", "work", 1),
		"projects/alpha.md": alpha,
		"concepts/beta.md":  beta,
		"memories/brief/" + record.FileName("m1"): `{"id":"m1","title":"Ledger meeting","text":"We chose the ledger.",` +
			`"time":"2026-10-12T08:00:00.000000Z","url":"https://meet.example/m1","links":["projects/alpha.md","bf://work/concepts/beta.md?rel=owner"],` +
			`"aliases":["meet:m1"],"attributes":{"observed":"2026-10-12T09:00:00.000000Z","updated":"2026-10-13T10:00:00.000000Z"},"fields":{"kind":"meeting"}}`,
		"memories/brief/" + record.FileName("n2"): `{"id":"n2","title":"Undated note","text":"Collected without a time.",` +
			`"attributes":{"observed":"2026-10-13T07:30:00.000000Z","partial":true}}`,
	}
}

// newBrain opens a brain in a folder called name, holding fs (bf.yaml among them).
func newBrain(t *testing.T, name string, fs map[string]string) *brain.Brain {
	t.Helper()
	return brainfix.New(t, brainfix.Spec{Folder: name, Config: fs["bf.yaml"], Notes: fs}).Open()
}

func export(t *testing.T, req Request) ([]string, error) {
	t.Helper()
	req.Now, req.Location = now, zone
	var buf bytes.Buffer
	err := Write(context.Background(), &buf, req)
	out := strings.TrimSuffix(buf.String(), "\n")
	if out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), err
}

func mustExport(t *testing.T, req Request) []string {
	t.Helper()
	lines, err := export(t, req)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

const (
	m1        = `{"brain":"work","excerpt":"We chose the ledger.","fields":{"kind":"meeting"},"kind":"record","observed":"2026-10-12T10:00:00+01:00","path":"memories/brief/ca0df2c95aa144c1d0ff2ff3c8f967fdc1de9ef0c4120b3726416701b519d619.json","ref":"brief:m1","source":"brief","time":"2026-10-12T09:00:00+01:00","title":"Ledger meeting","updated":"2026-10-13T11:00:00+01:00","uri":"bf://work/brief:m1","url":"https://meet.example/m1"}`
	n2        = `{"brain":"work","excerpt":"Collected without a time.","kind":"record","observed":"2026-10-13T08:30:00+01:00","partial":true,"path":"memories/brief/0480a93d2e9b094b89e08e01976089ac18193af802c66b631cc8d2dc1bae8c88.json","ref":"brief:n2","source":"brief","title":"Undated note","uri":"bf://work/brief:n2"}`
	betaItem  = `{"brain":"work","excerpt":"Beta Beta is the ledger itself.","kind":"note","path":"concepts/beta.md","ref":"concepts/beta.md","status":"stable","title":"Beta","type":"concept","uri":"bf://work/concepts/beta.md"}`
	alphaItem = `{"brain":"work","date":"2026-10-02","excerpt":"Alpha moves balances to the ledger.","fields":{"kind":"migration","owner":["person:dana"]},"kind":"note","path":"projects/alpha.md","ref":"projects/alpha.md","status":"draft","tags":["ledger","q4"],"tasks":{"done":1,"open":1},"title":"Alpha","type":"project","uri":"bf://work/projects/alpha.md"}`
)

var (
	m1Edges = []string{
		`{"brain":"work","origin":"brief:m1","relation":"owner","subject":"bf://work/brief:m1","target":"bf://work/concepts/beta.md","time":"2026-10-12T09:00:00+01:00"}`,
		`{"brain":"work","origin":"brief:m1","subject":"bf://work/brief:m1","target":"projects/alpha.md","time":"2026-10-12T09:00:00+01:00"}`,
	}
	alphaEdges = []string{
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md#alpha","subject":"bf://work/projects/alpha.md","target":"concepts/beta.md"}`,
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md#alpha","relation":"owner","subject":"bf://work/projects/alpha.md","target":"bf://work/brief:m1"}`,
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md","relation":"cites","subject":"bf://work/projects/alpha.md","target":"concepts/beta.md"}`,
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md","relation":"owner","subject":"bf://work/projects/alpha.md","target":"person:dana"}`,
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md","relation":"tagged-with","subject":"bf://work/projects/alpha.md","target":"bf://work/tags/ledger"}`,
		`{"brain":"work","date":"2026-10-02","origin":"projects/alpha.md","relation":"tagged-with","subject":"bf://work/projects/alpha.md","target":"bf://work/tags/q4"}`,
	}
	identities = []string{
		`{"brain":"work","identity":"meet:m1","ref":"brief:m1"}`,
		`{"brain":"work","identity":"bf://work/teams/beta","ref":"concepts/beta.md"}`,
		`{"brain":"work","identity":"team:beta","ref":"concepts/beta.md"}`,
		`{"brain":"work","identity":"repo:example/alpha","ref":"projects/alpha.md"}`,
	}
)

func TestKinds(t *testing.T) {
	b := newBrain(t, "work", files())
	one := []*brain.Brain{b}
	check(t, "items", mustExport(t, Request{Brains: one}), []string{m1, n2, betaItem, alphaItem})
	check(t, "items by name", mustExport(t, Request{Kind: "items", Brains: one}), []string{m1, n2, betaItem, alphaItem})
	check(t, "edges", mustExport(t, Request{Kind: "edges", Brains: one}), append(append([]string{}, m1Edges...), alphaEdges...))
	check(t, "identities", mustExport(t, Request{Kind: "identities", Brains: one}), identities)
}

func TestScopes(t *testing.T) {
	b := newBrain(t, "work", files())
	one := []*brain.Brain{b}
	cases := []struct {
		kind, scope string
		want        []string
	}{
		{"items", "projects", []string{alphaItem}},
		{"items", "projects/", []string{alphaItem}},
		{"items", "projects/alpha.md", []string{alphaItem}},
		{"items", "projects/alp", nil},
		{"items", "concepts", []string{betaItem}},
		{"items", "memories", []string{m1, n2}},
		{"items", "memories/brief", []string{m1, n2}},
		{"items", "memories/brief/undated", []string{n2}},
		{"items", "memories/brief/" + record.FileName("m1"), []string{m1}},
		{"items", "memories/brief/2026-10-12", []string{m1}},
		{"items", "2026-10-12", []string{m1}},
		// An undated record is placed by its observed time; an undated note nowhere.
		{"items", "2026-10-13", []string{n2}},
		{"items", "2026-10", []string{m1, n2, alphaItem}},
		{"items", "2026-10-01..2026-10-02", []string{alphaItem}},
		{"items", "7d", []string{m1, n2}},
		{"edges", "projects/alpha.md", alphaEdges},
		{"edges", "memories/brief", m1Edges},
		{"edges", "2026-10-12", m1Edges},
		{"identities", "concepts", identities[1:3]},
		{"identities", "memories/brief/undated", nil},
	}
	for _, c := range cases {
		got := mustExport(t, Request{Kind: c.kind, Scope: c.scope, Brains: one})
		check(t, c.kind+" "+c.scope, got, c.want)
	}
}

func TestInvalidInput(t *testing.T) {
	b := newBrain(t, "work", files())
	cases := []struct{ kind, scope, want string }{
		{"nodes", "", "invalid input: kind: expected items, edges or identities"},
		{"", "bf://work/tags/ledger", "invalid input: scope: " + errScope.Error()},
		{"", "repo:example/alpha", "invalid input: scope: " + errScope.Error()},
		{"", "tasks", "invalid input: scope: " + errScope.Error()},
		{"", "projects/../x", "invalid input: scope: " + errScope.Error()},
		{"", "projects/alpha.md#next", "invalid input: scope: scope takes a whole note without its #section; scope the note, then read the section"},
		{"", "memories/brief/other", "invalid input: scope: " + errScope.Error()},
		{"", "2026-13", "invalid input: scope: invalid period: 2026-13"},
	}
	for _, c := range cases {
		req := Request{Kind: c.kind, Scope: c.scope, Brains: []*brain.Brain{b}}
		if err := Check(req); err == nil || err.Error() != c.want || !reply.IsInput(err) {
			t.Errorf("Check %q %q: %v", c.kind, c.scope, err)
		}
		lines, err := export(t, req)
		if err == nil || err.Error() != c.want || lines != nil {
			t.Errorf("Write %q %q: %v, %d lines", c.kind, c.scope, err, len(lines))
		}
	}
	lines, err := export(t, Request{Scope: "memories/nothing", Brains: []*brain.Brain{b}})
	var nf *reply.NotFoundError
	if !errors.As(err, &nf) || nf.Msg != "unknown source; read memories to list sources" || lines != nil {
		t.Errorf("unknown source: %v, %d lines", err, len(lines))
	}
	// A source that bf.yaml declares but that holds no record yet exports nothing.
	fs := files()
	fs["bf.yaml"] += "  empty:\n    command: [sensors/empty.sh]\n"
	b2 := newBrain(t, "work", fs)
	if lines := mustExport(t, Request{Scope: "memories/empty", Brains: []*brain.Brain{b2}}); lines != nil {
		t.Errorf("declared source: %v", lines)
	}
}

func TestIncompleteExportStillWritesEveryRow(t *testing.T) {
	fs := files()
	fs["concepts/bad.md"] = "---\ntype: concept\nentity: team:bad\n---\n\n# Bad\n"
	b := newBrain(t, "work", fs)
	lines, err := export(t, Request{Brains: []*brain.Brain{b}})
	check(t, "rows", lines, []string{m1, n2, betaItem, alphaItem})
	var ie *IncompleteError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an IncompleteError", err)
	}
	want := []reply.Problem{{Brain: "work", Error: "invalid note: entity: expected a bf:// address", File: "concepts/bad.md"}}
	if diff := cmp.Diff(want, ie.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if err.Error() != "the export is incomplete: 1 problem; run bf status" {
		t.Errorf("err = %q", err)
	}
}

func TestSeveralBrains(t *testing.T) {
	work := newBrain(t, "work", files())
	team := newBrain(t, "team", map[string]string{
		"bf.yaml":           strings.Replace(config, "%s", "team", 1),
		"concepts/gamma.md": "---\ntype: concept\ntitle: Gamma\naliases: [\"team:gamma\"]\n---\n\n# Gamma\n\nGamma links [Beta](bf://work/concepts/beta.md).\n",
	})
	both := []*brain.Brain{work, team}
	check(t, "identities", mustExport(t, Request{Kind: "identities", Brains: both}),
		append(append([]string{}, identities...), `{"brain":"team","identity":"team:gamma","ref":"concepts/gamma.md"}`))
	check(t, "edges", mustExport(t, Request{Kind: "edges", Scope: "concepts", Brains: both}), []string{
		`{"brain":"team","origin":"concepts/gamma.md#gamma","subject":"bf://team/concepts/gamma.md","target":"bf://work/concepts/beta.md"}`,
	})
	// A brain selection skipped is reported after the rows of the others.
	lines, err := export(t, Request{Kind: "identities", Scope: "concepts", Brains: []*brain.Brain{team},
		Problems: []brain.Problem{{Brain: "gone", Error: "brain folder does not exist"}}})
	check(t, "skipped brain", lines, []string{`{"brain":"team","identity":"team:gamma","ref":"concepts/gamma.md"}`})
	var ie *IncompleteError
	if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Brain != "gone" {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteErrorsStopTheExport(t *testing.T) {
	b := newBrain(t, "work", files())
	err := Write(context.Background(), failingWriter{}, Request{Brains: []*brain.Brain{b}, Location: zone})
	if !errors.Is(err, errWrite) {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Write(ctx, &bytes.Buffer{}, Request{Brains: []*brain.Brain{b}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

var errWrite = errors.New("broken pipe")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func check(t *testing.T, name string, got, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
