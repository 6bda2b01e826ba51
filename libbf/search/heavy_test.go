package search

import (
	"strings"
	"testing"
)

// TestHeavyScores ranks a brain whose large passages repeat a few words, so the cache keeps
// their term counts and their BM25 is computed from them: every row and score must be the
// one of the plain statement, where FTS5's bm25() scores every passage, and the counts must
// have been used.
func TestHeavyScores(t *testing.T) {
	repeat := func(s string, n int) string { return strings.Repeat(s, n) }
	b := newBrain(t, "heavy", map[string]string{
		"concepts/zebra.md": "---\ntype: concept\ntags: [zebra]\n---\n# Zebra herd\n\n" + repeat("zebra ", 14000) + "\n",
		"concepts/mixed.md": "---\ntype: concept\n---\n# Savanna\n\n" + repeat("Zebra lion zebras. ", 5000) + "\n\n## Lions\n\n" +
			repeat("lion giraffe ", 7000) + "\n\n## Zebra and okapi\n\n" + repeat("okapi ", 13000) + "\n",
		"concepts/prose.md": "---\ntype: concept\n---\n# Prose\n\nA zebra and a lion met by the river; the giraffe watched.\n",
		"projects/plan.md":  "---\ntype: project\n---\n# Plan\n\nCount the lions, then the zebras.\n\n## Giraffe\n\nOne giraffe.\n",
	})
	b.Record("brief", "r1", `"title":"Zebra log","text":"`+repeat("zebra ", 12000)+`","url":"https://zoo.test/1"`)
	b.Record("news", "r2", `"title":"Lion log","text":"a lion, a zebra","url":"https://zoo.test/1"`)
	b.Record("news", "r3", `"title":"Okapi","text":"`+repeat("okapi lion ", 7000)+`"`)
	parts := openParts(t, b)
	var kept int
	if err := parts[0].tx.QueryRow(`SELECT count(DISTINCT passage) FROM heavy`).Scan(&kept); err != nil || kept < 4 {
		t.Fatalf("heavy passages = %d (%v), want at least 4", kept, err)
	}
	used := 0
	defer func() { traceRank = nil }()
	traceRank = func(s rankStats) { used += s.heavy }
	for _, q := range []string{"zebra", "lion", "zebra lion", "giraffe zebra lion", "zebras", "Zebra okapi", "okapi",
		"herd", "zebra*", `"zebra lion"`, "savanna lion"} {
		for _, s := range []string{"", "concepts", "memories/news", "bf://heavy/tags/zebra"} {
			checkSameRanking(t, parts[0], parts, q, s, []int64{1, 2, 10})
		}
	}
	if used == 0 {
		t.Error("no passage was scored from its counts")
	}
}
