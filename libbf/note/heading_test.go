package note

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Next actions", "next-actions"},
		{"Budget", "budget"},
		{"A  B", "a--b"},
		{"A - B", "a---b"},
		{"Tab\there", "tab-here"},
		{"What's new?", "whats-new"},
		{"C++ & Go!", "c--go"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"Éric Ünïcode", "éric-ünïcode"},
		{"ΟΔΟΣ", "οδος"}, // final sigma at the end of a word
		{"日本語 テスト", "日本語-テスト"},
		{"½ and ²", "½-and-²"},
		{"e\u0301", "e"}, // combining marks are not word characters
		{"!!!", "section"},
		{"", "section"},
		{"a\u00a0b", "a-b"},
		{"a\u2028b", "a-b"},
		{"a\x1fb", "a-b"},
		{"2026-09-27", "2026-09-27"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// headingsOf parses body as a project note and returns level, title and slug per heading.
func headingsOf(t *testing.T, body string) ([][3]any, []Problem) {
	t.Helper()
	n, err := Parse("projects/x.md", []byte(body), OKF)
	if err != nil {
		t.Fatal(err)
	}
	var out [][3]any
	for _, s := range n.Sections {
		out = append(out, [3]any{s.Level, s.Title, s.Slug})
	}
	return out, n.Warnings
}

func TestHeadings(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		want     [][3]any
		problems []Problem
	}{
		{"emphasis code image link", "## *Big* `code` ![alt *x*](i.png) [text](https://x.test) **b**\n",
			[][3]any{{2, "Big code alt x text b", "big-code-alt-x-text-b"}}, nil},
		{"autolink and entity", "## See <https://x.test> &amp; &#65; \\*\n",
			[][3]any{{2, "See https://x.test & A *", "see-httpsxtest--a-"}}, nil},
		{"raw html dropped", "## A <br> B\n", [][3]any{{2, "A  B", "a--b"}}, nil},
		{"atx closing", "## Title ##\n", [][3]any{{2, "Title", "title"}}, nil},
		{"setext joined", "Title line one\nline two\n===\n\nSub\n---\n",
			[][3]any{{1, "Title line one line two", "title-line-one-line-two"}, {2, "Sub", "sub"}}, nil},
		{"empty heading", "##\n\n## !!\n", [][3]any{{2, "", "section"}, {2, "!!", "section-1"}}, nil},
		{"explicit anchor", "## Decision {#decision-2026}\n", [][3]any{{2, "Decision", "decision-2026"}}, nil},
		{"anchor needs space", "## Decision{#d}\n", [][3]any{{2, "Decision{#d}", "decisiond"}}, nil},
		{"anchor alone is text", "## {#d}\n", [][3]any{{2, "{#d}", "d"}}, nil},
		{"anchor in emphasis", "## A *{#d}*\n", [][3]any{{2, "A {#d}", "a-d"}}, nil},
		{"anchor in code", "## A `{#d}`\n", [][3]any{{2, "A {#d}", "a-d"}}, nil},
		{"anchor in link text", "## A [{#d}](x.md)\n", [][3]any{{2, "A {#d}", "a-d"}}, nil},
		{"escaped anchor", "## A \\{#d}\n", [][3]any{{2, "A {#d}", "a-d"}}, nil},
		{"entity anchor", "## A &#123;#d}\n", [][3]any{{2, "A {#d}", "a-d"}}, nil},
		{"anchor after code", "## `x` {#d}\n", [][3]any{{2, "x", "d"}}, nil},
		{"anchor bad id", "## A {#-d}\n", [][3]any{{2, "A {#-d}", "a--d"}}, nil},
		{"anchor md", "## A {#a.md}\n", [][3]any{{2, "A", "a"}},
			[]Problem{{Line: 1, Message: "explicit heading anchors cannot end in .md"}}},
		{"duplicate explicit", "## A {#x}\n\n## B {#x}\n", [][3]any{{2, "A", "x"}, {2, "B", "b"}},
			[]Problem{{Line: 3, Message: "duplicate explicit heading anchor"}}},
		{"generated equals earlier explicit", "## A {#budget}\n\n## Budget\n",
			[][3]any{{2, "A", "budget"}, {2, "Budget", "budget-1"}},
			[]Problem{{Line: 3, Message: "duplicate explicit heading anchor"}}},
		{"generated taken by later explicit", "## Budget\n\n## B {#budget}\n",
			[][3]any{{2, "Budget", "budget"}, {2, "B", "b"}},
			[]Problem{{Line: 3, Message: "duplicate explicit heading anchor"}}},
		{"dedup skips later anchors", "## Budget\n\n## Budget\n\n## C {#budget-1}\n",
			[][3]any{{2, "Budget", "budget"}, {2, "Budget", "budget-2"}, {2, "C", "budget-1"}}, nil},
		{"dedup counts", "## A\n## A\n## A\n## A-1\n",
			[][3]any{{2, "A", "a"}, {2, "A", "a-1"}, {2, "A", "a-2"}, {2, "A-1", "a-1-1"}}, nil},
		{"headings in containers", "> ## Quoted\n\n- ## Listed\n",
			[][3]any{{2, "Quoted", "quoted"}, {2, "Listed", "listed"}}, nil},
		{"not in code", "```\n## Code\n```\n\n    ## indented\n", nil, nil},
		{"footnote heading order", "## One[^n]\n\n[^n]: # Inside\n\n## Two\n",
			[][3]any{{2, "One[^n]", "onen"}, {1, "Inside", "inside"}, {2, "Two", "two"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := headingsOf(t, tt.body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
