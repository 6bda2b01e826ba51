package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

// TestNewestProperty searches identities and tags of random brains (many linkers, notes
// and records mixed, days and times shared by several items, records without a time,
// links to sections, owners by alias) in random scopes and page sizes: the walk for the
// newest linkers must give every row, rank and score of the sort of every linker. The
// walk's thresholds are lowered so that it runs on small brains, finds the page, and
// gives up (too long a walk, or the items without a place in time reached).
// BF_RANK_THOROUGH=1 runs more brains and queries.
func TestNewestProperty(t *testing.T) {
	brains, searches := 4, 40
	if os.Getenv("BF_RANK_THOROUGH") != "" {
		brains, searches = 16, 120
	}
	defer func(from float64, slack int64) { walkFrom, walkSlack, traceWalk = from, slack, nil }(walkFrom, walkSlack)
	walkFrom = 0
	found, gaveUp, pages := 0, 0, 0
	traceWalk = func(ok bool) {
		if ok {
			found++
		} else {
			gaveUp++
		}
	}
	ctx := context.Background()
	for seed := range uint64(brains) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 31))
			b := linkedBrain(t, r)
			parts := openParts(t, b)
			queries := []string{"repo:github.com/rand/app", "bf://rand/projects/owner.md", "person:email/ana@example.test",
				"bf://rand/tags/t0", "bf://rand/tags/t1", "bf://rand/people/ana.md", "mail:r001"}
			scopes := []string{"", "", "", "", "projects", "2026-08", "memories/mail", "bf://rand/tags/t2"}
			for range searches {
				query, scopeText := queries[r.IntN(len(queries))], scopes[r.IntN(len(scopes))]
				limit := []int{1, 2, 3, 5, 10, 20, 50}[r.IntN(7)]
				offset := []int64{0, 0, 0, 3}[r.IntN(4)]
				walkSlack = []int64{0, 3, 10, 256}[r.IntN(4)]
				pq, err := parse(Request{Query: query, Scope: scopeText, Limit: limit, Offset: offset, Now: now, Location: zone})
				if err != nil {
					t.Fatal(err)
				}
				var rows [2][]comparableRow
				for i, sortAll := range []bool{true, false} {
					sortEveryMember = sortAll
					var probs reply.Problems
					res, err := run(ctx, pq, parts, false, &probs)
					sortEveryMember = false
					if err != nil {
						t.Fatalf("%q in %q: %v", query, scopeText, err)
					}
					rows[i] = comparable(mergeIdentity(res))
				}
				if len(rows[0]) > 1 {
					pages++
				}
				if diff := cmp.Diff(rows[0], rows[1]); diff != "" {
					t.Errorf("%q in %q, limit %d, offset %d, slack %d (-sort +walk):\n%s", query, scopeText, limit, offset, walkSlack, diff)
				}
			}
		})
	}
	if pages < 80 {
		t.Errorf("only %d searches found more than one row", pages)
	}
	if found == 0 || gaveUp == 0 {
		t.Errorf("the walk found %d pages and gave up %d times: both must happen", found, gaveUp)
	}
}

// linkedBrain writes a brain whose notes and records link, at random, to a repository
// (owned by a note through an alias, whose sections are linked too) and to a person, on a
// few days and times that many items share; some records have no time.
func linkedBrain(t *testing.T, r *rand.Rand) *testBrain {
	b := newBrain(t, "rand", map[string]string{
		"projects/owner.md": "---\nupdated: 2026-08-03\naliases: [repo:github.com/rand/app]\n---\n# Owner\n\nThe app.\n\n## Decision\n\nKeep it.\n",
		"people/ana.md":     "---\nupdated: 2026-08-04\ntype: person\naliases: [person:email/ana@example.test]\n---\n# Ana\n\nAna.\n",
	})
	day := func() string { return fmt.Sprintf("2026-%02d-%02d", 7+r.IntN(2), 1+r.IntN(4)) }
	targets := []string{"repo:github.com/rand/app", "../projects/owner.md", "../projects/owner.md#decision",
		"person:email/ana@example.test", "bf://rand/people/ana.md"}
	folders := []string{"projects", "concepts"}
	for i := range 30 + r.IntN(40) {
		var body strings.Builder
		fmt.Fprintf(&body, "---\n")
		if r.IntN(8) != 0 {
			fmt.Fprintf(&body, "updated: %s\n", day())
		}
		fmt.Fprintf(&body, "tags: [t%d]\n---\n# Note %d\n\nText.\n", r.IntN(3), i)
		for range r.IntN(3) {
			fmt.Fprintf(&body, "\nSee [this](%s).\n", targets[r.IntN(len(targets))])
		}
		b.Write(fmt.Sprintf("%s/n%03d.md", folders[i%len(folders)], i), body.String())
	}
	ids := []string{"repo:github.com/rand/app", "person:email/ana@example.test", "bf://rand/projects/owner.md#decision"}
	for i := range 80 + r.IntN(120) {
		fields := fmt.Sprintf(`"title":"Record %d","text":"Words."`, i)
		if r.IntN(10) != 0 {
			fields += fmt.Sprintf(`,"time":"%sT%02d:00:00Z"`, day(), 8+r.IntN(2))
		}
		if r.IntN(4) != 0 {
			fields += fmt.Sprintf(`,"fields":{"owner":[%q]}`, ids[r.IntN(len(ids))])
		}
		b.Record([]string{"mail", "chat"}[min(i/2, r.IntN(2))], fmt.Sprintf("r%03d", i), fields)
	}
	return b
}
