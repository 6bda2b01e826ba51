package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/cache"
)

// TestRankingProperty ranks random small brains with random queries (common words held by
// most passages, rare words, phrases, prefixes, misses) in random scopes of every kind
// (folder, note, source, source and period, period, tag, identity) and page sizes: every
// row and score of rankWords, with its bounds, pruning, first attempt over the best few
// matches, counts-based scores and the rows holding each frequent term as the cache keeps
// them, must be those of the plain statement that scores every match with FTS5's bm25().
// Between queries the brain changes at random (notes edited or deleted, records added), so
// the row count, average size and the rows holding each term move under the ranking.
// BF_RANK_THOROUGH=1 runs more brains and queries.
func TestRankingProperty(t *testing.T) {
	// Seed 10 meets a heavy passage whose idf Go's math.Log rounded a bit off FTS5's; seed 8
	// reads a head within a source whose added records split it into two ranges.
	seeds, queries := []uint64{0, 1, 8, 10}, 25
	if os.Getenv("BF_RANK_THOROUGH") != "" {
		seeds, queries = nil, 80
		for s := range uint64(12) {
			seeds = append(seeds, s)
		}
	}
	// Scopes of the small brains are some above, some below the size where the first
	// attempts run within a scope.
	defer func(one, many int64) { attemptOneTerm, attemptTerms = one, many }(attemptOneTerm, attemptTerms)
	attemptOneTerm, attemptTerms = 60, 20
	// Short heads, so that one-word rankings read them (heads_test.go checks them closely).
	defer func(least int64, length int) { cache.HeadMinPassages, cache.HeadLength = least, length }(cache.HeadMinPassages, cache.HeadLength)
	cache.HeadMinPassages, cache.HeadLength = 8, 64
	var total, one rankStats
	var split int
	defer func() { traceRank = nil }()
	traceRank = func(s rankStats) {
		total.heavy += s.heavy
		total.heads += s.heads
		total.headsWithin += s.headsWithin
		total.headsSplit += s.headsSplit
		total.storedCounts += s.storedCounts
		total.topBound += s.topBound
		total.topMissed += s.topMissed
		total.everyBound += s.everyBound
		total.everyMissed += s.everyMissed
		total.reachBound += s.reachBound
		total.reachMissed += s.reachMissed
		total.widened += s.widened
		total.widenedBound += s.widenedBound
		total.ranges += s.ranges
		total.filtered += s.filtered
		total.spanBound += s.spanBound
		if s.ranges > 1 {
			split++
		}
		if s.terms == 1 {
			one.topBound += s.topBound
			one.topMissed += s.topMissed
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 97))
			b, vocab := randomBrain(t, r)
			parts := openParts(t, b)
			scopes := []string{"", "", "", "projects", "projects/deep", "concepts", "projects/n003.md", "memories/mail",
				"memories/chat/2026-08", "2026-08", "bf://rand/tags/t1", "bf://rand/concepts/n002.md", "https://docs.test/3"}
			for range queries {
				if r.IntN(5) == 0 {
					closeParts(parts)
					randomChange(t, r, b, vocab)
					parts = openParts(t, b)
				}
				q := randomQuery(r, vocab)
				limit := []int64{1, 2, 3, 5, 10, 20, 50}[r.IntN(7)]
				checkSameRanking(t, parts[0], parts, q, scopes[r.IntN(len(scopes))], []int64{limit, limit + int64(r.IntN(10))})
			}
		})
	}
	if total.heads == 0 || total.headsWithin == 0 || total.headsSplit == 0 {
		t.Errorf("first attempts read %d heads, %d of them within a scope's ranges, %d within several: all must happen",
			total.heads, total.headsWithin, total.headsSplit)
	}
	if total.heavy == 0 {
		t.Error("no passage was scored from its term counts")
	}
	if total.storedCounts == 0 {
		t.Error("no ranking took a term's rows from the counts the cache keeps")
	}
	if total.topBound == 0 || total.topMissed == 0 {
		t.Errorf("the first attempt over the best few matches settled %d pages by its bound and missed %d: both must happen",
			total.topBound, total.topMissed)
	}
	if total.everyBound == 0 || total.everyMissed == 0 {
		t.Errorf("the first attempt over the passages holding every term settled %d pages and missed %d: both must happen",
			total.everyBound, total.everyMissed)
	}
	if total.reachBound == 0 || total.reachMissed == 0 {
		t.Errorf("the attempt over the passages whose terms can reach the page settled %d pages and missed %d: both must happen",
			total.reachBound, total.reachMissed)
	}
	if total.widenedBound == 0 {
		t.Errorf("of %d attempts that also ranked the passages lacking one term, none settled the page", total.widened)
	}
	if total.ranges == 0 || split == 0 || total.filtered == 0 || total.spanBound == 0 {
		t.Errorf("scoped rankings read %d passage ranges, %d of them over several, %d filtered every match, and first attempts within one range settled %d: all must happen",
			total.ranges, split, total.filtered, total.spanBound)
	}
	if one.topBound == 0 || one.topMissed == 0 {
		t.Errorf("the first attempt over the best few matches of one term settled %d pages by its bound and missed %d: both must happen",
			one.topBound, one.topMissed)
	}
}

