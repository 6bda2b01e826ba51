package note

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func mustParse(t *testing.T, p, body string) *Note {
	t.Helper()
	n, err := Parse(p, []byte(body), KindOf(p))
	if err != nil {
		t.Fatalf("Parse(%s): %v", p, err)
	}
	return n
}

func TestKindOf(t *testing.T) {
	tests := map[string]Kind{
		"projects/site.md":                       OKF,
		"projects/web/site.md":                   OKF,
		"concepts/glossary.md":                   OKF,
		"projects/index.md":                      index,
		"concepts/tables/index.md":               index,
		"projects/log.md":                        log,
		"concepts/a/log.md":                      log,
		"actions/2026-09-16_handoff/ACTION.md":   OKF,
		"actions/2026-09-16_handoff/notes.md":    Markdown,
		"actions/2026-09-16_handoff/inputs/a.md": Markdown,
		"actions/x/inputs/ACTION.md":             Markdown,
		"actions/index.md":                       Markdown,
		"actions/README.md":                      Markdown,
		"README.md":                              Markdown,
		"projects/data.csv":                      Markdown,
		"projects/x.MD":                          Markdown,
	}
	for p, want := range tests {
		if got := KindOf(p); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want Problem
	}{
		{"not utf8", []byte("# A\n\xff\n"), Problem{Message: "note is not UTF-8"}},
		{"too large", []byte(strings.Repeat("a", MaxBytes+1)), Problem{Message: "note exceeds 4 MiB"}},
		{"conflict ours", []byte("# A\n<<<<<<< HEAD\nx\n"), Problem{Line: 2, Message: "note has Git conflict markers; resolve the merge first"}},
		{"conflict base in code", []byte("```\n||||||| base\n```\n"), Problem{Line: 2, Message: "note has Git conflict markers; resolve the merge first"}},
		{"conflict theirs after cr", []byte("a\r>>>>>>> b\r"), Problem{Line: 2, Message: "note has Git conflict markers; resolve the merge first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse("projects/a.md", tt.data, OKF)
			if n != nil {
				t.Errorf("got a note")
			}
			if diff := cmp.Diff(tt.want, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	// Indenting a marker by one space avoids the rule, and exactly 4 MiB is allowed.
	mustParse(t, "projects/a.md", " <<<<<<< quoted\n=======\n")
	if _, err := Parse("projects/a.md", []byte(strings.Repeat("a", MaxBytes)), OKF); err != nil {
		t.Errorf("4 MiB note: %v", err)
	}
}

func TestTitle(t *testing.T) {
	long := strings.Repeat("é", maxTitle+1)
	tests := []struct {
		name, path, body, want string
	}{
		{"front matter", "projects/a-b.md", "---\ntitle: Given\n---\n# Heading\n", "Given"},
		{"front matter at the limit", "projects/a-b.md", "---\ntitle: " + long[:2*maxTitle] + "\n---\n", long[:2*maxTitle]},
		{"blank front matter", "projects/a-b.md", "---\ntitle: '  '\n---\n# Heading {#h}\n", "Heading"},
		{"too long front matter", "projects/a-b.md", "---\ntitle: " + long + "\n---\n# Heading\n", "Heading"},
		{"first h1 even after h2", "projects/a-b.md", "## Two\n\n# One\n\n# Later\n", "One"},
		{"h1 text as slugs see it", "projects/a-b.md", "# *New* `web` site\n", "New web site"},
		{"stem", "projects/new-website.md", "## Only h2\n", "new website"},
		{"empty h1 falls to stem", "projects/new-website.md", "#\n\n# Later\n", "new website"},
		{"action stem", "actions/2026-01-01_x/ACTION.md", "text\n", "ACTION"},
		{"wrong type falls back", "projects/a-b.md", "---\ntitle: 123\n---\n# Heading\n", "Heading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, tt.path, tt.body).Title; got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		path, body               string
		typ, status, summary, up string
	}{
		{"projects/a.md", "# A\n", "project", "stable", "", ""},
		{"concepts/a.md", "", "concept", "stable", "", ""},
		{"actions/2026-01-01_x/ACTION.md", "", "action", "stable", "", ""},
		{"actions/2026-01-01_x/inputs/a.md", "", "action", "stable", "", ""},
		{"notes/a.md", "", "", "stable", "", ""},
		{"projects/a.md", "---\ntype: guide\nstatus: draft\ndescription: D\nupdated: 2026-09-12\n---\n", "guide", "draft", "D", "2026-09-12"},
		{"projects/a.md", "---\nsummary: S\ndescription: D\n---\n", "project", "stable", "S", ""},
		{"projects/a.md", "---\ntype: ''\nstatus: ''\n---\n", "project", "stable", "", ""},
	}
	for _, tt := range tests {
		n := mustParse(t, tt.path, tt.body)
		got := []string{n.Type, n.Status, n.Summary, n.Updated}
		want := []string{tt.typ, tt.status, tt.summary, tt.up}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.path, tt.body, diff)
		}
	}
}

func TestSections(t *testing.T) {
	body := "---\ntype: project\n---\n\n# Plans\n\nIntro [a](a.md).\n\n## Orion\r\n\r\nOrion text.\r\n\r\n### Budget\n\nOrion budget.\n\nSub\n---\n\nSetext body.\n\n## Vega\n\n### Budget\n\nVega budget.\n"
	n := mustParse(t, "projects/plans.md", body)
	want := []Section{
		{Level: 1, Title: "Plans", Slug: "plans", Line: 5, End: 27, TextLine: 6, Next: 9,
			Text: "Intro [a](a.md).", Parent: -1},
		{Level: 2, Title: "Orion", Slug: "orion", Line: 9, End: 17, TextLine: 10, Next: 13,
			Text: "Orion text.", Parent: 0, Passage: true},
		{Level: 3, Title: "Budget", Slug: "budget", Line: 13, End: 17, TextLine: 14, Next: 17,
			Text: "Orion budget.", Parent: 1, Parents: []string{"Orion"}, Passage: true},
		{Level: 2, Title: "Sub", Slug: "sub", Line: 17, End: 22, TextLine: 19, Next: 22,
			Text: "Setext body.", Parent: 0, Passage: true},
		{Level: 2, Title: "Vega", Slug: "vega", Line: 22, End: 27, TextLine: 23, Next: 24,
			Text: "", Parent: 0, Passage: true},
		{Level: 3, Title: "Budget", Slug: "budget-1", Line: 24, End: 27, TextLine: 25, Next: 27,
			Text: "Vega budget.", Parent: 4, Parents: []string{"Vega"}, Passage: true},
	}
	if diff := cmp.Diff(want, n.Sections, cmpopts.IgnoreFields(Section{}, "Offset", "EndOffset")); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if n.Intro != "Intro [a](a.md)." {
		t.Errorf("intro = %q", n.Intro)
	}
	s, _ := n.Section("budget")
	if got := body[s.Offset:s.EndOffset]; got != "### Budget\n\nOrion budget.\n\n" {
		t.Errorf("budget bytes = %q", got)
	}
	s, _ = n.Section("orion")
	if got := body[s.Offset:s.EndOffset]; !strings.HasPrefix(got, "## Orion\r\n") || !strings.HasSuffix(got, "Orion budget.\n\n") {
		t.Errorf("orion bytes = %q", got)
	}
	if got := n.DisplayTitle(s); got != "Plans — Orion" {
		t.Errorf("display = %q", got)
	}
	s, _ = n.Section("budget-1")
	if got := n.DisplayTitle(s); got != "Plans — Vega — Budget" {
		t.Errorf("display = %q", got)
	}
	if n.Lines != 26 || n.BodyLine != 4 {
		t.Errorf("lines %d body %d", n.Lines, n.BodyLine)
	}
}

func TestIntro(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"title h1 removed", "# A\n\nIntro.\n\n## B\n\nb\n", "Intro."},
		{"front matter title keeps h1", "---\ntitle: T\n---\n# A\n\nIntro.\n## B\n", "# A\n\nIntro."},
		{"text before h1", "Lead.\n\n# A\n\nIntro.\n", "Lead.\n\nIntro."},
		{"no headings", "Just text.\n", "Just text."},
		{"starts with h2", "Lead.\n## B\n", "Lead."},
		{"later h1 is a section", "# A\n\nIntro.\n\n# B\n\nb\n", "Intro."},
		{"setext title", "A\n===\nIntro.\n", "Intro."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, "projects/a.md", tt.body).Intro; got != tt.want {
				t.Errorf("intro = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineEndings(t *testing.T) {
	// \r\n, \r and \n end lines; U+2028 does not. The BOM is ignored.
	n := mustParse(t, "projects/a.md", "\ufeff---\r\ntitle: T\r---\n# A\u2028still\r\n- [ ] t\n")
	if n.Title != "T" || n.BodyLine != 4 || n.Lines != 5 {
		t.Fatalf("title %q body %d lines %d", n.Title, n.BodyLine, n.Lines)
	}
	if n.Sections[0].Title != "A\u2028still" || n.Sections[0].Line != 4 {
		t.Errorf("section %+v", n.Sections[0])
	}
	if len(n.Tasks) != 1 || n.Tasks[0].Line != 5 {
		t.Errorf("tasks %+v", n.Tasks)
	}
	if n.Sections[0].Offset != len("\ufeff---\r\ntitle: T\r---\n") {
		t.Errorf("offset %d", n.Sections[0].Offset)
	}
}

func TestOrdinaryMarkdown(t *testing.T) {
	body := "---\ntitle: Copied\nstatus: in-review\ntype: report\nupdated: 2026-02-30\ntags: [x]\naliases: [repo:x]\nentity: bf://b/people/x\nlinks: [https://x.test]\nsources: [{resource: a.md}]\nfields: {owner: x}\nstale_after: nope\n---\n# H {#a}\n## H2 {#a}\n"
	n := mustParse(t, "actions/2026-01-01_x/inputs/copy.md", body)
	if n.Kind != Markdown || n.Invalid() || !n.Searchable() {
		t.Fatalf("kind %v invalid %v", n.Kind, n.Invalid())
	}
	if n.Title != "Copied" || n.Status != "in-review" || n.Type != "report" || n.Updated != "" {
		t.Errorf("meta %q %q %q %q", n.Title, n.Status, n.Type, n.Updated)
	}
	if n.Meta.Tags != nil || n.Meta.Aliases != nil || n.Meta.Entity != "" || n.Meta.Links != nil ||
		n.Meta.Sources != nil || n.Meta.Fields != nil || n.Meta.StaleAfter != "" || n.Identities() != nil {
		t.Errorf("ignored keys applied: %+v", n.Meta)
	}
	if len(n.Links) != 0 {
		t.Errorf("links %+v", n.Links)
	}
	want := []Problem{{Field: "updated", Message: "expected YYYY-MM-DD"}, {Line: 15, Message: "duplicate explicit heading anchor"}}
	if diff := cmp.Diff(want, n.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if n.Check() != nil || n.CountsTasks() {
		t.Errorf("ordinary Markdown follows no OKF rule")
	}
	if n.Sections[1].Slug != "h2" {
		t.Errorf("later duplicate anchor should take a generated slug: %q", n.Sections[1].Slug)
	}
}

// TestParseConcurrent shares nothing between parses; run with -race to check.
func TestParseConcurrent(t *testing.T) {
	body := "---\ntype: concept\ntags: [a]\n---\n# ΟΔΟΣ\n\n## Σ Budget\n\n- [ ] [x](y.md)\n"
	done := make(chan string)
	for range 8 {
		go func() {
			n, err := Parse("concepts/a.md", []byte(body), OKF)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- n.Sections[0].Slug + " " + n.Sections[1].Slug
		}()
	}
	for range 8 {
		if got := <-done; got != "οδος σ-budget" {
			t.Errorf("got %q", got)
		}
	}
}
