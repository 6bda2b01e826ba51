package note

import (
	"errors"
	"testing"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/google/go-cmp/cmp"
)

func TestLinks(t *testing.T) {
	body := `---
type: project
links: [repo:b, https://a.test]
sources:
  - resource: meetings:kickoff
---
Before [any](before.md) heading.

# Title

Intro ![logo](../assets/logo.svg "Logo") and <https://x.test/?a=1> and <dana@example.test>.

## Decision {#decision}

Migrate per customer ([notes](meetings:kickoff-7)), see [ref][r] and [r] and [Ref].
A [spaced](<local:docs/Meeting notes.txt>) [escaped](a\_b.md) [entity](a&amp;b.md) [empty]() [hash](#).
` + "`[code](no.md)`" + ` and [text \[x\]](https://t.test) [Éric](person:email/éric@example.test)

[r]: ../concepts/r.md#part
[unused]: unused.md

## Later

Claim[^src] here.
` + "```" + `
[fenced](no.md)
` + "```" + `
<a href="html.md">html</a>

## Sources

[^src]: [Source](records.md) and [Other](bf://acme/x?rel=cites)
[^nocite]: [Lonely](lonely.md)
`
	n := mustParse(t, "projects/site.md", body)
	want := []Link{
		{Target: "before.md", Line: 7},
		{Target: "../assets/logo.svg", Image: true, Line: 11, Section: "title"},
		{Target: "https://x.test/?a=1", Line: 11, Section: "title"},
		{Target: "mailto:dana@example.test", Line: 11, Section: "title"},
		{Target: "meetings:kickoff-7", Line: 15, Section: "decision"},
		{Target: "../concepts/r.md#part", Line: 15, Section: "decision"},
		{Target: "../concepts/r.md#part", Line: 15, Section: "decision"}, // [Ref] is another label
		{Target: "local:docs/Meeting notes.txt", Line: 16, Section: "decision"},
		{Target: "a_b.md", Line: 16, Section: "decision"},
		{Target: "a&b.md", Line: 16, Section: "decision"},
		{Target: "", Line: 16, Section: "decision"},
		{Target: "#", Line: 16, Section: "decision"},
		{Target: "https://t.test", Line: 17, Section: "decision"},
		{Target: "person:email/éric@example.test", Line: 17, Section: "decision"},
		{Target: "records.md", Line: 32, Section: "later", From: FromFootnote},
		{Target: "bf://acme/x?rel=cites", Line: 32, Section: "later", From: FromFootnote},
		{Target: "lonely.md", Line: 33, Section: "sources", From: FromFootnote},
		{Target: "https://a.test", From: fromLinks},
		{Target: "repo:b", From: fromLinks},
		{Target: "meetings:kickoff", From: FromSources},
	}
	if diff := cmp.Diff(want, n.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestFootnoteCitedBeforeAndInHeading(t *testing.T) {
	body := "[^a]: [A](a.md)\n\n## One\n\ntext\n\n## Two [^a]\n\nagain [^a]\n"
	n := mustParse(t, "concepts/c.md", body)
	want := []Link{{Target: "a.md", Line: 1, Section: "two-a", From: FromFootnote}}
	if diff := cmp.Diff(want, n.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		note, dest string
		want       Target
		err        string
	}{
		{"projects/web/site.md", "", Target{}, ""},
		{"projects/web/site.md", "#", Target{}, ""},
		{"projects/web/site.md", "https://x.test/a#b", Target{Kind: URI, URI: "https://x.test/a#b"}, ""},
		{"projects/web/site.md", "bf://acme/x?rel=owner", Target{Kind: URI, URI: "bf://acme/x?rel=owner"}, ""},
		{"projects/web/site.md", "meetings:offline", Target{Kind: URI, URI: "meetings:offline"}, ""},
		{"projects/web/site.md", "C:notes", Target{Kind: URI, URI: "C:notes"}, ""},
		{"projects/web/site.md", "other.md", Target{Kind: File, Path: "projects/web/other.md"}, ""},
		{"projects/web/site.md", "./other.md#Part", Target{Kind: File, Path: "projects/web/other.md", Fragment: "Part", HasFragment: true}, ""},
		{"projects/web/site.md", "#decision", Target{Kind: File, Path: "projects/web/site.md", Fragment: "decision", HasFragment: true}, ""},
		{"projects/web/site.md", "x.md#", Target{Kind: File, Path: "projects/web/x.md"}, ""},
		{"projects/web/site.md", "data%231.csv", Target{Kind: File, Path: "projects/web/data#1.csv"}, ""},
		{"projects/web/site.md", "a%20b.md#sec%2Dx", Target{Kind: File, Path: "projects/web/a b.md", Fragment: "sec-x", HasFragment: true}, ""},
		{"projects/web/site.md", "a.md#x#y", Target{Kind: File, Path: "projects/web/a.md", Fragment: "x#y", HasFragment: true}, ""},
		{"projects/web/site.md", "../../assets/logo.svg", Target{Kind: File, Path: "assets/logo.svg"}, ""},
		{"projects/web/site.md", "../..", Target{Kind: File, Path: "."}, ""},
		{"projects/web/site.md", "sub/", Target{Kind: File, Path: "projects/web/sub"}, ""},
		{"concepts/a/b.md", "/tables/customers.md", Target{Kind: File, Path: "concepts/tables/customers.md"}, ""},
		{"projects/a.md", "/x.md", Target{Kind: File, Path: "projects/x.md"}, ""},
		{"projects/a.md", "/../assets/x.png", Target{Kind: File, Path: "assets/x.png"}, ""},
		{"projects/web/site.md", "../../../x.md", Target{}, "link leaves the brain: ../../../x.md"},
		{"projects/a.md", "/../../x.md", Target{}, "link leaves the brain: /../../x.md"},
		{"actions/2026-01-01_x/ACTION.md", "/x.md", Target{}, "link leaves the brain: /x.md"},
		{"actions/2026-01-01_x/ACTION.md", "../../projects/a.md", Target{Kind: File, Path: "projects/a.md"}, ""},
		{"projects/a.md", "50%.md", Target{}, ref.ErrPercent.Error()},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.note, tt.dest)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Resolve(%q, %q) error = %v, want %q", tt.note, tt.dest, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tt.note, tt.dest, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Resolve(%q, %q) (-want +got):\n%s", tt.note, tt.dest, diff)
		}
	}
	if _, err := Resolve("projects/a.md", "../../x"); !errors.Is(err, ErrLeavesBrain) {
		t.Errorf("want ErrLeavesBrain, got %v", err)
	}
}