// randomChange edits, deletes or adds a few notes and records of a random brain.
func randomChange(t *testing.T, r *rand.Rand, b *testBrain, vocab []string) {
	t.Helper()
	notes, err := filepath.Glob(filepath.Join(b.Root, "*", "n*.md"))
	if err != nil {
		t.Fatal(err)
	}
	deep, _ := filepath.Glob(filepath.Join(b.Root, "*", "*", "n*.md"))
	notes = append(notes, deep...)
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64()*r.Float64())] }
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	for range 1 + r.IntN(4) {
		switch r.IntN(3) {
		case 0:
			if len(notes) > 0 {
				if err := os.Remove(notes[r.IntN(len(notes))]); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		case 1:
			if len(notes) > 0 {
				rel, err := filepath.Rel(b.Root, notes[r.IntN(len(notes))])
				if err != nil {
					t.Fatal(err)
				}
				b.Write(filepath.ToSlash(rel), fmt.Sprintf("---\nstatus: stable\n---\n# %s\n\n%s.\n\n## %s\n\n%s.\n",
					words(1+r.IntN(3)), words(5+r.IntN(60)), words(2), words(1+r.IntN(30))))
			}
		default:
			text := words(1 + r.IntN(80))
			b.Record([]string{"mail", "chat", "brief"}[r.IntN(3)], fmt.Sprintf("x%06d", r.IntN(1000000)),
				fmt.Sprintf(`"title":%q,"text":%q,"time":"2026-09-01T08:00:00Z"`, words(1+r.IntN(3)), text))
		}
	}
}

// randomBrain writes and returns a brain of random notes and records over a small
// vocabulary drawn with a Zipf-like law, so its first words are in most passages; a few
// records repeat one word thousands of times, so the cache keeps their term counts.
func randomBrain(t *testing.T, r *rand.Rand) (*testBrain, []string) {
	vocab := strings.Fields(`plan team work ledger invoice migration billing payment refund customer account
		rate engine report export pipeline deploy release rollback review design decision meeting incident
		outage latency budget endpoint service database index query cache search backup restore audit policy
		token session zebra okapi`)
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64()*r.Float64())] }
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	b := newBrain(t, "rand", nil)
	day := func() string { return fmt.Sprintf("2026-%02d-%02d", 7+r.IntN(3), 1+r.IntN(28)) }
	folders := []string{"projects", "projects/deep", "concepts"}
	for i := range 20 + r.IntN(30) {
		status := []string{"stable", "draft", "deprecated", "stable"}[r.IntN(4)]
		var body strings.Builder
		fmt.Fprintf(&body, "---\nupdated: %s\nstatus: %s\ntags: [t%d]\n---\n# %s\n\n%s.\n\n", day(), status, r.IntN(3),
			words(1+r.IntN(3)), words(2+r.IntN(15)))
		path := fmt.Sprintf("%s/n%03d.md", folders[i%len(folders)], i)
		if r.IntN(3) == 0 {
			// Links for the identity scopes: a note and a URL some records share.
			rel, err := filepath.Rel(filepath.Dir(path), "concepts/n002.md")
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&body, "See [it](%s) and [docs](https://docs.test/3).\n\n", filepath.ToSlash(rel))
		}
		for s := range r.IntN(5) {
			fmt.Fprintf(&body, "## %s %d\n\n%s.\n\n", words(1+r.IntN(2)), s, words(1+r.IntN(20)))
		}
		b.Write(path, body.String())
	}
	sources := []string{"mail", "chat", "brief"}
	for i := range 60 + r.IntN(80) {
		text := words(1 + r.IntN(40))
		if r.IntN(25) == 0 {
			text = strings.Repeat(word()+" ", 12000+r.IntN(4000)) + words(r.IntN(4))
		}
		fields := fmt.Sprintf(`"title":%q,"text":%q,"time":"%sT%02d:00:00Z"`, words(1+r.IntN(3)), text, day(), 8+r.IntN(3))
		if r.IntN(3) == 0 {
			fields += fmt.Sprintf(`,"url":"https://docs.test/%d"`, r.IntN(15))
		}
		b.Record(sources[r.IntN(len(sources))], fmt.Sprintf("r%03d", i), fields)
	}
	return b, vocab
}

// randomQuery is one to three common or rare words, five to seven, a phrase, a prefix or a
// missing word.
func randomQuery(r *rand.Rand, vocab []string) string {
	pick := func() string {
		if r.IntN(2) == 0 {
			return vocab[r.IntN(3)] // the most common words
		}
		return vocab[r.IntN(len(vocab))]
	}
	switch r.IntN(7) {
	case 0:
		return `"` + pick() + " " + pick() + `"`
	case 1:
		w := pick()
		return w[:1+r.IntN(len(w))] + "*"
	case 2:
		// A word no passage holds, which the ranking leaves out.
		return strings.Join(append([]string{pick(), "zzqx"}, []string{pick(), pick()}[:r.IntN(3)]...), " ")
	case 3:
		// More terms than the attempt over the passages holding every term takes.
		ws := make([]string, 5+r.IntN(3))
		for i := range ws {
			ws[i] = pick()
		}
		return strings.Join(ws, " ")
	}
	ws := make([]string, 1+r.IntN(3))
	for i := range ws {
		ws[i] = pick()
	}
	return strings.Join(ws, " ")
}
