package search

// Benchmarks of whole searches (open, freshness check, ranking, excerpts), run with
//
//	go test -run '^$' -bench Search -benchtime 50x ./libbf/search
//
// over a generated brain of 600 notes and 6,000 records built once per run, or over an
// existing brain named by BF_BENCH_BRAIN (built first with bf build). They never run in
// make test.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// benchQueries cover the query shapes: one word (rare, frequent, very common), several
// words, a phrase, prefixes, unmatched words with suggestions, scopes and identities.
var benchQueries = []struct{ name, query, scope string }{
	{"word", "ledger", ""},
	{"common", "the", ""},
	{"words", "payment refund invoice", ""},
	{"phrase", `"error budget"`, ""},
	{"prefix", "migr*", ""},
	{"misspelled", "ledgr", ""},
	{"misspelledcommon", "thhe", ""},
	{"nomatch", "zzzqqq", ""},
	{"folder", "ledger", "projects"},
	{"source", "invoice", "memories/mail"},
	{"period", "billing", "2026-03"},
	{"identity", "repo:github.com/bench/repo-00120", ""},
	{"tag", "bf://bench/tags/ledger", ""},
}

var (
	benchOnce sync.Once
	benchRoot string
	benchErr  error
)

// benchBrain returns a built brain, shared by every benchmark of the run.
func benchBrain(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		if root := os.Getenv("BF_BENCH_BRAIN"); root != "" {
			benchRoot = root
			return
		}
		dir, err := os.MkdirTemp("", "bf-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchRoot = dir
		if benchErr = writeBenchBrain(dir, 600, 6000); benchErr != nil {
			return
		}
		br, err := brain.Open(dir)
		if err != nil {
			benchErr = err
			return
		}
		_, benchErr = cache.Build(context.Background(), br, nil)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRoot
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" && os.Getenv("BF_BENCH_BRAIN") == "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// searchOnce runs one search the way bf search does: the brain is opened anew.
func searchOnce(b *testing.B, root, query, scope string) {
	br, err := brain.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Run(context.Background(), Request{Query: query, Scope: scope, Brains: []*brain.Brain{br}}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSearchWarm is a search over an unchanged brain.
func BenchmarkSearchWarm(b *testing.B) {
	root := benchBrain(b)
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			searchOnce(b, root, q.query, q.scope)
			b.ResetTimer()
			for b.Loop() {
				searchOnce(b, root, q.query, q.scope)
			}
		})
	}
}

// BenchmarkSearchAfterEdit is the first search after one note changed: the refresh
// re-indexes that note.
func BenchmarkSearchAfterEdit(b *testing.B) {
	root := benchBrain(b)
	file := filepath.Join(root, "projects", "bench-edited.md")
	defer func() {
		os.Remove(file)
		searchOnce(b, root, "ledger", "")
	}()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf("---\ntype: project\nupdated: 2026-03-01\n---\n# Edited %d\n\nLedger edit %d.\n\n## Section\n\nMore ledger text.\n", i, i)
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		searchOnce(b, root, "ledger", "")
	}
}

