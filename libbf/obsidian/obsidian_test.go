package obsidian

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		inner string
		want  Link
		ok    bool
	}{
		{"Note", Link{Path: "Note"}, true},
		{" Note ", Link{Path: "Note"}, true},
		{"Note|shown text", Link{Path: "Note", Text: "shown text", HasText: true}, true},
		{"Note#Heading", Link{Path: "Note", Headings: []string{"Heading"}}, true},
		{"Note#Part#Sub part", Link{Path: "Note", Headings: []string{"Part", "Sub part"}}, true},
		{"Note#^block-1", Link{Path: "Note", Block: "block-1"}, true},
		{"#Local", Link{Headings: []string{"Local"}}, true},
		{"#^b", Link{Block: "b"}, true},
		{`Note\|cell`, Link{Path: "Note", Text: "cell", HasText: true, EscapedPipe: true}, true},
		{"image.png|100x80", Link{Path: "image.png", Text: "100x80", HasText: true}, true},
		{"folder/Note.md#H|t", Link{Path: "folder/Note.md", Headings: []string{"H"}, Text: "t", HasText: true}, true},
		{"", Link{}, false},
		{"#", Link{}, false},
		{"a\nb", Link{}, false},
		{"a[b", Link{}, false},
		{strings.Repeat("x", maxLink+1), Link{}, false},
	}
	for _, tt := range tests {
		got, ok := parse(tt.inner)
		if ok != tt.ok {
			t.Errorf("Parse(%q) ok = %v, want %v", tt.inner, ok, tt.ok)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.inner, diff)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		text string
		want []string // raw forms found
	}{
		{"a [[One]] b ![[Two|100]] c", []string{"[[One]]", "![[Two|100]]"}},
		{"`[[code]]` and [[real]]", []string{"[[real]]"}},
		{"``a ` [[in code]] ``[[after]]", []string{"[[after]]"}},
		{"```\n[[fenced]]\n```\n[[out]]", []string{"[[out]]"}},
		{"~~~~md\n[[fenced]]\n~~~\n[[still fenced]]\n~~~~\n[[out]]", []string{"[[out]]"}},
		{"```\n[[unclosed fence]]", nil},
		{"`unclosed [[x]]", []string{"[[x]]"}},
		{`\[[escaped]] [[kept]]`, []string{"[[kept]]"}},
		{"[[broken\nacross]] [[ok]]", []string{"[[ok]]"}},
		{"[[]] [[#]] [[a]]", []string{"[[a]]"}},
		{"| [[A\\|b]] |", []string{"[[A\\|b]]"}},
		{"[[[triple]]]", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range Find(tt.text) {
			got = append(got, l.Raw(tt.text))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Find(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	if l := Find("x ![[E]]"); len(l) != 1 || !l[0].Embed || l[0].Start != 2 || l[0].End != 8 {
		t.Errorf("embed offsets: %+v", l)
	}
}

func TestFindTags(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"#tag at start, #nested/deep/tag, and #dash-ed_under", []string{"tag", "nested/deep/tag", "dash-ed_under"}},
		{"# Heading\n## Sub\n#2026 is a number #y2026 is not", []string{"y2026"}},
		{"a#glued [x](#anchor) http://h/#frag &#35;", nil},
		{"`#code` #real", []string{"real"}},
		{"```\n#fenced\n```\n#after", []string{"after"}},
		{"#café #日本", []string{"café", "日本"}},
		{"#trailing/ slash", []string{"trailing"}},
	}
	for _, tt := range tests {
		var got []string
		for _, tg := range FindTags(tt.text) {
			got = append(got, tg.Label)
			if tt.text[tg.Start] != '#' {
				t.Errorf("FindTags(%q): %q does not start at a #", tt.text, tg.Label)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("FindTags(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestFindDests(t *testing.T) {
	tests := []struct {
		text string
		want []string // values
		raw  []string // as written
	}{
		{"[a](b.md) ![i](img.png \"title\") [c](<d e.md>)", []string{"b.md", "img.png", "d e.md"}, []string{"b.md", "img.png", "<d e.md>"}},
		{"[p](x_(1).md) [q](y.md#Some%20Head)", []string{"x_(1).md", "y.md#Some%20Head"}, []string{"x_(1).md", "y.md#Some%20Head"}},
		{"[e](a\\)b.md)", []string{"a)b.md"}, []string{"a\\)b.md"}},
		{"`[c](code.md)` [r](real.md)", []string{"real.md"}, []string{"real.md"}},
		{"[ref]: target.md \"t\"\n  [two]: <sp ace.md>", []string{"target.md", "sp ace.md"}, []string{"target.md", "<sp ace.md>"}},
		{"not a link](x y z", nil, nil},
		{"[u](https://example.com/a?b)", []string{"https://example.com/a?b"}, []string{"https://example.com/a?b"}},
	}
	for _, tt := range tests {
		var vals, raws []string
		for _, d := range FindDests(tt.text) {
			vals = append(vals, d.Value)
			raws = append(raws, tt.text[d.Start:d.End])
			if c := tt.text[d.Open]; c != ']' {
				t.Errorf("FindDests(%q): Open points at %q", tt.text, c)
			}
		}
		if diff := cmp.Diff(tt.want, vals); diff != "" {
			t.Errorf("FindDests(%q) values (-want +got):\n%s", tt.text, diff)
		}
		if diff := cmp.Diff(tt.raw, raws); diff != "" {
			t.Errorf("FindDests(%q) raw (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestBlockLine(t *testing.T) {
	text := "# T\n\nFirst para ^p1\n\n- item ^item-2  \n\nno^glued\n"
	for id, want := range map[string]int{"p1": 3, "item-2": 5, "glued": 0, "absent": 0} {
		if got := BlockLine(text, id); got != want {
			t.Errorf("BlockLine(%q) = %d, want %d", id, got, want)
		}
	}
}
