package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/google/go-cmp/cmp"
)

// Hostile notes: the work a search does on them must stay bounded by their size, not by
// how often a word repeats. hostileSize keeps each note under the 4 MiB note limit.
const hostileSize = 3_900_000

// hostileNotes are notes of about hostileSize bytes that all hold the word "zebra": one
// written like prose (the baseline), one word repeated, one line of distinct words, and
// 100,000 links.
var hostileNotes = []struct {
	name string
	body func(size int) string
}{
	{"normal", hostileBody(func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "The ledger entry w%d closed after review", i%5000)
		if i%997 == 0 {
			b.WriteString(" by zebra")
		}
		b.WriteString(".\n")
		if i%10 == 9 {
			b.WriteString("\n")
		}
	})},
	{"oneword", hostileBody(func(b *strings.Builder, _ int) { b.WriteString("zebra ") })},
	{"longline", hostileBody(func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "v%d ", i)
		if i == 100000 {
			b.WriteString("zebra ")
		}
	})},
	{"links", hostileBody(func(b *strings.Builder, i int) {
		if i < 100000 {
			fmt.Fprintf(b, "[zebra %d](target.md) ", i)
		} else {
			b.WriteString("filler ")
		}
	})},
}

// hostileBody makes a concept note whose body repeats add until it holds size bytes.
func hostileBody(add func(b *strings.Builder, i int)) func(size int) string {
	return func(size int) string {
		var b strings.Builder
		b.WriteString("---\ntype: concept\n---\n# Hostile\n\n")
		for i := 0; b.Len() < size; i++ {
			add(&b, i)
		}
		return b.String() + "\n"
	}
}

// hostileBrain writes and builds a brain holding one hostile note and a small target note.
func hostileBrain(tb testing.TB, body string) *brain.Brain {
	tb.Helper()
	root := tb.TempDir()
	files := map[string]string{
		"bf.yaml":            "version: 8\nname: hostile\n",
		"concepts/note.md":   body,
		"concepts/target.md": "---\ntype: concept\n---\n# Target\n\nA zebra grazes.\n",
	}
	for p, s := range files {
		file := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	br, err := brain.Open(root)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := cache.Build(context.Background(), br, nil); err != nil {
		tb.Fatal(err)
	}
	return br
}

// BenchmarkSearchHostile searches each hostile note for its word. The oneword, longline
// and links notes must cost at most about twice the normal one (bench/README.md):
//
//	go test -run '^$' -bench SearchHostile -benchtime 5x ./libbf/search
func BenchmarkSearchHostile(b *testing.B) {
	for _, n := range hostileNotes {
		b.Run(n.name, func(b *testing.B) {
			br := hostileBrain(b, n.body(hostileSize))
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Run(ctx, Request{Query: "zebra", Brains: []*brain.Brain{br}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHostileNotes searches notes of one word repeated, one line of distinct words and
// 100,000 links: snippet() over them would take minutes (its work grows with the square of
// the hits); their excerpts come from the first chunk that holds a hit instead.
func TestHostileNotes(t *testing.T) {
	words := func(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }
	want := map[string]string{
		"oneword":  words("zebra", 48) + " …",
		"longline": "v0 v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12 v13 v14 v15 v16 v17 v18 v19 v20 v21 v22 v23 v24 v25 v26 v27 v28 v29 v30 v31 v32 v33 v34 v35 v36 v37 v38 v39 v40 v41 v42 v43 v44 v45 v46 v47 …",
		"links":    "[zebra 0](target.md) [zebra 1](target.md) [zebra 2](target.md) [zebra 3](target.md) [zebra 4](target.md) [zebra 5](target.md) [zebra 6](target.md) [zebra 7](target.md) [zebra 8](target.md) [zebra 9](target.md) [zebra 10](target.md) [zebra 11](target.md …",
	}
	for _, n := range hostileNotes[1:] {
		t.Run(n.name, func(t *testing.T) {
			br := hostileBrain(t, n.body(900_000))
			got, err := Run(context.Background(), Request{Query: "zebra", Brains: []*brain.Brain{br}})
			if err != nil {
				t.Fatal(err)
			}
			excerpts := map[string]string{}
			for _, it := range got.Items {
				excerpts[it.Ref] = it.Excerpt
			}
			if diff := cmp.Diff(map[string]string{"concepts/note.md": want[n.name], "concepts/target.md": "A zebra grazes."}, excerpts); diff != "" {
				t.Errorf("excerpts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCutWords cuts chunks after n words, at a line or sentence end within the last
// eighth of them when there is one.
func TestCutWords(t *testing.T) {
	tests := []struct {
		in         string
		n          int
		head, rest string
	}{
		{"a b c d e", 4, "a b c d ", "e"},
		{"a b c d e f g. h i", 8, "a b c d e f g.", " h i"},
		{"a b. c d e f g h i", 8, "a b. c d e f g h ", "i"},
		{"a b", 4, "a b", ""},
		{"", 4, "", ""},
	}
	for _, tt := range tests {
		head, rest := cutWords(tt.in, tt.n)
		if head != tt.head || rest != tt.rest {
			t.Errorf("cutWords(%q, %d) = %q, %q; want %q, %q", tt.in, tt.n, head, rest, tt.head, tt.rest)
		}
	}
}
