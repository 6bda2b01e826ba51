package search

import (
	"cmp"
	"context"
	"database/sql"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/reply"
)

// BenchmarkRankWarm is the ranking of each query over a cache opened once: the search
// itself, without the open and freshness check every command pays.
func BenchmarkRankWarm(b *testing.B) {
	ctx := context.Background()
	parts := openBench(b)
	for _, q := range rankQueries {
		pq, err := parse(Request{Query: q.query, Scope: q.scope, Location: time.UTC})
		if err != nil {
			b.Fatal(err)
		}
		if q.scope == "" || q.raw != "" {
			// The bench's sqlite3 baseline, in the same snapshot: its MATCH is the query's
			// own (several words AND, where the ranking takes their OR); a scoped one filters
			// the items as the bench's does.
			b.Run(q.name+"/raw", func(b *testing.B) {
				match := pq.query.Match()
				if q.raw != "" {
					var terms []string
					for _, t := range pq.query.Terms {
						terms = append(terms, t.Match())
					}
					match = strings.Join(terms, " OR ")
				}
				query := strings.Replace(rawSQL, "{filter}", cmp.Or(q.raw, "1"), 1)
				start := cpuTime()
				for b.Loop() {
					rows, err := parts[0].tx.QueryContext(ctx, query, match)
					refs, err := cache.ReadRows(rows, err, func(r *sql.Rows) (s string, err error) { return s, r.Scan(&s) })
					if err != nil || len(refs) == 0 {
						b.Fatal(err, len(refs))
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
		b.Run(q.name, func(b *testing.B) {
			var st rankStats
			traceRank = func(s rankStats) { st = s }
			defer func() { traceRank = nil }()
			start := cpuTime()
			for b.Loop() {
				if _, err := rankWords(ctx, parts[0], pq.query.Terms, pq.scope, nil, 10); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(st.scored), "scored")
			b.ReportMetric(float64(st.read), "read")
			b.ReportMetric(float64(st.topBound), "settled")
			b.ReportMetric(float64(st.topMissed), "missed")
		})
	}
}

// rawSQL is the bench's sqlite3 baseline of a word search.
const rawSQL = `SELECT i.ref FROM search JOIN passages p ON p.id = search.rowid JOIN items i ON i.id = p.item
	WHERE search MATCH ? AND {filter} ORDER BY bm25(search, 10, 1, 0.5, 3) LIMIT 10`

// rankQueries are word queries of each class, the common ones made of words most passages
// of a generated brain hold, and the bench's scoped queries with the filter of its sqlite3
// baseline (raw, whose MATCH is then the OR of the words).
var rankQueries = []struct{ name, query, scope, raw string }{
	{"word", "ledger", "", ""},
	{"word2", "customer", "", ""},
	{"word3", "kubernetes", "", ""},
	{"word4", "quarantine", "", ""},
	{"common", "test", "", ""},
	{"common2", "email", "", ""},
	{"words", "ledger migration plan", "", ""},
	{"words2", "team work customer", "", ""},
	{"commonwords", "test email", "", ""},
	{"phrase", `"error budget"`, "", ""},
	{"prefix", "migr*", "", ""},
	{"folder", "ledger", "projects", "i.path LIKE 'projects/%'"},
	{"concepts", "rollback", "concepts", "i.path LIKE 'concepts/%'"},
	{"source", "refund", "memories/tickets", "i.source = 'tickets'"},
	{"source2", "latency", "memories/mail", "i.source = 'mail'"},
	{"period", "budget review", "2026-03", "i.time >= '2026-03-01' AND i.time < '2026-04-01'"},
	{"sourcemonth", "invoice", "memories/mail/2025-06", "i.source = 'mail' AND i.time >= '2025-06-01' AND i.time < '2025-07-01'"},
	{"subfolder", "release", "projects/platform", "i.path LIKE 'projects/platform/%'"},
	{"tag", "deploy", "bf://bench/tags/infra", "i.id IN (SELECT item FROM tags WHERE target = 'bf://bench/tags/infra')"},
}

// cpuTime is the process's user and system time so far, in nanoseconds: on a shared
// machine it varies far less than the wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// identityQueries are the bench's identity searches (bench/gen): run them over the bench's
// large brain with BF_BENCH_BRAIN. The last one is known to no item: a word search.
var identityQueries = []struct{ name, query string }{
	{"email-dana", "person:email/dana.okafor@example.test"},
	{"email-ravi", "person:email/ravi.menon@example.test"},
	{"repo", "repo:github.com/bench/billing"},
	{"tag", "bf://bench/tags/billing"},
	{"entity", "bf://bench/people/dana-okafor"},
	{"record", "tickets:OPS-100"},
	{"hub", "bf://bench/projects/support/share-ledger.md"},
	{"url", "https://tickets.example.test/browse/OPS-100"},
}

// BenchmarkRankIdentity is each identity search of the bench over a cache opened once:
// the expansion, the known check and the ranking, as bf search runs them, with the walk
// for the newest linkers (walk) and with every linker sorted (sort).
func BenchmarkRankIdentity(b *testing.B) {
	ctx := context.Background()
	parts := openBench(b)
	for _, q := range identityQueries {
		pq, err := parse(Request{Query: q.query, Location: time.UTC})
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"walk", "sort"} {
			b.Run(q.name+"/"+mode, func(b *testing.B) {
				sortEveryMember = mode == "sort"
				defer func() { sortEveryMember = false }()
				start := cpuTime()
				for b.Loop() {
					var probs reply.Problems
					if _, err := run(ctx, pq, parts, false, &probs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
