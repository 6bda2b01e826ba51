package lsp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden replies in testdata")

// now is the fixed time of every test: after ledger-migration.md's stale_after, so its
// review signal shows.
var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

// filed is when every file of the test brain was last written.
var filed = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// session is a server over a copy of examples/brain, initialized with the brain as its
// workspace folder.
type session struct {
	*client
	root string
}

func newSession(t *testing.T) *session {
	t.Helper()
	root := brainfix.Copy(t, filepath.Join("..", "..", "examples", "brain"), false)
	// Review signals compare file times with now: fix them too.
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, filed, filed)
	})
	if err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{Debounce: time.Millisecond, Location: time.UTC, Now: func() time.Time { return now }})
	init := c.call("initialize", map[string]any{"rootUri": uriOf(root), "capabilities": map[string]any{}})
	if init.Error != nil {
		t.Fatalf("initialize: %v", init.Error)
	}
	c.notify("initialized", map[string]any{})
	return &session{client: c, root: root}
}

func (s *session) uri(rel string) string { return fileURI(s.root, rel) }

// open opens a note of the brain with the text given, or its file's text for "".
func (s *session) open(rel, text string) string {
	s.t.Helper()
	if text == "" {
		data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
		if err != nil {
			s.t.Fatal(err)
		}
		text = string(data)
	}
	uri := s.uri(rel)
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
	return uri
}

func at(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
}

// golden compares v, as indented JSON with the brain's folder written ROOT, with the file
// testdata/NAME.json.
func (s *session) golden(name string, v any) {
	s.t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	got = bytes.ReplaceAll(got, []byte(uriOf(s.root)), []byte("file://ROOT"))
	got = append(got, '\n')
	file := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		s.t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		s.t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// edited is projects/tax-engine.md with one of each problem bf validate reports for a
// note: an undeclared field, a duplicate identity, a broken link, a missing heading, an
// undeclared relation, a link relation outside its targets and a wikilink.
func edited(t *testing.T, root string) string {
	data, err := os.ReadFile(filepath.Join(root, "projects", "tax-engine.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = strings.Replace(s, "fields:\n", "fields:\n  colour: blue\n", 1)
	s = strings.Replace(s, "tags: [billing, tax]", "tags: [billing, tax]\naliases: [\"repo:github.com/acme/billing\"]", 1)
	return s + "\nSee [the rules](tax-rules.md), [rates](tax-engine.md#rate-tabel) and\n" +
		"[billing](bf://acme/projects/billing-api.md?rel=feeds) owned by [ravi](../concepts/people/ravi.md?x).\n" +
		"Ask [dana](bf://acme/concepts/people/dana.md?rel=author) or [[Ledger]].\n"
}

func TestDiagnostics(t *testing.T) {
	s := newSession(t)
	uri := s.open("projects/tax-engine.md", edited(t, s.root))
	s.golden("diagnostics-open", s.diagnostics(uri))
	// The fixed text clears them, from the buffer, whatever the file holds.
	data, err := os.ReadFile(filepath.Join(s.root, "projects", "tax-engine.md"))
	if err != nil {
		t.Fatal(err)
	}
	s.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": string(data) + "\n[gone](gone.md)\n"}},
	})
	s.golden("diagnostics-change", s.diagnostics(uri))
	s.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if d := s.diagnostics(uri); len(d.Diagnostics) != 0 || d.Version != nil {
		t.Errorf("after didClose: %+v, want no diagnostics", d)
	}
}

func TestOutsideTheBrain(t *testing.T) {
	s := newSession(t)
	outside := filepath.Join(t.TempDir(), "notes.md")
	uri := uriOf(outside)
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": "[gone](gone.md)\n"}})
	// AGENTS.md is in the brain folder but no note of it.
	agents := s.open("AGENTS.md", "[gone](gone.md)\n")
	for _, m := range []string{"textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/references"} {
		for _, u := range []string{uri, agents} {
			if r := s.call(m, at(u, 0, 3)); r.Error != nil || string(r.Result) != "null" {
				t.Errorf("%s on %s = %s %v, want null", m, u, r.Result, r.Error)
			}
		}
	}
	// The next diagnostics are those of a note of the brain: none came for the others.
	note := s.open("projects/tax-engine.md", "")
	s.diagnostics(note)
	for _, m := range s.queue {
		if _, ok := diagnosticsOf(m, uri); ok {
			t.Errorf("diagnostics for a file outside the brain: %s", m.Params)
		}
		if _, ok := diagnosticsOf(m, agents); ok {
			t.Errorf("diagnostics for AGENTS.md: %s", m.Params)
		}
	}
}

func TestCompletion(t *testing.T) {
	s := newSession(t)
	base, err := os.ReadFile(filepath.Join(s.root, "projects", "tax-engine.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(base), "\n")
	tests := []struct {
		name, typed string
		line        int // 0: a new last line holding typed
	}{
		{"notes-by-search", "See [x](led", 0},
		{"notes-by-path", "See [x](", 0},
		{"sections-here", "See [x](#", 0},
		{"sections-there", "See [x](../concepts/ledger.md#", 0},
		{"relation", "See [x](bf://acme/projects/billing-api.md?rel=de", 0},
		{"address", "See [x](bf://acme/dunn", 0},
		{"entity", "See [x](bf://acme/teams/", 0},
		{"record", "See [x](tickets:bill", 0},
		{"identity", "See [x](person:email/", 0},
		{"tag", "tags: [billing, ta", 7},
		{"relation-field", `  owner: ["person:email/`, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := string(base)
			line := tt.line - 1
			if tt.line == 0 {
				text += tt.typed + "\n"
				line = lines
			} else {
				ls := strings.Split(text, "\n")
				ls[line] = tt.typed
				text = strings.Join(ls, "\n")
			}
			uri := s.open("projects/tax-engine.md", text)
			r := s.call("textDocument/completion", at(uri, line, utf16Len(tt.typed)))
			s.golden("completion-"+tt.name, result[completionList](t, r))
		})
	}
}

func TestHoverAndDefinition(t *testing.T) {
	s := newSession(t)
	billing := s.open("projects/billing-api.md", "")
	tax := s.open("projects/tax-engine.md", "")
	refs := s.open("projects/refs.md", "---\ntype: project\n---\n# Refs\n\nTicket `tickets:BILL-171` and bf://acme/concepts/ledger.md#decision.\nSee https://example.com/x for more.\n")
	tests := []struct {
		name       string
		uri        string
		line, char int
	}{
		{"note", tax, 19, 5},          // [ledger](../concepts/ledger.md)
		{"section", billing, 22, 20},  // [invoice lifecycle](../concepts/invoice-lifecycle.md#states)
		{"review", billing, 32, 70},   // [ledger migration](ledger-migration.md), past its stale_after
		{"record", tax, 23, 30},       // [2026 rate table](docs:tax-rate-table-2026)
		{"identity", tax, 10, 20},     // owner: person:email/priya@example.test
		{"alias", tax, 11, 25},        // depends-on: repo:github.com/acme/billing
		{"address", billing, 27, 40},  // [billing team](bf://acme/teams/billing), an entity
		{"related", tax, 12, 30},      // related-to: bf://acme/concepts/invoice-lifecycle.md
		{"source", tax, 8, 20},        // sources: docs:tax-rate-table-2026
		{"tag", tax, 6, 17},           // tags: [billing, tax]
		{"web", billing, 16, 10},      // <https://developer.example.com/billing>
		{"nothing", tax, 17, 3},       // plain text
		{"body-record", refs, 5, 12},  // `tickets:BILL-171`
		{"body-address", refs, 5, 40}, // bf://acme/concepts/ledger.md#decision.
		{"body-url", refs, 6, 10},     // https://example.com/x, no ref
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := s.call("textDocument/hover", at(tt.uri, tt.line, tt.char))
			d := s.call("textDocument/definition", at(tt.uri, tt.line, tt.char))
			s.golden("hover-"+tt.name, map[string]json.RawMessage{"hover": h.Result, "definition": d.Result})
		})
	}
}

