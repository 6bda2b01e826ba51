package search

// The word ranking checked against the same rules written as one plain statement, which
// scores every matching passage: every row, score, excerpt passage, also and sections
// list must be the same for every query shape, scope and page size.

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/reply"
)

// plainWordsSQL ranks every matching passage: BM25 with the column weights, the item
// weight, half weight for low-priority sources and the coverage bonus, then one window
// over the partitions (a note, or a URL) whose best row can reach the page.
const plainWordsSQL = `WITH ` + cache.DaysCTE + `,
hits AS MATERIALIZED (
	SELECT s.rowid AS passage, count(*) AS n
	FROM json_each(:terms) t CROSS JOIN search s ON s.search MATCH t.value GROUP BY s.rowid),
matches AS MATERIALIZED (
	SELECT CASE WHEN i.url = '' THEN p.item ELSE i.url END AS part, p.item, p.id AS passage, p.fragment,
		i.ref, i.url, i.source,
		i.status = 'deprecated' AS closed, ` + timeExpr + ` AS time,
		-bm25(search, 10.0, 1.0, 0.5, 3.0) * i.weight
		* (CASE WHEN i.source IN (SELECT value FROM json_each(:low)) THEN 0.5 ELSE 1.0 END)
		* (1 + 0.2 * (coalesce(h.n, 1) - 1) / max(:nterms - 1, 1)) AS score
	FROM search JOIN passages p ON p.id = search.rowid JOIN items i ON i.id = p.item
	` + cache.DaysJoin + `
	LEFT JOIN hits h ON h.passage = p.id
	WHERE search MATCH :match AND (p.fragment = '' OR bm25(search, 10.0, 1.0, 0.0, 0.0) < 0)
		AND ` + filters + `),
best AS MATERIALIZED (SELECT part, closed, max(score) AS score FROM matches GROUP BY part),
cut AS (SELECT closed, score FROM best ORDER BY closed, score DESC LIMIT 1 OFFSET ` + limitBound + ` - 1),
chosen AS (SELECT part FROM best WHERE NOT EXISTS (SELECT 1 FROM cut) OR closed < (SELECT closed FROM cut)
	OR closed = (SELECT closed FROM cut) AND score >= (SELECT score FROM cut)),
ranked AS MATERIALIZED (
	SELECT *, row_number() OVER w AS position, first_value(source) OVER w AS lead FROM matches
	WHERE part IN (SELECT part FROM chosen)
	WINDOW w AS (PARTITION BY part
		ORDER BY closed, score DESC, time DESC, fragment, ref ROWS UNBOUNDED PRECEDING)),
top AS (
	SELECT * FROM ranked WHERE position = 1 OR (url != '' AND source = lead)
	ORDER BY closed, score DESC, time DESC, ref LIMIT ` + limitBound + `),
copies AS (
	SELECT url, json_group_array(ref) AS refs FROM (
		SELECT url, ref, row_number() OVER (PARTITION BY url ORDER BY ref) AS n FROM ranked
		WHERE source != lead AND url IN (SELECT url FROM top WHERE position = 1 AND url != ''))
	WHERE n <= 5 GROUP BY url),
others AS (
	SELECT item, json_group_array(json_array(position, fragment)) AS fragments FROM (
		SELECT item, position, fragment, row_number() OVER (PARTITION BY item ORDER BY position) AS n
		FROM ranked WHERE position > 1 AND fragment != '' AND item IN (SELECT item FROM top WHERE url = ''))
	WHERE n <= 3 GROUP BY item)
SELECT ` + rowColumns + `, t.time, t.fragment, p.title, t.passage, t.score,
	coalesce(c.refs, ''), coalesce(o.fragments, '')
FROM top t JOIN items i ON i.id = t.item JOIN passages p ON p.id = t.passage
LEFT JOIN copies c ON c.url = t.url AND t.position = 1
LEFT JOIN others o ON o.item = t.item
ORDER BY t.closed, t.score DESC, t.time DESC, t.ref`

