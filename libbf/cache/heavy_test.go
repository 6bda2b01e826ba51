package cache

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// heavyRows lists the heavy table as "ref#fragment term col count", checking that every
// row belongs to a live passage.
func heavyRows(t *testing.T, c *Cache) []string {
	t.Helper()
	return rows(t, c.DB(), `SELECT coalesce(i.ref || '#' || p.fragment, 'orphan') || ' ' || h.term || ' ' || h.col || ' ' || h.count
		FROM heavy h LEFT JOIN passages p ON p.id = h.passage LEFT JOIN items i ON i.id = p.item
		ORDER BY 1`)
}

// TestHeavyCounts keeps the term counts of large passages of few words, and only theirs
// (not those of many.md, large but of many words), through builds and refreshes.
func TestHeavyCounts(t *testing.T) {
	f := smallBrain(t)
	f.write("concepts/zebra.md", "---\ntype: concept\n---\n# Zebra\n\n"+strings.Repeat("Zebras zebra ", 6000)+"\n\n## Okapi\n\n"+
		strings.Repeat("okapi ", 12000)+"\n")
	f.write("concepts/prose.md", "---\ntype: concept\n---\n# Prose\n\n"+strings.Repeat("a zebra met a lion. ", 5000)+"\n")
	var many strings.Builder
	many.WriteString("---\ntype: concept\n---\n# Many\n\n")
	for i := 0; many.Len() < 80000; i++ {
		many.WriteString("w" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + " ")
	}
	f.write("concepts/many.md", many.String())
	f.writeRecord("mail", "big", `"title":"Okapi","text":"`+strings.Repeat("okapi ", 11000)+`"`)
	f.build()
	want := []string{
		"concepts/prose.md# a 1 10000",
		"concepts/prose.md# concept 2 1",
		"concepts/prose.md# lion 1 5000",
		"concepts/prose.md# met 1 5000",
		"concepts/prose.md# prose 0 1",
		"concepts/prose.md# zebra 1 5000",
		"concepts/zebra.md# concept 2 1",
		"concepts/zebra.md# zebra 0 1",
		"concepts/zebra.md# zebra 1 12000",
		"concepts/zebra.md#okapi okapi 0 1",
		"concepts/zebra.md#okapi okapi 1 12000",
		"concepts/zebra.md#okapi zebra 3 1",
		"mail:big# mail 2 1",
		"mail:big# okapi 0 1",
		"mail:big# okapi 1 11000",
	}
	c := f.open()
	got := heavyRows(t, c)
	c.Close()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after the build (-want +got):\n%s", diff)
	}

	// A refresh drops the counts of a passage that changed or went, and keeps new ones.
	f.write("concepts/zebra.md", "---\ntype: concept\n---\n# Zebra\n\nA zebra.\n\n## Okapi\n\n"+strings.Repeat("okapi ", 12000)+"\n")
	f.remove(recordPath("mail", "big"))
	f.writeRecord("mail", "large", `"title":"Lion","text":"`+strings.Repeat("lion ", 14000)+`"`)
	c = f.open()
	got = heavyRows(t, c)
	c.Close()
	want = []string{
		"concepts/prose.md# a 1 10000",
		"concepts/prose.md# concept 2 1",
		"concepts/prose.md# lion 1 5000",
		"concepts/prose.md# met 1 5000",
		"concepts/prose.md# prose 0 1",
		"concepts/prose.md# zebra 1 5000",
		"concepts/zebra.md#okapi okapi 0 1",
		"concepts/zebra.md#okapi okapi 1 12000",
		"concepts/zebra.md#okapi zebra 3 1",
		"mail:large# lion 0 1",
		"mail:large# lion 1 14000",
		"mail:large# mail 2 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after the refresh (-want +got):\n%s", diff)
	}
}

// TestTermCounts counts terms as the search table's tokenizer cuts them.
func TestTermCounts(t *testing.T) {
	got := TermCounts([4]string{"Running", "runs ran; RUN Café", "", "cafe"})
	want := []TermCount{{"cafe", 1, 1}, {"cafe", 3, 1}, {"ran", 1, 1}, {"run", 0, 1}, {"run", 1, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
