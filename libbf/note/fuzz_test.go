package note

import (
	"path"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
)

var parseSeeds = []string{
	"",
	"---\ntype: project\ntags: [a, 2026]\n---\n# Title\n\nIntro [a](a.md).\n\n## Decision {#decision}\n\n- [ ] task [x](y.md)\n",
	"# A\n## A\n## A {#a-1}\n### A\n",
	"Title\nline two\n===\n\n> ## quoted\n> - [x] no\n",
	"---\nunclosed: true\n# H\n",
	"\ufeff---\r\ntitle: T\r---\r\n# A\r\n",
	"[^a]: [A](a.md)\n\n## Cite [^a]\n\n[^a]\n",
	"- [ ] *a* `b` ![c](d) <https://e> [^f]\n\n[^f]: - [x] g\n",
	"## {#x}\n## x {#x}\n## y {#y.md}\n",
	"```\n# not\n```\n    # not\n<div>\n# not\n</div>\n",
	"#\n##\n###\n",
	"- a\n  ===\n",
	"*a\n===*\n",
	"[x]: y\n- [x] done?\n",
	"> # q\n>\n> text\n",
	"> > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > [a](b)\n",
	"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t- [ ] deep\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add("projects/x.md", []byte(s))
		f.Add("actions/2026-01-01_x/inputs/a.md", []byte(s))
	}
	f.Add("projects/log.md", []byte("## 2026-01-01\n## x\n"))
	f.Add("concepts/index.md", []byte("---\nokf_version: '0.2'\n---\n"))
	f.Fuzz(func(t *testing.T, p string, data []byte) {
		n, err := Parse(p, data, KindOf(p))
		if err != nil {
			if n != nil {
				t.Fatal("note and error")
			}
			return
		}
		_ = n.Check()
		_ = n.Identities()
		seen := map[string]bool{}
		for i, s := range n.Sections {
			if seen[s.Slug] {
				t.Fatalf("duplicate slug %q", s.Slug)
			}
			seen[s.Slug] = true
			if s.Slug == "" {
				t.Fatal("empty slug")
			}
			if s.Line < 1 || s.Line > n.Lines || s.End <= s.Line || s.End > n.Lines+1 {
				t.Fatalf("section %d lines [%d,%d) outside 1..%d", i, s.Line, s.End, n.Lines)
			}
			if s.TextLine <= s.Line || s.TextLine > s.Next+1 || s.Next > s.End || s.Line < n.BodyLine {
				t.Fatalf("section %d text [%d,%d) extent [%d,%d) body %d", i, s.TextLine, s.Next, s.Line, s.End, n.BodyLine)
			}
			if s.Offset > s.EndOffset || s.EndOffset > len(data) {
				t.Fatalf("section %d bytes [%d,%d) of %d", i, s.Offset, s.EndOffset, len(data))
			}
			if i > 0 && n.Sections[i-1].Line > s.Line {
				t.Fatalf("sections out of order")
			}
			if s.Parent >= i {
				t.Fatalf("parent after child")
			}
		}
		for _, tk := range n.Tasks {
			if tk.Line < n.BodyLine || tk.Line > n.Lines || utf8.RuneCountInString(tk.Text) > maxTaskText {
				t.Fatalf("task %+v", tk)
			}
			if tk.Section != "" && !seen[tk.Section] {
				t.Fatalf("task section %q unknown", tk.Section)
			}
			_ = tk.Render(func(s string) string { return s })
		}
		for _, l := range n.Links {
			if l.Line < 0 || l.Line > n.Lines || (l.Line > 0 && l.Line < n.BodyLine) {
				t.Fatalf("link %+v outside 1..%d", l, n.Lines)
			}
			if l.Section != "" && !seen[l.Section] {
				t.Fatalf("link section %q unknown", l.Section)
			}
			_, _ = Resolve(p, l.Target)
		}
		if stem := strings.TrimSuffix(path.Base(p), path.Ext(p)); n.Title == "" && stem != "" {
			t.Fatalf("empty title for %q", p)
		}
	})
}

func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"type: project\nstatus: draft",
		"tags: [a, 1, 1.5, true]",
		"aliases: [repo:x, 'bf://b/x/', Dana]",
		"entity: bf://b/people/x\nresource: bf://b/x",
		"sources: [{resource: a.md}, {resource: ''}]",
		"verified: {by: a, at: b}",
		"updated: 2026-02-29\nstale_after: 2026-01-01T00:00:00Z",
		"fields: {owner: [person:a]}\nokf_version: '0.2'",
		"links: [b, a, a]",
		"a: &x 1\nb: *x",
		"- list",
		"[",
		"title: !!binary aGk=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, yaml string) {
		for _, kind := range []Kind{OKF, Markdown, index} {
			n, err := Parse("concepts/a.md", []byte("---\n"+yaml+"\n---\n"), kind)
			if err != nil {
				return
			}
			m := n.Meta
			for _, p := range n.Problems {
				if p.Field == "" || p.Message == "" {
					t.Fatalf("problem without field: %+v", p)
				}
			}
			if kind == Markdown && n.Invalid() {
				t.Fatalf("ordinary Markdown is never invalid: %v", n.Problems)
			}
			if len(m.Tags) > MaxItems || len(m.Aliases) > MaxItems || len(m.Links) > MaxItems {
				t.Fatal("too many items")
			}
			for _, tag := range m.Tags {
				if ref.ValidTag(tag) != nil {
					t.Fatalf("invalid tag %q kept", tag)
				}
			}
			if !slices.IsSorted(m.Aliases) || len(slices.Compact(slices.Clone(m.Aliases))) != len(m.Aliases) {
				t.Fatalf("aliases not sorted and unique: %q", m.Aliases)
			}
			for _, a := range m.Aliases {
				if c, err := ref.CanonicalIdentity(a); err != nil || c != a {
					t.Fatalf("alias %q not canonical", a)
				}
			}
			if !slices.IsSorted(m.Links) {
				t.Fatal("links not sorted")
			}
			if !slices.IsSorted(m.Keys) {
				t.Fatal("keys not sorted")
			}
			if n.Status == "" || utf8.RuneCountInString(m.Type) > MaxWord {
				t.Fatalf("status %q type %q", n.Status, m.Type)
			}
		}
	})
}
