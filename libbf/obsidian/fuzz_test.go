package obsidian

import (
	"strings"
	"testing"
)

// FuzzFind checks that the scanners never panic and that everything they return lies in
// the text, in order, with the shape it claims.
func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"[[Note]] ![[img.png|100]] [[A#B#^c|t]]",
		"```\n[[x]]\n```\n`[[y]]` [[z]]",
		"#tag #a/b [l](d.md) [r]: <x y>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, l := range Find(text) {
			if l.Start < prev || l.End > len(text) || l.Start >= l.End {
				t.Fatalf("link %d..%d out of order or bounds (prev %d, len %d)", l.Start, l.End, prev, len(text))
			}
			raw := l.Raw(text)
			open := "[["
			if l.Embed {
				open = "![["
			}
			if !strings.HasPrefix(raw, open) || !strings.HasSuffix(raw, "]]") {
				t.Fatalf("link %q has the wrong shape", raw)
			}
			again, ok := parse(raw[len(open) : len(raw)-2])
			if !ok || again.Path != l.Path || again.Block != l.Block || again.Text != l.Text {
				t.Fatalf("link %q does not parse back", raw)
			}
			prev = l.End
		}
		for _, tg := range FindTags(text) {
			if tg.Start < 0 || tg.End > len(text) || text[tg.Start] != '#' || tg.Label == "" {
				t.Fatalf("tag %+v out of shape", tg)
			}
		}
		for _, d := range FindDests(text) {
			if d.Start < 0 || d.End > len(text) || d.Start > d.End || d.Open < 0 || d.Open >= len(text) || text[d.Open] != ']' {
				t.Fatalf("destination %+v out of shape", d)
			}
		}
		for _, sp := range spans(text) {
			if sp[0] < 0 || sp[1] > len(text) || sp[0] > sp[1] {
				t.Fatalf("span %v out of bounds", sp)
			}
		}
	})
}
