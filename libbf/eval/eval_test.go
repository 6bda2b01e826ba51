package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/starter"
)

var (
	zone = time.FixedZone("CET", 3600)
	now  = time.Date(2026, 10, 14, 12, 0, 0, 0, zone)
)

// newBrain writes a starter brain named name with extra files and opens it.
func newBrain(t *testing.T, name string, files map[string]string) *brain.Brain {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	if _, err := starter.Write(root, starter.Options{Name: name}); err != nil {
		t.Fatal(err)
	}
	for p, s := range files {
		write(t, root, p, s)
	}
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, root, p, s string) {
	t.Helper()
	brainfix.WriteFile(t, root, p, []byte(s), 0o644)
}

func run(t *testing.T, req Request) *Reply {
	t.Helper()
	req.Now, req.Location = now, zone
	r, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// printed is the reply as bf eval prints it.
func printed(t *testing.T, v any) string { return brainfix.JSON(t, v) }

func TestStarterSuitePasses(t *testing.T) {
	b := newBrain(t, "fresh", nil)
	r := run(t, Request{Brains: []*brain.Brain{b}})
	want := `{"cases":[` +
		`{"name":"find-knowledge-layout","passed":true,"rank":{"concepts/welcome.md":1},"suite":"evals/retrieval.yaml"},` +
		`{"name":"read-knowledge-layout","passed":true,"suite":"evals/retrieval.yaml"},` +
		`{"name":"absent-starter-topic","passed":true,"suite":"evals/retrieval.yaml"}],` +
		`"mrr":1,"passed":true,"score":"3/3"}`
	if got := printed(t, r); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

const notes = `---
type: concept
title: Ledger
updated: 2026-10-01
summary: The ledger keeps double-entry postings that sum to zero.
tags: [ledger]
---

# Ledger

The ledger records every balance change as postings.

## Decision

Double-entry postings replaced the single balance column.

## Risks

Rounding differences during the cutover.
`

const project = `---
type: project
title: Ledger migration
updated: 2026-10-02
---

# Ledger migration

Move balances to the [ledger](../concepts/ledger.md) and its double-entry postings.
`

func TestFailingCaseExplainsItself(t *testing.T) {
	suite := `version: 8
cases:
  - name: decision
    query: double-entry postings
    limit: 1
    expect: [concepts/ledger.md#risks, projects/ledger-migration.md]
    forbid: [concepts/ledger.md]
    text: [sum to zero, balance column, not delivered]
  - name: missing-read <&>
    read: concepts/absent.md
    empty: true
  - name: read-finds-something
    read: concepts/ledger.md#decision
    empty: true
  - name: unknown-source
    query: ledger
    scope: memories/nothing
    expect: [concepts/ledger.md]
`
	b := newBrain(t, "work", map[string]string{
		"concepts/ledger.md":           notes,
		"projects/ledger-migration.md": project,
		"evals/retrieval.yaml":         suite,
	})
	r := run(t, Request{Brains: []*brain.Brain{b}})
	want := `{"cases":[` +
		`{"absent":["sum to zero","not delivered"],"forbidden":["concepts/ledger.md"],` +
		`"missing":["concepts/ledger.md#risks","projects/ledger-migration.md"],"name":"decision","passed":false,` +
		`"rank":{"concepts/ledger.md#risks":null,"projects/ledger-migration.md":2},` +
		`"returned":["concepts/ledger.md#decision"],"suite":"evals/retrieval.yaml"},` +
		`{"name":"missing-read <&>","passed":true,"suite":"evals/retrieval.yaml"},` +
		`{"absent":[],"forbidden":[],"missing":[],"name":"read-finds-something","passed":false,` +
		`"returned":["concepts/ledger.md#decision"],"suite":"evals/retrieval.yaml"},` +
		`{"error":"unknown source; read memories to list sources","name":"unknown-source","passed":false,"suite":"evals/retrieval.yaml"}],` +
		`"mrr":0.25,"passed":false,"score":"1/4"}`
	if got := printed(t, r); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestWholeNoteAndAddressMatching(t *testing.T) {
	suite := `version: 8
cases:
  - name: section-matches-whole-note
    query: double-entry postings replaced
    limit: 1
    expect: [concepts/ledger.md, bf://work/concepts/ledger.md, "bf://work/concepts/ledger.md#decision"]
    forbid: [concepts/ledger.md#risks, projects/ledger-migration.md]
  - name: read-backlinks
    read: bf://work/concepts/ledger.md
    expect: [concepts/ledger.md, projects/ledger-migration.md, bf://work/projects/ledger-migration.md]
    text: [ROUNDING DIFFERENCES]
  - name: home
    read: ""
    expect: [projects/ledger-migration.md]
`
	b := newBrain(t, "work", map[string]string{
		"concepts/ledger.md":           notes,
		"projects/ledger-migration.md": project,
		"evals/retrieval.yaml":         suite,
	})
	r := run(t, Request{Brains: []*brain.Brain{b}})
	if !r.Passed {
		t.Fatalf("expected every case to pass: %s", printed(t, r))
	}
}

func TestOtherBrainsMatchByAddress(t *testing.T) {
	other := newBrain(t, "team", map[string]string{"concepts/ledger.md": notes})
	suite := `version: 8
cases:
  - name: own-path-only
    query: double-entry postings
    forbid: [concepts/ledger.md]
    expect: [bf://team/concepts/ledger.md]
`
	b := newBrain(t, "work", map[string]string{"evals/retrieval.yaml": suite})
	r := run(t, Request{Brains: []*brain.Brain{b, other}})
	if !r.Passed {
		t.Fatalf("an item of another brain must match only by its address: %s", printed(t, r))
	}
}

func TestPagedExactReadIsAssembled(t *testing.T) {
	var body strings.Builder
	body.WriteString("---\ntype: concept\ntitle: Long\n---\n\n# Long\n\n")
	for i := range 2000 {
		fmt.Fprintf(&body, "Line %d of a long note about ledgers.\n", i)
	}
	body.WriteString("The final sentence closes the note.\n")
	suite := `version: 8
cases:
  - name: whole-text
    read: concepts/long.md
    text: [Line 0 of a long note, the final sentence closes the note]
`
	b := newBrain(t, "work", map[string]string{"concepts/long.md": body.String(), "evals/retrieval.yaml": suite})
	first, err := read.Run(context.Background(), read.Request{Ref: "concepts/long.md", Brains: []*brain.Brain{b}})
	if err != nil {
		t.Fatal(err)
	}
	if doc, _ := decode(first); doc["next_offset"] == nil {
		t.Fatal("the note should be paged for this test")
	}
	if r := run(t, Request{Brains: []*brain.Brain{b}}); !r.Passed {
		t.Fatalf("the assembled text should hold the last page: %s", printed(t, r))
	}
}

func TestChangedExactReplyFailsTheCase(t *testing.T) {
	suite := "version: 8\ncases:\n  - {name: paged, read: concepts/x.md, text: [abc]}\n"
	b := newBrain(t, "work", map[string]string{"evals/retrieval.yaml": suite})
	calls := 0
	runRead = func(ctx context.Context, req read.Request) (any, error) {
		calls++
		next := int64(3)
		page := map[string]any{"brain": "work", "ref": req.Ref, "notice": reply.Notice,
			"sha256": strings.Repeat("a", 64), "text": "abc", "total_characters": 6, "offset": req.Offset}
		if req.Offset == 0 {
			page["next_offset"] = next
		} else {
			page["sha256"] = strings.Repeat("b", 64)
		}
		return page, nil
	}
	t.Cleanup(func() { runRead = read.Run })
	r := run(t, Request{Brains: []*brain.Brain{b}})
	want := `{"cases":[{"error":"exact reply changed during evaluation; rerun bf eval","name":"paged","passed":false,"suite":"evals/retrieval.yaml"}],"passed":false,"score":"0/1"}`
	if got := printed(t, r); got != want || calls != 2 {
		t.Fatalf("calls %d, got %s", calls, got)
	}
}

func TestSuiteFormatErrors(t *testing.T) {
	const head = "version: 8\ncases:\n"
	cases := []struct{ name, suite, want string }{
		{"no version", "cases: []\n", "evals/s.yaml has no version; this release reads version: 8"},
		{"old version", "version: 7\ncases: []\n", "evals/s.yaml declares version 7; this release reads version: 8"},
		{"bad version", "version: eight\n", "evals/s.yaml declares an invalid version; this release reads version: 8"},
		{"not a mapping", "- a\n", "invalid evals/s.yaml: expected a mapping with version and cases"},
		{"syntax", "version: 8\ncases: [\n", "invalid evals/s.yaml: invalid YAML at line 2"},
		{"no cases", "version: 8\ncases: []\n", "invalid evals/s.yaml: cases: expected 1 to 200 cases"},
		{"unknown key", head + "  - {name: a, query: x, empty: true, expected: [y]}\n", "invalid evals/s.yaml: cases.0.expected: unknown key"},
		{"top key", "version: 8\nsuite: x\ncases:\n  - {name: a, query: x, empty: true}\n", "invalid evals/s.yaml: suite: unknown key"},
		{"null", head + "  - {name: a, query: x, empty: true, scope: }\n", "invalid evals/s.yaml: cases.0.scope: expected a value"},
		{"no name", head + "  - {query: x, empty: true}\n", "invalid evals/s.yaml: cases.0.name: required"},
		{"blank name", head + "  - {name: ' ', query: x, empty: true}\n", "invalid evals/s.yaml: cases.0.name: expected a nonblank name without control characters"},
		{"duplicate", head + "  - {name: a, query: x, empty: true}\n  - {name: a, query: y, empty: true}\n", "invalid evals/s.yaml: duplicate evaluation case names"},
		{"scope", head + "  - {name: a, query: x, scope: projects/a.md#b, empty: true}\n", "invalid evals/s.yaml: cases.0.scope: scope takes a whole note without its #section; scope the note, then read the section"},
		{"period", head + "  - {name: a, query: x, scope: 2026-13, empty: true}\n", "invalid evals/s.yaml: cases.0.scope: invalid period: 2026-13"},
		{"read ref", head + "  - {name: a, read: 'projects/a.md#', empty: true}\n", "invalid evals/s.yaml: cases.0.read: a ref ending in # names no section; read the whole note or name a section"},
		{"expect ref", head + "  - {name: a, query: x, expect: [projects/a.md, 'tasks#x']}\n", "invalid evals/s.yaml: cases.0.expect.1: pages have no sections; read the page without #section"},
		{"forbid ref", head + "  - {name: a, query: x, text: [y], forbid: ['bf://x/../y']}\n", "invalid evals/s.yaml: cases.0.forbid.0: " + readReason(t, "bf://x/../y")},
		{"blank text", head + "  - {name: a, query: x, text: ['']}\n", "invalid evals/s.yaml: cases.0.text.0: expected a nonblank string"},
		{"limit", head + "  - {name: a, query: x, limit: 0, empty: true}\n", "invalid evals/s.yaml: cases.0.limit: expected an integer from 1 to 50"},
		{"empty and expect", head + "  - {name: a, query: x, empty: true, expect: [projects/a.md]}\n", "invalid evals/s.yaml: cases.0: case a: use expect/text, or empty: true"},
		{"no assertion", head + "  - {name: a, query: x}\n", "invalid evals/s.yaml: cases.0: case a: use expect/text, or empty: true"},
		{"both", head + "  - {name: a, query: x, read: y, empty: true}\n", "invalid evals/s.yaml: cases.0: case a: use either query or read"},
		{"neither", head + "  - {name: a, query: ' ', empty: true}\n", "invalid evals/s.yaml: cases.0: case a: use either query or read"},
		{"read scope", head + "  - {name: a, read: tasks, scope: projects, empty: true}\n", "invalid evals/s.yaml: cases.0: case a: scope and limit apply to query cases"},
		{"read limit", head + "  - {name: a, read: tasks, limit: 3, empty: true}\n", "invalid evals/s.yaml: cases.0: case a: scope and limit apply to query cases"},
		{"mode", head + "  - {name: a, query: x, mode: dense, empty: true}\n", "invalid evals/s.yaml: cases.0.mode: expected words or fused"},
		{"read mode", head + "  - {name: a, read: tasks, mode: fused, empty: true}\n", "invalid evals/s.yaml: cases.0: case a: mode applies to query cases"},
		{"query", head + "  - {name: a, query: '!!!', empty: true}\n", "invalid evals/s.yaml: cases.0: case a: " + searchReason(t, "!!!")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBrain(t, "work", map[string]string{"evals/s.yaml": c.suite})
			if err := os.Remove(filepath.Join(b.Root, "evals", "retrieval.yaml")); err != nil {
				t.Fatal(err)
			}
			_, err := Run(context.Background(), Request{Brains: []*brain.Brain{b}})
			if err == nil || err.Error() != c.want {
				t.Fatalf("err = %v\nwant  %s", err, c.want)
			}
		})
	}
}

func readReason(t *testing.T, r string) string {
	t.Helper()
	var ie *reply.InputError
	if err := read.Check(read.Request{Ref: r}); !errors.As(err, &ie) {
		t.Fatalf("read accepts %q", r)
	}
	return ie.Err.Error()
}

func searchReason(t *testing.T, q string) string {
	t.Helper()
	_, err := parseSuite("x", []byte("version: 8\ncases:\n  - {name: a, query: '"+q+"', empty: true}\n"))
	if err == nil {
		t.Fatalf("search accepts %q", q)
	}
	_, reason, _ := strings.Cut(err.Error(), "case a: ")
	if !strings.HasPrefix(reason, "invalid input: query: ") {
		t.Fatalf("reason %q", reason)
	}
	return reason
}

func TestSuitesAndPaths(t *testing.T) {
	one := "version: 8\ncases:\n  - {name: %s, query: bfabsentevidence9c4f2a7d, empty: true}\n"
	b := newBrain(t, "work", map[string]string{
		"evals/b.yml":          fmt.Sprintf(one, "b"),
		"evals/nested/a.yaml":  fmt.Sprintf(one, "nested"),
		"evals/notes.txt":      "not a suite",
		"checks/only.yaml":     fmt.Sprintf(one, "only"),
		"empty/readme.md":      "nothing here",
		"evals/a-first.yaml":   fmt.Sprintf(one, "a"),
		"outside/../other.yml": "",
	})
	r := run(t, Request{Brains: []*brain.Brain{b}})
	var got []string
	for _, c := range r.Cases {
		got = append(got, c.Suite+":"+c.Name)
	}
	want := []string{"evals/a-first.yaml:a", "evals/b.yml:b", "evals/nested/a.yaml:nested",
		"evals/retrieval.yaml:find-knowledge-layout", "evals/retrieval.yaml:read-knowledge-layout",
		"evals/retrieval.yaml:absent-starter-topic"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("suites in path order (-want +got):\n%s", diff)
	}
	r = run(t, Request{Path: "checks/only.yaml", Brains: []*brain.Brain{b}})
	if len(r.Cases) != 1 || r.Cases[0].Suite != "checks/only.yaml" || r.MRR != nil {
		t.Fatalf("single file: %s", printed(t, r))
	}
	r = run(t, Request{Path: filepath.Join(b.Root, "checks"), Brains: []*brain.Brain{b}})
	if len(r.Cases) != 1 || r.Cases[0].Suite != "checks/only.yaml" {
		t.Fatalf("absolute folder: %s", printed(t, r))
	}
	for path, want := range map[string]string{
		"empty":            "empty has no suites; add evals/retrieval.yaml before running bf eval",
		"missing":          "missing has no suites; add evals/retrieval.yaml before running bf eval",
		"checks/none.yaml": "checks/none.yaml does not exist; add retrieval cases before running bf eval",
		"../x":             "invalid input: path: expected a folder or a .yaml suite inside the brain",
	} {
		_, err := Run(context.Background(), Request{Path: path, Brains: []*brain.Brain{b}})
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", path, err, want)
		}
	}
	if _, err := Run(context.Background(), Request{Path: "../x", Brains: []*brain.Brain{b}}); !reply.IsInput(err) {
		t.Errorf("a path outside the brain is invalid input: %v", err)
	}
}

func TestSuiteLimits(t *testing.T) {
	files := map[string]string{}
	for i := range maxSuites + 1 {
		files[fmt.Sprintf("many/s%03d.yaml", i)] = "version: 8\ncases:\n  - {name: a, query: x, empty: true}\n"
	}
	var cases strings.Builder
	cases.WriteString("version: 8\ncases:\n")
	for i := range maxCases + 1 {
		fmt.Fprintf(&cases, "  - {name: c%d, query: x, empty: true}\n", i)
	}
	files["big/s.yaml"] = cases.String()
	files["huge/s.yaml"] = "version: 8\n# " + strings.Repeat("x", maxSuiteBytes) + "\n"
	b := newBrain(t, "work", files)
	for path, want := range map[string]string{
		"many": "evaluation exceeds 100 suites",
		"big":  "invalid big/s.yaml: cases: expected 1 to 200 cases",
		"huge": "invalid huge/s.yaml: file exceeds 1 MiB",
	} {
		_, err := Run(context.Background(), Request{Path: path, Brains: []*brain.Brain{b}})
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", path, err, want)
		}
	}
	if err := os.Symlink(filepath.Join(b.Root, "big", "s.yaml"), filepath.Join(b.Root, "evals", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Request{Brains: []*brain.Brain{b}})
	if err == nil || err.Error() != "invalid evals/link.yaml: expected a regular file, not a symlink or special file" {
		t.Errorf("symlinked suite: %v", err)
	}
}

func TestBaseline(t *testing.T) {
	suite := `version: 8
cases:
  - name: ranked
    query: ledger postings
    expect: [projects/ledger-migration.md]
  - name: flips
    query: ledger
    text: [balances]
  - name: steady
    query: bfabsentevidence9c4f2a7d
    empty: true
`
	b := newBrain(t, "work", map[string]string{
		"concepts/ledger.md":           notes,
		"projects/ledger-migration.md": project,
		"evals/retrieval.yaml":         suite,
	})
	current := run(t, Request{Brains: []*brain.Brain{b}})
	if printed(t, current.Cases[0].Rank) != `{"projects/ledger-migration.md":2}` || !current.Cases[1].Passed {
		t.Fatalf("unexpected starting point: %s", printed(t, current))
	}
	dir := t.TempDir()
	save := func(doc string) string {
		p := filepath.Join(dir, fmt.Sprintf("b%d.json", len(doc)))
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The baseline had the project first and the flipping case failing, and knows a
	// case that no longer exists; the steady case is unchanged.
	before := save(`{"cases":[` +
		`{"suite":"evals/retrieval.yaml","name":"ranked","passed":true,"rank":{"projects/ledger-migration.md":1}},` +
		`{"suite":"evals/retrieval.yaml","name":"flips","passed":false,"missing":[],"absent":["balances"]},` +
		`{"suite":"evals/retrieval.yaml","name":"steady","passed":true},` +
		`{"suite":"evals/retrieval.yaml","name":"gone","passed":true}],"passed":false,"score":"2/4"}`)
	r := run(t, Request{Baseline: before, Brains: []*brain.Brain{b}})
	want := `{"improvements":[{"baseline":{"passed":false},"name":"flips","passed":true,"suite":"evals/retrieval.yaml"}],` +
		`"regressions":[{"baseline":{"passed":true,"rank":{"projects/ledger-migration.md":1}},"name":"ranked","passed":true,` +
		`"rank":{"projects/ledger-migration.md":2},"suite":"evals/retrieval.yaml"}]}`
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(printed(t, r)), &got); err != nil {
		t.Fatal(err)
	}
	delete(got, "cases")
	delete(got, "mrr")
	delete(got, "passed")
	delete(got, "score")
	if s := printed(t, got); s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}

	// A missing ref before, ranked now: an improvement; nothing changed: both lists empty.
	missing := save(`{"cases":[{"suite":"evals/retrieval.yaml","name":"ranked","passed":false,"rank":{"projects/ledger-migration.md":null}}]}`)
	r = run(t, Request{Baseline: missing, Brains: []*brain.Brain{b}})
	if len(r.Improvements) != 1 || len(r.Regressions) != 0 {
		t.Fatalf("null rank before: %s", printed(t, r))
	}
	same := save(printed(t, current))
	r = run(t, Request{Baseline: same, Brains: []*brain.Brain{b}})
	if s := printed(t, r); !strings.Contains(s, `"improvements":[]`) || !strings.Contains(s, `"regressions":[]`) {
		t.Fatalf("an unchanged run lists no change: %s", s)
	}

	for name, doc := range map[string]string{
		"not json":    `{"cases":`,
		"no cases":    `{"passed":true}`,
		"wrong types": `{"cases":[{"suite":"s","name":"n","passed":"yes"}]}`,
		"no name":     `{"cases":[{"suite":"s","passed":true}]}`,
		"rank zero":   `{"cases":[{"suite":"s","name":"n","passed":true,"rank":{"a":0}}]}`,
	} {
		_, err := Run(context.Background(), Request{Baseline: save(doc + strings.Repeat(" ", len(name))), Brains: []*brain.Brain{b}})
		if err == nil || err.Error() != "baseline is not a bf eval reply; save one with bf eval > FILE" {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, p := range map[string]string{"missing": filepath.Join(dir, "none.json"), "folder": dir} {
		_, err := Run(context.Background(), Request{Baseline: p, Brains: []*brain.Brain{b}})
		if err == nil || err.Error() != "baseline must be a readable regular file of at most 16777216 bytes, not a symlink" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestExampleBrainSuiteRuns(t *testing.T) {
	root := filepath.Join(t.TempDir(), "acme")
	src := filepath.Join("..", "..", "examples", "brain")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".bf" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, Request{Brains: []*brain.Brain{b}})
	for _, c := range r.Cases {
		if c.Error != "" {
			t.Errorf("%s: %s", c.Name, c.Error)
		}
		if !c.Passed {
			t.Logf("failed: %s", printed(t, c))
		}
	}
	// The fused cases pass only in fused mode: run as word searches, each fails.
	s, err := loadSuite(b.Root, "evals/retrieval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fused := 0
	for _, c := range s.Cases {
		if c.Mode != modeFused {
			continue
		}
		fused++
		req := Request{Brains: []*brain.Brain{b}, Now: time.Now(), Location: time.UTC}
		if res, _, _ := runCase(context.Background(), req, s.Path, c); !res.Passed {
			t.Errorf("%s fails fused: %s", c.Name, printed(t, res))
		}
		c.Mode = modeWords
		if res, _, _ := runCase(context.Background(), req, s.Path, c); res.Passed {
			t.Errorf("%s passes as a word search; it should need fused search", c.Name)
		}
	}
	if fused < 2 {
		t.Errorf("examples/brain has %d fused cases, want at least 2", fused)
	}
	if r.MRR == nil || *r.MRR < 0.5 {
		t.Errorf("mrr %v", r.MRR)
	}
}

func TestVersionErrorType(t *testing.T) {
	_, err := parseSuite("evals/x.yaml", []byte("version: 9\n"))
	var ve *config.VersionError
	if !errors.As(err, &ve) || ve.Found != 9 {
		t.Fatalf("err = %v", err)
	}
}
