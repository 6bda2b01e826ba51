package chunk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// whole is a byte range of generated Markdown no chunk may cut: a fenced code block or
// a table row.
type whole struct{ start, end int }

// randomMarkdown writes paragraphs, lists, fenced code blocks (nested fences of either
// character, blank lines inside) and tables, and returns the text with its whole ranges.
func randomMarkdown(rng *rand.Rand) (string, []whole) {
	var b strings.Builder
	var keep []whole
	word := func() string {
		return []string{"ledger", "cutover", "invoice", "freeze", "総額", "| pipe", "`tick`", "~", "-"}[rng.IntN(9)]
	}
	line := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ")
	}
	mark := func(start int) { keep = append(keep, whole{start, b.Len()}) }
	for range 5 + rng.IntN(40) {
		switch rng.IntN(4) {
		case 0: // a paragraph
			b.WriteString("Note " + line(1+rng.IntN(30)))
			for range rng.IntN(3) {
				b.WriteString("\nmore " + line(1+rng.IntN(10)))
			}
		case 1: // a list
			for i := range 1 + rng.IntN(4) {
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString("- item " + line(1+rng.IntN(8)))
				if rng.IntN(3) == 0 {
					b.WriteString("\n  - nested " + line(2))
				}
			}
		case 2: // a fenced code block holding blank lines and fences that do not close it
			char := []string{"`", "~"}[rng.IntN(2)]
			other := map[string]string{"`": "~", "~": "`"}[char]
			fence := strings.Repeat(char, 3+rng.IntN(3))
			start := b.Len()
			b.WriteString(fence + "md\ncode " + line(2))
			for range rng.IntN(5) {
				switch rng.IntN(4) {
				case 0:
					b.WriteString("\n")
				case 1: // a shorter fence of the same character, or any of the other
					if len(fence) > 3 {
						b.WriteString("\n" + fence[1:])
					} else {
						b.WriteString("\n" + strings.Repeat(other, 3+rng.IntN(3)))
					}
				case 2: // an opening fence with an info string never closes one
					b.WriteString("\n" + fence + "go\n- not a list\n| not | a row |")
				default:
					b.WriteString("\n\n# not a heading\n" + line(3))
				}
			}
			b.WriteString("\n" + fence)
			mark(start)
		default: // a table
			start := b.Len()
			b.WriteString("| a | b |\n|---|:-:|")
			mark(start)
			for range 1 + rng.IntN(5) {
				b.WriteString("\n")
				start := b.Len()
				b.WriteString("| " + line(1+rng.IntN(20)) + " | x |")
				mark(start)
			}
		}
		b.WriteString(strings.Repeat("\n", 2+rng.IntN(2)))
	}
	return b.String(), keep
}

// Chunks never split a fenced block or a table row, never alter text (each chunk's body
// is the source from a line's start to a line's end) and lose no nonblank line.
func TestChunksKeepBlocksWhole(t *testing.T) {
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 37))
		text, keep := randomMarkdown(rng)
		blocks := spans(text)
		sizes := make([]int, len(blocks))
		for i, sp := range blocks {
			sizes[i] = len([]rune(text[sp.start:sp.end]))
		}
		got := Cut(Where{Title: "T"}, "f", text)
		groups := pack(sizes, target)
		if len(got) != len(groups) {
			t.Fatalf("seed %d: %d chunks for %d groups", seed, len(got), len(groups))
		}
		covered := make([]bool, len(text))
		for n, g := range groups {
			start, end := blocks[g[0]].start, blocks[g[1]].end
			where := fmt.Sprintf("seed %d, chunk %d [%d,%d)", seed, n, start, end)
			if want := "Title: T\n\n" + text[start:end]; got[n].Text != want {
				t.Fatalf("%s: text %q, want %q", where, got[n].Text, want)
			}
			if start > 0 && text[start-1] != '\n' || end < len(text) && text[end] != '\n' && text[end] != '\r' {
				t.Errorf("%s: does not start and end at line boundaries", where)
			}
			for _, w := range keep {
				if w.start < end && start < w.end && (w.start < start || end < w.end) {
					t.Errorf("%s cuts %q", where, text[w.start:w.end])
				}
			}
			for i := start; i < end; i++ {
				covered[i] = true
			}
		}
		for i, l := range strings.Split(text, "\n") {
			at := lineOffset(text, i)
			if strings.TrimSpace(l) != "" && !covered[at] {
				t.Errorf("seed %d: line %d %q is in no chunk", seed, i+1, l)
			}
		}
	}
}

func lineOffset(text string, line int) int {
	at := 0
	for range line {
		at += strings.IndexByte(text[at:], '\n') + 1
	}
	return at
}

// On any input, blocks are ordered, disjoint, nonblank substrings at line boundaries.
func FuzzBlocks(f *testing.F) {
	for _, s := range []string{"````\n```\n\n```\n````", "- a\n\n  b\n- c", "| a |\n|---|\n| 1 |", "a\r\n\r\nb", "> q\n>\n> r", "[^1]: note\n\nx", "   \n\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, sp := range spans(text) {
			if sp.start < prev || sp.end <= sp.start || sp.end > len(text) {
				t.Fatalf("span %v after %d in %q", sp, prev, text)
			}
			if sp.start > 0 && text[sp.start-1] != '\n' {
				t.Fatalf("span %v starts inside a line of %q", sp, text)
			}
			if b := text[sp.start:sp.end]; strings.TrimSpace(b) == "" {
				t.Fatalf("blank block %q in %q", b, text)
			}
			prev = sp.end
		}
	})
}
