package search

import (
	"errors"
	"sort"
	"testing"

	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

func scopeBrain(t *testing.T) (*testBrain, string) {
	b := newBrain(t, "work", map[string]string{
		"projects/new-website.md": "---\nupdated: 2026-09-27\ntags: [website]\n" +
			"aliases: [repo:github.com/example/new-website]\n---\n# New website\n\nLaunch plan.\n",
		"projects/other.md": "---\nupdated: 2026-08-15\n---\n# Other\n\nLaunch plan.\n",
		"concepts/launch.md": "---\nupdated: 2026-09-22\n---\n# Launches\n\nLaunch plan for the " +
			"[site](repo:github.com/example/new-website).\n",
	})
	b.Record("brief", "b1", `"title":"Kickoff","text":"Launch plan.","time":"2026-09-28T08:00:00Z"`)
	file := b.Record("brief", "b2", `"title":"Kickoff","text":"Launch plan.","time":"2026-09-10T08:00:00Z",`+
		`"links":["repo:github.com/example/new-website"]`)
	b.Record("brief", "b3", `"title":"Kickoff","text":"Launch plan."`)
	b.Record("news", "n1", `"title":"Kickoff","text":"Launch plan.","time":"2026-09-27T10:00:00Z"`)
	return b, file
}

func TestScopes(t *testing.T) {
	b, file := scopeBrain(t)
	tests := []struct {
		scope string
		want  []string // sorted refs
	}{
		{"", []string{"brief:b1", "brief:b2", "brief:b3", "concepts/launch.md", "news:n1", "projects/new-website.md", "projects/other.md"}},
		{"projects", []string{"projects/new-website.md", "projects/other.md"}},
		{"projects/", []string{"projects/new-website.md", "projects/other.md"}},
		{"projects/new-website.md", []string{"projects/new-website.md"}},
		{"concepts", []string{"concepts/launch.md"}},
		{"actions", []string{}},
		{"projects/none", []string{}},
		{"memories", []string{"brief:b1", "brief:b2", "brief:b3", "news:n1"}},
		{"memories/brief", []string{"brief:b1", "brief:b2", "brief:b3"}},
		{"memories/brief/7d", []string{"brief:b1"}},
		{"memories/brief/2026-09", []string{"brief:b1", "brief:b2"}},
		{"memories/brief/undated", []string{"brief:b3"}},
		{file, []string{"brief:b2"}},
		{"memories/old", []string{}},
		{"today", []string{"brief:b1"}},
		{"yesterday", []string{"news:n1", "projects/new-website.md"}},
		{"7d", []string{"brief:b1", "concepts/launch.md", "news:n1", "projects/new-website.md"}},
		{"2026-09", []string{"brief:b1", "brief:b2", "concepts/launch.md", "news:n1", "projects/new-website.md"}},
		{"2026-09-21..2026-09-25", []string{"concepts/launch.md"}},
		{"2026-08-15", []string{"projects/other.md"}},
		{"repo:github.com/example/new-website", []string{"brief:b2", "concepts/launch.md", "projects/new-website.md"}},
		{"bf://work/projects/new-website.md", []string{"brief:b2", "concepts/launch.md", "projects/new-website.md"}},
		{"repo:github.com/example/unknown", []string{}},
		{"bf://work/tags/website", []string{"projects/new-website.md"}},
		{"bf://work/tags/none", []string{}},
	}
	for _, tt := range tests {
		r := mustSearch(t, Request{Query: "launch", Scope: tt.scope}, b)
		got := refs(r.Items)
		sort.Strings(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("scope %q (-want +got):\n%s", tt.scope, diff)
		}
	}
}

func TestScopeErrors(t *testing.T) {
	b, _ := scopeBrain(t)
	const general = "invalid input: scope: scope takes a folder or a whole note (projects, projects/new-website.md), " +
		"a source with an optional period, undated records or a record file (memories/brief, memories/brief/7d, " +
		"memories/brief/undated, memories/brief/FILE), a period (today, 7d, 2026-09, 2026-09-21..2026-09-25), " +
		"an identity (repo:github.com/example/new-website) or a tag address (bf://NAME/tags/LABEL)"
	const section = "invalid input: scope: scope takes a whole note without its #section; scope the note, then read the section"
	const fragment = "invalid input: scope: a page has no sections; scope it without its #fragment"
	const page = "invalid input: scope: scope takes a page by its brain-relative form, such as projects or 7d, not its bf:// address"
	tests := []struct{ scope, want string }{
		{"memories/brief/foo", general},
		{"memories/brief/7d/x", general},
		{"memories/Brief", general},
		{"tags/website", general},
		{"tasks", general},
		{"../projects", general},
		{"projects//x", general},
		{"/projects", general},
		{"projects/new-website.md#decision", section},
		{"projects/new-website.md#", section},
		{"bf://work/projects/new-website.md#decision", section},
		{"projects#x", fragment},
		{"7d#x", fragment},
		{"memories/brief#x", fragment},
		{"bf://work/projects", page},
		{"bf://work/7d", page},
		{"bf://work/", page},
		{"bf://work/memories/brief", page},
		{"2026-13", "invalid input: scope: invalid period: 2026-13"},
		{"memories/brief/2026-02-30", "invalid input: scope: invalid period: 2026-02-30"},
		{"0d", "invalid input: scope: invalid period: 0d"},
		{"bf://work/tags/website#x", "invalid input: scope: use a tag address without a section or relation: bf://brain/tags/label"},
		{"repo:github.com/x?rel=owner", ""},
		{"bf://work/projects/a.md?rel=owner", "invalid input: scope: identity must not contain a link relation"},
	}
	for _, tt := range tests {
		_, err := search(t, Request{Query: "launch", Scope: tt.scope}, b)
		if tt.want == "" {
			if err != nil {
				t.Errorf("scope %q: %v", tt.scope, err)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || err.Error() != tt.want {
			t.Errorf("scope %q:\n got %v\nwant %s", tt.scope, err, tt.want)
		}
		if err := Check(Request{Query: "launch", Scope: tt.scope}); err == nil || err.Error() != tt.want {
			t.Errorf("Check, scope %q: %v", tt.scope, err)
		}
	}
	// A source that no selected brain configures or indexes fails like its page.
	_, err := search(t, Request{Query: "launch", Scope: "memories/nope"}, b)
	var nf *notFoundError
	if !errors.As(err, &nf) || err.Error() != "unknown source; read memories to list sources" {
		t.Errorf("unknown source: %v", err)
	}
}

func TestQueryErrors(t *testing.T) {
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Query: "!!!"}, "invalid input: query: give words or an identity to search; read a page such as today to list items"},
		{Request{Query: ""}, "invalid input: query: give words or an identity to search; read a page such as today to list items"},
		{Request{Query: "bf://x y"}, ""},
		{Request{Query: "bf://work/tags/a#b"}, "invalid input: query: use a tag address without a section or relation: bf://brain/tags/label"},
		{Request{Query: "a", Limit: 51}, "invalid input: limit: expected an integer from 1 to 50"},
		{Request{Query: "a", Limit: -1}, "invalid input: limit: expected an integer from 1 to 50"},
		{Request{Query: "a", Offset: -1}, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		{Request{Query: "a", Offset: reply.MaxOffset + 1}, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		// The scope is checked before the query.
		{Request{Query: "!!!", Scope: "tasks"}, ""},
	}
	for _, tt := range tests {
		err := Check(tt.req)
		switch {
		case tt.want == "" && tt.req.Scope == "" && err != nil:
			t.Errorf("%+v: %v", tt.req, err)
		case tt.want == "" && tt.req.Scope != "" && (err == nil || !IsInput(err) || err.(*InputError).Argument != "scope"):
			t.Errorf("%+v: %v, want a scope error", tt.req, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !IsInput(err)):
			t.Errorf("%+v:\n got %v\nwant %s", tt.req, err, tt.want)
		}
	}
}

func TestCoverage(t *testing.T) {
	b, _ := scopeBrain(t)
	tests := []struct {
		query, scope string
		want         string
	}{
		// Sources of returned records and those never collected; the others are counted.
		// news declares no refresh: manual. Its one record is returned.
		{"launch", "memories/news", `"sources":[{"freshness":"manual","mode":"window","source":"news","state":"active"}]`},
		{"kickoff", "memories/brief/undated", `"sources":[{"freshness":"never","mode":"window","source":"brief","state":"active"}]`},
		{"launch", "", `"sources":[{"freshness":"never","mode":"window","source":"brief","state":"active"},` +
			`{"freshness":"manual","mode":"window","source":"news","state":"active"}],"sources_omitted":1`},
		// Without items, every searched source: coverage is the answer.
		{"zebra", "7d", `"sources":[{"freshness":"never","mode":"window","source":"brief","state":"active"},` +
			`{"freshness":"manual","mode":"window","source":"news","state":"active"},` +
			`{"freshness":"unknown","mode":"window","source":"old","state":"disabled"}]`},
		// A scope under memories lists every searched source.
		{"launch", "memories", `"sources":[{"freshness":"never","mode":"window","source":"brief","state":"active"},` +
			`{"freshness":"manual","mode":"window","source":"news","state":"active"},` +
			`{"freshness":"unknown","mode":"window","source":"old","state":"disabled"}]`},
		// Authored folders omit coverage.
		{"launch", "projects", ``},
		{"zebra", "concepts/launch.md", ``},
	}
	for _, tt := range tests {
		r := mustSearch(t, Request{Query: tt.query, Scope: tt.scope}, b)
		got := ""
		if r.Sources != nil {
			got = jsonOf(t, struct {
				Sources        []reply.Coverage `json:"sources"`
				SourcesOmitted int              `json:"sources_omitted,omitempty"`
			}{r.Sources, r.SourcesOmitted})
			got = got[1 : len(got)-1]
		}
		if got != tt.want {
			t.Errorf("%q in %q:\n got %s\nwant %s", tt.query, tt.scope, got, tt.want)
		}
	}
	// A source with records whose sensor is gone is historical.
	b.Record("gone", "g1", `"title":"Launch notes","text":"Launch."`)
	r := mustSearch(t, Request{Query: "launch notes", Scope: "memories/gone"}, b)
	if got, want := jsonOf(t, r.Sources), `[{"freshness":"unknown","source":"gone","state":"historical"}]`; got != want {
		t.Errorf("historical: %s, want %s", got, want)
	}
}