// plainRankWords runs plainWordsSQL.
func plainRankWords(ctx context.Context, p *part, terms []fold.Term, sc scope, targets map[string]bool, limit int64) ([]*row, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	// The plain statement places every item in time by the whole list of days, where
	// rankWords converts the days of the notes it reads: the comparisons check that they agree.
	days, err := p.days.JSON(ctx)
	if err != nil {
		return nil, err
	}
	return queryRows(ctx, p, render(plainWordsSQL, sc, limit), wordArgs(p, terms, sc, targets, days))
}

// wordArgs binds plainWordsSQL's parameters.
func wordArgs(p *part, terms []fold.Term, sc scope, targets map[string]bool, days string) []any {
	strs := make([]string, len(terms))
	for i, t := range terms {
		strs[i] = t.Match()
	}
	counted := "[]"
	if len(strs) > 1 {
		counted = jsontext.Array(strs)
	}
	return append(scopeArgs(p, sc, targets, days),
		sql.Named("terms", counted), sql.Named("nterms", len(strs)),
		sql.Named("low", p.low), sql.Named("match", strings.Join(strs, " OR ")))
}

// comparableRow is a row without its part.
type comparableRow struct {
	ID                                  int64
	Ref, Path, Kind, Source, Stored     string
	Typ, Status, URL, Updated, Observed string
	Partial                             bool
	Fields, Title, Lead, Time, Fragment string
	Passage                             int64
	Score                               float64
	Also, Sections                      []string
}

func comparable(rows []*row) []comparableRow {
	out := make([]comparableRow, len(rows))
	for i, r := range rows {
		out[i] = comparableRow{r.id, r.ref, r.path, r.kind, r.source, r.stored, r.typ, r.status, r.url,
			r.updated, r.observed, r.partial, r.fields, r.title, r.lead, r.time, r.fragment, r.passage,
			r.score, r.also, r.sections}
	}
	return out
}

// passSizes are settings of firstPass, readBatch, topFirst and topPerRow: the default, and small ones
// so that pruning, later passes, completion and the first attempt over the best few
// matches (settled or not) all happen on a small brain.
var passSizes = [][4]int64{{3000, 64, 200, 10}, {0, 1, 1, 1}, {5, 2, 3, 1}, {60, 8, 0, 0}, {3000, 64, 20, 2}}

// checkSameRanking runs a query with rankWords and plainRankWords, which must agree on
// every page size and pass size.
func checkSameRanking(t *testing.T, p *part, parts []*part, query, scopeText string, limits []int64) {
	t.Helper()
	ctx := context.Background()
	pq, err := parse(Request{Query: query, Scope: scopeText, Now: now, Location: zone})
	if err != nil || pq.text != "" {
		return
	}
	var targets map[string]bool
	if pq.scope.target != "" {
		var probs reply.Problems
		all, err := expand(ctx, parts, false, pq.scope.target, &probs)
		if err != nil {
			t.Fatal(err)
		}
		if targets, err = localRefs(ctx, p, all); err != nil {
			t.Fatal(err)
		}
	}
	defer func(pass, read, top, per int64) {
		firstPass, readBatch, topFirst, topPerRow = pass, read, top, per
	}(firstPass, readBatch, topFirst, topPerRow)
	for _, limit := range limits {
		want, err := plainRankWords(ctx, p, pq.query.Terms, pq.scope, targets, limit)
		if err != nil {
			t.Fatalf("%q in %q: %v", query, scopeText, err)
		}
		for _, sizes := range passSizes {
			firstPass, readBatch, topFirst, topPerRow = sizes[0], sizes[1], sizes[2], sizes[3]
			got, err := rankWords(ctx, p, pq.query.Terms, pq.scope, targets, limit)
			if err != nil {
				t.Fatalf("%q in %q: %v", query, scopeText, err)
			}
			if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
				t.Errorf("%q in %q, limit %d, passes %v (-plain +got):\n%s", query, scopeText, limit, sizes, diff)
				return
			}
		}
	}
}