func TestReferences(t *testing.T) {
	s := newSession(t)
	tax := s.open("projects/tax-engine.md", "")
	ctx := map[string]any{"includeDeclaration": false}
	p := at(tax, 0, 0)
	p["context"] = ctx
	s.golden("references-note", result[[]location](t, s.call("textDocument/references", p)))
	// On a link: the references of its target, here the ledger's.
	p = at(tax, 19, 5)
	p["context"] = map[string]any{"includeDeclaration": true}
	s.golden("references-link", result[[]location](t, s.call("textDocument/references", p)))
}

func TestSymbols(t *testing.T) {
	s := newSession(t)
	uri := s.open("projects/billing-api.md", "")
	s.golden("document-symbols", result[[]documentSymbol](t, s.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})))
	s.golden("workspace-symbols", result[[]symbolInformation](t, s.call("workspace/symbol", map[string]any{"query": "ledger cutover"})))
}

func TestCodeActions(t *testing.T) {
	s := newSession(t)
	uri := s.open("projects/tax-engine.md", edited(t, s.root))
	s.diagnostics(uri) // an editor asks for the fixes of the diagnostics it shows
	lines := strings.Count(edited(t, s.root), "\n")
	whole := map[string]any{"textDocument": map[string]any{"uri": uri}, "range": map[string]any{
		"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": lines, "character": 0}}}
	s.golden("code-actions", result[[]codeAction](t, s.call("textDocument/codeAction", whole)))
	// Nothing was written: the missing note is only proposed.
	if _, err := os.Stat(filepath.Join(s.root, "projects", "tax-rules.md")); !os.IsNotExist(err) {
		t.Errorf("projects/tax-rules.md exists (%v): a code action wrote it", err)
	}
}

// TestSave checks that a note saved in the editor counts for the other open notes at once.
func TestSave(t *testing.T) {
	s := newSession(t)
	const linking = "---\ntype: project\ntitle: L\n---\n\n# L\n\n[t](tax-engine.md#audit)\n"
	l := s.open("projects/l.md", linking)
	want := []diagnostic{{Range: Range{Start: Position{7, 4}, End: Position{7, 23}}, Severity: severityError, Source: "bf", Message: "missing heading: tax-engine.md#audit"}}
	if diff := cmp.Diff(want, s.diagnostics(l).Diagnostics); diff != "" {
		t.Errorf("before the save (-want +got):\n%s", diff)
	}
	file := filepath.Join(s.root, "projects", "tax-engine.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data) + "\n## Audit\n"
	tax := s.open("projects/tax-engine.md", text)
	s.diagnostics(tax)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": tax}})
	if d := s.diagnostics(l); len(d.Diagnostics) != 0 {
		t.Errorf("after the save: %+v, want none", d.Diagnostics)
	}
}
