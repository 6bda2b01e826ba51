package note

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrontMatterValues(t *testing.T) {
	body := `---
type: project
status: draft
title: Ledger migration
updated: 2026-10-02
stale_after: 2026-10-20T09:00:00+02:00
summary: Move invoices.
description: Ignored when summary is set.
tags: [billing, 2026, 1.5, 1e16, billing, q4]
aliases: [repo:github.com/acme/billing, bf://acme/people/dana/, person:email/dana@example.test, repo:github.com/acme/billing]
entity: bf://acme/ledger
resource: https://acme.test/ledger
links: [repo:z, https://b.test, repo:z]
sources:
  - resource: ../concepts/x.md#part
    note: kept
verified: {by: dana, at: 2026-10-01}
fields:
  owner: [person:email/dana@example.test]
okf_version: "0.2"
owner: top-level
---
# Body
`
	n := mustParse(t, "projects/ledger.md", body)
	if len(n.Problems) != 0 || len(n.Warnings) != 0 {
		t.Fatalf("problems %v warnings %v", n.Problems, n.Warnings)
	}
	want := FrontMatter{
		Keys: []string{"aliases", "description", "entity", "fields", "links", "okf_version", "owner",
			"resource", "sources", "stale_after", "status", "summary", "tags", "title", "type", "updated", "verified"},
		Type: "project", Status: "draft", Title: "Ledger migration", Updated: "2026-10-02",
		StaleAfter: "2026-10-20T07:00:00.000000Z", Summary: "Move invoices.",
		Description: "Ignored when summary is set.",
		Tags:        []string{"billing", "2026", "1.5", "1e+16", "q4"},
		Aliases:     []string{"bf://acme/people/dana", "person:email/dana@example.test", "repo:github.com/acme/billing"},
		Entity:      "bf://acme/ledger",
		Resource:    "https://acme.test/ledger",
		Links:       []string{"https://b.test", "repo:z"},
		Sources: []Source{{Resource: "../concepts/x.md#part",
			Raw: map[string]any{"resource": "../concepts/x.md#part", "note": "kept"}}},
		Verified:   []map[string]any{{"by": "dana", "at": "2026-10-01"}},
		Fields:     map[string]any{"owner": []any{"person:email/dana@example.test"}},
		OKFVersion: "0.2",
		Extra:      map[string]any{"owner": "top-level"},
	}
	if diff := cmp.Diff(want, n.Meta); diff != "" {
		t.Errorf("front matter (-want +got):\n%s", diff)
	}
	if n.Summary != "Move invoices." || n.Title != "Ledger migration" {
		t.Errorf("summary %q title %q", n.Summary, n.Title)
	}
	wantIDs := []string{"bf://acme/ledger", "bf://acme/people/dana", "person:email/dana@example.test",
		"repo:github.com/acme/billing", "https://acme.test/ledger"}
	if diff := cmp.Diff(wantIDs, n.Identities()); diff != "" {
		t.Errorf("identities (-want +got):\n%s", diff)
	}
	wantLinks := []Link{
		{Target: "https://b.test", From: fromLinks},
		{Target: "repo:z", From: fromLinks},
		{Target: "../concepts/x.md#part", From: FromSources},
	}
	if diff := cmp.Diff(wantLinks, n.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

// TestFrontMatterInvalid covers each value that makes an OKF note invalid, with its text.
func TestFrontMatterInvalid(t *testing.T) {
	many := "[" + strings.TrimSuffix(strings.Repeat("a,", MaxItems+1), ",") + "]"
	tests := []struct {
		yaml string
		want []Problem
	}{
		{"title: 123", []Problem{{Field: "title", Message: "expected a string"}}},
		{"type: [a]", []Problem{{Field: "type", Message: "expected a string"}}},
		{"type: " + strings.Repeat("t", 129), []Problem{{Field: "type", Message: "expected at most 128 characters"}}},
		{"status: true", []Problem{{Field: "status", Message: "expected a string"}}},
		{"summary: {a: 1}", []Problem{{Field: "summary", Message: "expected a string"}}},
		{"updated: 2026-02-30", []Problem{{Field: "updated", Message: "expected YYYY-MM-DD"}}},
		{"updated: 2026-9-1", []Problem{{Field: "updated", Message: "expected YYYY-MM-DD"}}},
		{"updated: 0001-01-01", []Problem{{Field: "updated", Message: "expected YYYY-MM-DD"}}},
		{"updated: 20260901", []Problem{{Field: "updated", Message: "expected a string"}}},
		{"stale_after: 2026-10-20", []Problem{{Field: "stale_after", Message: "expected an ISO 8601 timestamp"}}},
		{"stale_after: 2026-10-20T09:00:00", []Problem{{Field: "stale_after", Message: "expected an ISO 8601 timestamp with a timezone"}}},
		{"tags: billing", []Problem{{Field: "tags", Message: "expected a list"}}},
		{"tags: [a, true]", []Problem{{Field: "tags.1", Message: "expected text or a number"}}},
		{"tags: [a/b]", []Problem{{Field: "tags.0", Message: "tag must be 1-128 characters without surrounding whitespace, slashes or dot segments"}}},
		{"tags: ['..']", []Problem{{Field: "tags.0", Message: "tag must be 1-128 characters without surrounding whitespace, slashes or dot segments"}}},
		{"tags: [' a']", []Problem{{Field: "tags.0", Message: "tag must be 1-128 characters without surrounding whitespace, slashes or dot segments"}}},
		{"tags: " + many, []Problem{{Field: "tags", Message: "expected at most 1000 items"}}},
		{"aliases: [Dana]", []Problem{{Field: "aliases.0", Message: "expected an explicit namespaced identity"}}},
		{"aliases: [3]", []Problem{{Field: "aliases.0", Message: "expected a string"}}},
		{"aliases: ['person:a\u200bb']", []Problem{{Field: "aliases.0", Message: "identity contains an invisible format character"}}},
		{"aliases: ['bf://acme/x?rel=owner']", []Problem{{Field: "aliases.0", Message: "identity must not contain a link relation"}}},
		{"aliases: ['bf://acme/x#part']", []Problem{{Field: "aliases.0", Message: "an identity names a whole subject, not a #section"}}},
		{"aliases: ['bf://acme/tags/x']", []Problem{{Field: "aliases.0", Message: "an identity cannot be a page, record or home address"}}},
		{"aliases: " + many, []Problem{{Field: "aliases", Message: "expected at most 1000 items"}}},
		{"entity: person:dana", []Problem{{Field: "entity", Message: "expected a bf:// address"}}},
		{"entity: 'bf://acme/a b'", []Problem{{Field: "entity", Message: "invalid BF link; use bf://brain/path?rel=role#section, with rel as the only query, spaces and a literal % percent-encoded as %20 and %25, and without userinfo or traversal"}}},
		{"entity: bf://acme/meetings:x", []Problem{{Field: "entity", Message: "an identity cannot be a page, record or home address"}}},
		{"entity: bf://acme/" + strings.Repeat("e", maxIdentity), []Problem{{Field: "entity", Message: "expected at most 8192 characters"}}},
		{"resource: 'bf://acme/../x'", []Problem{{Field: "resource", Message: "invalid BF link; use bf://brain/path?rel=role#section, with rel as the only query, spaces and a literal % percent-encoded as %20 and %25, and without userinfo or traversal"}}},
		{"resource: " + strings.Repeat("r", maxIdentity+1), []Problem{{Field: "resource", Message: "expected at most 8192 characters"}}},
		{"links: [a, 2]", []Problem{{Field: "links.1", Message: "expected a nonempty string"}}},
		{"links: ['']", []Problem{{Field: "links.0", Message: "expected a nonempty string"}}},
		{"sources: a.md", []Problem{{Field: "sources", Message: "OKF sources require mappings with a nonempty resource string"}}},
		{"sources: [a.md]", []Problem{{Field: "sources.0", Message: "OKF sources require mappings with a nonempty resource string"}}},
		{"sources: [{resource: ''}]", []Problem{{Field: "sources.0", Message: "OKF sources require mappings with a nonempty resource string"}}},
		{"sources: [{title: x}]", []Problem{{Field: "sources.0", Message: "OKF sources require mappings with a nonempty resource string"}}},
		{"verified: {by: dana}", []Problem{{Field: "verified", Message: "OKF verification events require by and at"}}},
		{"verified: [{by: dana, at: ''}]", []Problem{{Field: "verified", Message: "OKF verification events require by and at"}}},
		{"verified: yes", []Problem{{Field: "verified", Message: "OKF verification events require by and at"}}},
		{"fields: [a]", []Problem{{Field: "fields", Message: "expected a mapping"}}},
		{"okf_version: 0.2", []Problem{{Field: "okf_version", Message: "expected a string"}}},
		{"title: 1\nupdated: x", []Problem{{Field: "title", Message: "expected a string"}, {Field: "updated", Message: "expected YYYY-MM-DD"}}},
	}
	for _, tt := range tests {
		n := mustParse(t, "concepts/a.md", "---\n"+tt.yaml+"\n---\n# A\n")
		if diff := cmp.Diff(tt.want, n.Problems); diff != "" {
			t.Errorf("%.60q (-want +got):\n%s", tt.yaml, diff)
		}
		if !n.Invalid() || n.Searchable() {
			t.Errorf("%.60q: note should be invalid", tt.yaml)
		}
	}
}

// TestFrontMatterAccepted covers values that are fine, including nulls and YAML 1.2 scalars.
func TestFrontMatterAccepted(t *testing.T) {
	tests := []struct {
		yaml  string
		check func(FrontMatter) bool
	}{
		{"title:\ntags:\naliases: ~", func(f FrontMatter) bool { return f.Title == "" && f.Tags == nil }},
		{"tags: [yes, no, 017]", func(f FrontMatter) bool { return cmp.Equal(f.Tags, []string{"yes", "no", "17"}) }},
		{"tags: [99999999999999999999, 0x10, .inf]", func(f FrontMatter) bool {
			return cmp.Equal(f.Tags, []string{"99999999999999999999", "16", "inf"})
		}},
		{"tags: [0.0001, 1.0, 1e-5]", func(f FrontMatter) bool { return cmp.Equal(f.Tags, []string{"0.0001", "1.0", "1e-05"}) }},
		{"resource: not an identity at all", func(f FrontMatter) bool { return f.Resource == "not an identity at all" }},
		{"verified: [{by: [a], at: 1}, {by: true, at: x}]", func(f FrontMatter) bool { return len(f.Verified) == 2 }},
		{"sources: []", func(f FrontMatter) bool { return f.Sources == nil }},
		{"entity: BF://acme/x/", func(f FrontMatter) bool { return f.Entity == "bf://acme/x" }},
	}
	for _, tt := range tests {
		n := mustParse(t, "concepts/a.md", "---\n"+tt.yaml+"\n---\n")
		if len(n.Problems) != 0 || !tt.check(n.Meta) {
			t.Errorf("%q: problems %v meta %+v", tt.yaml, n.Problems, n.Meta)
		}
	}
}

// TestFrontMatterBlock covers finding the block and YAML that cannot be used.
func TestFrontMatterBlock(t *testing.T) {
	tests := []struct {
		name, body string
		title      string
		bodyLine   int
		intro      string
		warnings   []Problem
	}{
		{"none", "# T\ntext\n", "T", 1, "text", nil},
		{"empty block", "---\n---\n# T\n", "T", 3, "", nil},
		// Without a block, the fences are Markdown: a rule, then a setext heading.
		{"not first line", "\n---\ntitle: X\n---\n", "a", 1, "---", nil},
		{"fence with space", "--- \ntitle: X\n---\n", "a", 1, "---", nil},
		{"longer fence", "----\ntitle: X\n----\n", "a", 1, "----", nil},
		{"unclosed", "---\ntitle: X\n# T\nbody\n", "T", 1, "---\ntitle: X\n\nbody",
			[]Problem{{Field: "frontmatter", Line: 1, Message: "unclosed frontmatter"}}},
		{"bad yaml ignored", "---\ntitle: [x\n---\n# T\n", "T", 4, "",
			[]Problem{{Field: "frontmatter", Message: "invalid YAML at line 2"}}},
		{"not a mapping", "---\n- a\n---\ntext\n", "a", 4, "text",
			[]Problem{{Field: "frontmatter", Message: "expected a YAML mapping"}}},
		{"duplicate key", "---\ntitle: a\ntitle: b\n---\n", "a", 5, "",
			[]Problem{{Field: "frontmatter", Line: 3, Message: "title: duplicate key"}}},
		{"anchors refused", "---\na: &x 1\nb: *x\n---\n", "a", 5, "",
			[]Problem{{Field: "frontmatter", Line: 2, Message: "a: YAML anchors and aliases are not allowed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, "projects/a.md", tt.body)
			got := []any{n.Title, n.BodyLine, n.Intro}
			if diff := cmp.Diff([]any{tt.title, tt.bodyLine, tt.intro}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, n.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if n.Invalid() {
				t.Errorf("problems %v", n.Problems)
			}
		})
	}
}

func TestPyFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1, "1.0"}, {1.5, "1.5"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {-2.5, "-2.5"},
		{1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{123456789.125, "123456789.125"}, {2.5e-7, "2.5e-07"},
		{math.NaN(), "nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := pyFloat(tt.in); got != tt.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