// writeBenchBrain writes a deterministic brain: notes with front matter, sections, links,
// tags and tasks; records of four sources with a Zipf-like vocabulary, times over two
// years and some shared URLs.
func writeBenchBrain(root string, notes, records int) error {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields(`the of and to a in is for that with on as be by this ledger invoice
		migration billing payment refund subscription customer account tax rate engine dunning
		proration schedule report export pipeline deploy release rollback review design decision
		meeting agenda incident outage latency error budget api endpoint service database index
		query cache search storage backup restore security audit policy access token session`)
	for len(vocab) < 2000 {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString([]string{"ka", "lo", "mi", "ne", "ru", "ta", "se", "vo", "pi", "da", "fe", "gu", "an", "el", "or"}[r.IntN(15)])
		}
		vocab = append(vocab, w.String())
	}
	word := func() string {
		// A Zipf-like rank: small ranks are much more frequent.
		return vocab[int(float64(len(vocab))*r.Float64()*r.Float64()*r.Float64())]
	}
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ") + "."
	}
	write := func(p, s string) error {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		return os.WriteFile(full, []byte(s), 0o644)
	}
	config := "version: 8\nname: bench\nsensors:\n"
	sources := []string{"mail", "tickets", "docs", "calendar"}
	for _, s := range sources {
		config += fmt.Sprintf("  %s:\n    command: [sensors/%s.sh]\n    enabled: false\n", s, s)
	}
	if err := write("bf.yaml", config); err != nil {
		return err
	}
	start := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
	day := func() time.Time { return start.Add(time.Duration(r.IntN(730*24)) * time.Hour) }
	paths := make([]string, notes)
	for i := range paths {
		switch i % 3 {
		case 0:
			paths[i] = fmt.Sprintf("projects/area-%d/p%04d.md", i%7, i)
		case 1:
			paths[i] = fmt.Sprintf("concepts/topic-%d/c%04d.md", i%5, i)
		default:
			paths[i] = fmt.Sprintf("actions/%s_s%04d/ACTION.md", day().Format("2006-01-02"), i)
		}
	}
	for i, p := range paths {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntype: note\ntitle: %q\nupdated: %s\nsummary: %q\ntags: [%s, %s]\n",
			sentence(3), day().Format("2006-01-02"), sentence(10), word(), vocab[15+r.IntN(20)])
		if i%10 == 0 {
			fmt.Fprintf(&b, "aliases: [\"repo:github.com/bench/repo-%05d\"]\n", i)
		}
		fmt.Fprintf(&b, "---\n\n%s\n\n", sentence(20))
		for s := range 3 + r.IntN(6) {
			fmt.Fprintf(&b, "## %s %d\n\n%s %s", sentence(2), s, sentence(15), sentence(12))
			if r.IntN(2) == 0 {
				rel, _ := filepath.Rel(filepath.Dir(p), paths[r.IntN(notes)])
				fmt.Fprintf(&b, " See [it](%s).", rel)
			}
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, " Uses [repo](repo:github.com/bench/repo-%05d).", r.IntN(notes/10)*10)
			}
			b.WriteString("\n\n")
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "- [ ] %s\n- [x] %s\n\n", sentence(5), sentence(4))
			}
		}
		if err := write(p, b.String()); err != nil {
			return err
		}
	}
	for i := range records {
		source := sources[i%len(sources)]
		id := fmt.Sprintf("%s-%06d", source, i)
		body := fmt.Sprintf(`{"id":%q,"title":%q,"text":%q,"time":%q`, id, sentence(5), sentence(40),
			start.Add(time.Duration(r.Int64N(int64(730*24*time.Hour)))).Format(time.RFC3339))
		if r.IntN(20) == 0 {
			body += fmt.Sprintf(`,"url":"https://shared.example.com/%d"`, r.IntN(200))
		}
		if r.IntN(10) == 0 {
			body += fmt.Sprintf(`,"links":["repo:github.com/bench/repo-%05d"]`, r.IntN(notes/10)*10)
		}
		if err := write("memories/"+source+"/"+record.FileName(id), body+"}"); err != nil {
			return err
		}
	}
	// Source folders changed in the last 5 seconds are listed on every open; date them back
	// so the benchmark measures settled folders from the start.
	old := time.Now().Add(-time.Hour)
	for _, s := range sources {
		if err := os.Chtimes(filepath.Join(root, "memories", s), old, old); err != nil {
			return err
		}
	}
	return nil
}

// openBench opens the bench brain's cache once, as one search would, until the benchmark
// ends.
func openBench(b *testing.B) []*part {
	br, err := brain.Open(benchBrain(b))
	if err != nil {
		b.Fatal(err)
	}
	var probs reply.Problems
	var stale []string
	parts, err := open(context.Background(), []*brain.Brain{br}, time.UTC, &probs, &stale)
	if err != nil || len(parts) != 1 {
		b.Fatal(err, len(parts))
	}
	b.Cleanup(func() { closeParts(parts) })
	return parts
}

// BenchmarkExcerpt times the excerpts of ten matching passages per query shape, the part of
// a search that reads each shown result's text (see excerpt.go).
func BenchmarkExcerpt(b *testing.B) {
	ctx := context.Background()
	p := openBench(b)[0]
	for _, q := range []struct{ name, query string }{
		{"word", "ledger"}, {"words", "payment refund invoice"}, {"phrase", `"error budget"`}, {"prefix", "migr*"},
	} {
		fq, err := fold.Parse(q.query)
		if err != nil {
			b.Fatal(err)
		}
		match := fq.Match()
		var ids []int64
		rows, err := p.tx.QueryContext(ctx, `SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 10`, match)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		b.Run(q.name, func(b *testing.B) {
			for range b.N {
				for _, id := range ids {
					if _, err := excerpt(ctx, p, match, id); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