// rankWords is checked on a brain whose words repeat a lot: many passages match several
// terms, many scores tie, notes have many matching sections and records share URLs.
func TestRankingMatchesPlain(t *testing.T) {
	b := newBrain(t, "work", nil)
	r := rand.New(rand.NewPCG(7, 11))
	vocab := strings.Fields(`ledger invoice migration billing payment refund customer account tax rate engine
		dunning proration schedule report export pipeline deploy release rollback review design decision
		meeting agenda incident outage latency error budget api endpoint service database index query
		cache search storage backup restore security audit policy access token session plan the of and`)
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64())] }
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	day := func() string { return fmt.Sprintf("2026-%02d-%02d", 7+r.IntN(3), 1+r.IntN(28)) }
	folders := []string{"projects/alpha", "projects/beta", "concepts", "concepts/deep", "notes"}
	for i := 0; i < 90; i++ {
		path := fmt.Sprintf("%s/n%03d.md", folders[i%len(folders)], i)
		switch {
		case i%17 == 0:
			path = fmt.Sprintf("%s/index.md", folders[i%len(folders)])
		case i%7 == 3:
			path = fmt.Sprintf("actions/%s_a%03d/ACTION.md", day(), i)
		}
		status := []string{"stable", "draft", "deprecated", "stable", "stable"}[r.IntN(5)]
		var body strings.Builder
		fmt.Fprintf(&body, "---\nupdated: %s\nstatus: %s\ntags: [t%d]\n", day(), status, r.IntN(3))
		if i%9 == 0 {
			fmt.Fprintf(&body, "aliases: [repo:github.com/example/r%d]\n", i%2)
		}
		fmt.Fprintf(&body, "---\n# %s\n\n%s.\n\n", words(1+r.IntN(3)), words(3+r.IntN(10)))
		if i%5 == 1 {
			body.WriteString("See [r](repo:github.com/example/r1).\n\n")
		}
		for s := range r.IntN(7) {
			text := words(2 + r.IntN(12))
			if s > 2 && r.IntN(3) == 0 {
				text = "ledger migration plan"
			}
			fmt.Fprintf(&body, "## %s %d\n\n%s.\n\n", words(1+r.IntN(2)), s, text)
			if r.IntN(3) == 0 {
				fmt.Fprintf(&body, "### %s\n\n%s.\n\n", words(1), words(4))
			}
		}
		b.Write(path, body.String())
	}
	sources := []string{"brief", "news", "old"}
	for i := 0; i < 500; i++ {
		title, text := words(1+r.IntN(4)), words(1+r.IntN(30))
		fields := fmt.Sprintf(`"title":%q,"text":%q`, title, text)
		if r.IntN(6) > 0 {
			fields += fmt.Sprintf(`,"time":"%sT%02d:00:00Z"`, day(), 8+r.IntN(3))
		}
		switch r.IntN(4) {
		case 0, 1:
			fields += fmt.Sprintf(`,"url":"https://docs.test/%d"`, r.IntN(40))
		case 2:
			// URLs whose words the index may hold otherwise, or holds none of.
			fields += fmt.Sprintf(`,"url":"https://docs.test/ﬁ/%d"`, r.IntN(5))
		}
		b.Record(sources[i%3], fmt.Sprintf("r%03d", i), fields)
		if r.IntN(5) == 0 {
			// The same record in another source, often with the same time.
			b.Record(sources[(i+1)%3], fmt.Sprintf("c%03d", i), fields)
		}
	}
	parts := openParts(t, b)
	scopes := []string{"", "projects", "memories/news/2026-08", "2026-08", "bf://work/tags/t1", "repo:github.com/example/r1"}
	limits, random := []int64{1, 11, 2000}, 4
	if os.Getenv("BF_RANK_THOROUGH") != "" {
		scopes = append(scopes, "concepts", "notes", "memories", "memories/brief", "memories/old/undated")
		limits, random = []int64{1, 2, 3, 5, 11, 40, 2000}, 60
	}
	queries := []string{"ledger", "the", "ledger migration plan", `"migration plan"`, "mig*", "l*", "ledger ledgers",
		"zzzz", "ledger zzzz", "plan the of", `"the"`, "de* re* p*"}
	for range random {
		queries = append(queries, words(2+r.IntN(4)))
	}
	for _, q := range queries {
		for _, s := range scopes {
			checkSameRanking(t, parts[0], parts, q, s, limits)
		}
	}
}
