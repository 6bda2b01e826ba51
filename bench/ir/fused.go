package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/reply"
	bfsearch "github.com/bfgo/bf/libbf/search"
)

// Run is one row of the fused table.
type Run struct {
	Name     string          `json:"name"`
	How      string          `json:"how"`
	NDCG10   float64         `json:"ndcg_at_10"`
	Recall10 float64         `json:"recall_at_10"`
	Latency  measure.Summary `json:"search,omitempty"`
	// Classes is nDCG@10 over the queries of each class.
	Classes map[string]float64 `json:"ndcg_at_10_by_class"`
}

// denseDoc is a document of the recorded dense run with its cosine.
type denseDoc struct {
	id     string
	cosine float64
}

// defaultDense is BF_BENCH_DATA/scifact-dense-minilm, else the shared copy beside the
// repository.
func defaultDense() string {
	if d := os.Getenv("BF_BENCH_DATA"); d != "" {
		return filepath.Join(d, "scifact-dense-minilm", "dense_run_top100.json")
	}
	return filepath.Join("..", "shared", "bench-data", "scifact-dense-minilm", "dense_run_top100.json")
}

// readDense reads the recorded run, {query_id: {doc_id: cosine}}, best first per query.
func readDense(file string) (map[string][]denseDoc, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw map[string]map[string]float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := map[string][]denseDoc{}
	for q, docs := range raw {
		for id, c := range docs {
			out[q] = append(out[q], denseDoc{id, c})
		}
		slices.SortFunc(out[q], func(a, b denseDoc) int {
			if c := cmp.Compare(b.cosine, a.cosine); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
	}
	return out, nil
}

// replay is the benchmark-only dense strategy: for a query it returns the recorded run's
// documents (found by the query's text) as the brain's records, in their recorded order.
// It stands in for a provider so the figure measures bf's fusion on a real dense list.
func replay(run map[string][]denseDoc, byText map[string]string) fuse.DenseFunc {
	return func(ctx context.Context, db *sql.Tx, _ *brain.Brain, query string, depth int) ([]fuse.Scored, string, error) {
		docs := run[byText[query]]
		if len(docs) > depth {
			docs = docs[:depth]
		}
		refs := make([]string, len(docs))
		for i, d := range docs {
			refs[i] = source + ":" + d.id
		}
		list, _ := json.Marshal(refs)
		rows, err := db.QueryContext(ctx, `SELECT id, ref FROM items WHERE ref IN (SELECT value FROM json_each(?))`, string(list))
		if err != nil {
			return nil, "", err
		}
		defer rows.Close()
		ids := map[string]int64{}
		for rows.Next() {
			var id int64
			var ref string
			if err := rows.Scan(&id, &ref); err != nil {
				return nil, "", err
			}
			ids[ref] = id
		}
		var out []fuse.Scored
		for i, d := range docs {
			if id, ok := ids[refs[i]]; ok {
				out = append(out, fuse.Scored{ID: id, Score: d.cosine})
			}
		}
		return out, "", rows.Err()
	}
}

// fusedRuns measures fused search: without dense through the CLI (bf search --fused, one
// process per query, timed like word search), and with the recorded dense run replayed
// in process; plus the recorded run alone for reference.
func fusedRuns(bf, brainDir string, queries map[string]string, order []string, qrels map[string]map[string]int, limit int, denseFile string, builtin named) ([]Run, error) {
	var runs []Run
	classOf, counts := queryClasses(queries, order)
	score := func(r *Run, qid string, found []string) {
		n := ndcgAt(10, found, qrels[qid])
		r.NDCG10 += n
		r.Recall10 += recallAt(10, found, qrels[qid])
		if r.Classes == nil {
			r.Classes = map[string]float64{}
		}
		r.Classes[classOf[qid]] += n
	}
	finish := func(r *Run) {
		r.NDCG10 /= float64(len(order))
		r.Recall10 /= float64(len(order))
		for c := range r.Classes {
			r.Classes[c] /= float64(counts[c])
		}
		runs = append(runs, *r)
	}
	b, err := brain.Open(brainDir)
	if err != nil {
		return nil, err
	}
	lex, lexScores, err := lexicalLists(b, queries, order)
	if err != nil {
		return nil, err
	}
	word := Run{Name: "lexical (in process)", How: "the word ranking, 100 deep, in process"}
	for _, qid := range order {
		score(&word, qid, lex[qid])
	}
	finish(&word)
	// equal is plain reciprocal rank fusion of the lexical list and a dense one, 1:1.
	equal := func(name string, run map[string][]denseDoc) {
		r := Run{Name: name, How: "reference: lexical and dense at weight 1 each, K = 60, nothing else"}
		for _, qid := range order {
			var ids []string
			for _, d := range run[qid] {
				ids = append(ids, d.id)
			}
			score(&r, qid, rrfWith(fuse.Weights{fuse.Lexical: 1, fuse.Dense: 1}, lex[qid], lexScores[qid], ids))
		}
		finish(&r)
	}

	logf("running %d judged queries through bf search --fused", len(order))
	cli := Run{Name: "fused, no dense", How: "`bf search --fused --limit 10`, one process per query"}
	var walls []time.Duration
	for _, qid := range order {
		found, wall, err := search(bf, brainDir, queries[qid], limit, "--fused")
		if err != nil {
			logf("query %s: %v", qid, err)
		}
		walls = append(walls, wall...)
		score(&cli, qid, found)
	}
	cli.Latency = measure.Summarize(walls)
	finish(&cli)

	byText := map[string]string{}
	for _, qid := range order {
		byText[queries[qid]] = qid
	}
	replayed := func(r *Run, run map[string][]denseDoc) {
		for _, qid := range order {
			res, err := fuse.Run(context.Background(), fuse.Request{
				Search: bfsearch.Request{Query: queries[qid], Limit: limit, Brains: []*brain.Brain{b}},
				Dense:  replay(run, byText),
			})
			if err != nil {
				logf("query %s: %v", qid, err)
				continue
			}
			score(r, qid, recordIDs(res.Items))
		}
		finish(r)
	}
	if builtin.lists != nil {
		logf("running %d judged queries fused with the corpus-trained list %s", len(order), builtin.name)
		replayed(&Run{Name: "fused + built-in corpus vectors", How: "in process; the best corpus-trained list below (" + builtin.name + ") as the dense strategy"}, builtin.lists)
		equal("RRF 1:1, lexical + built-in corpus vectors", builtin.lists)
	}

	run, err := readDense(denseFile)
	if os.IsNotExist(err) {
		logf("%s not found; the replayed dense rows are skipped", denseFile)
		return runs, nil
	} else if err != nil {
		return nil, err
	}
	alone := Run{Name: "dense alone (recorded MiniLM run)", How: "the recorded top 100, as ranked"}
	for _, qid := range order {
		var found []string
		for _, d := range run[qid] {
			found = append(found, d.id)
		}
		score(&alone, qid, found)
	}
	finish(&alone)
	logf("running %d judged queries fused with the replayed dense run", len(order))
	replayed(&Run{Name: "fused + recorded MiniLM run", How: "in process, the recorded run replayed as the dense strategy"}, run)
	equal("RRF 1:1, lexical + recorded MiniLM run", run)
	return runs, nil
}

// queryClasses is each query's class by the fused rule, and the number of queries of
// each class.
func queryClasses(queries map[string]string, order []string) (map[string]string, map[string]int) {
	classOf, counts := map[string]string{}, map[string]int{}
	for _, qid := range order {
		q, _ := fold.Parse(queries[qid])
		classOf[qid] = fuse.Classify(queries[qid], q)
		counts[classOf[qid]]++
	}
	return classOf, counts
}

// recordIDs are the document ids of a reply's records.
func recordIDs(items []reply.Item) []string {
	var ids []string
	for _, it := range items {
		if id, ok := strings.CutPrefix(it.Ref, source+":"); ok && it.Kind == reply.KindRecord {
			ids = append(ids, id)
		}
	}
	return ids
}

// fusedMarkdown is the table of lexical and fused runs.
func fusedMarkdown(r *Result) string {
	var b strings.Builder
	b.WriteString("\n| run | nDCG@10 | Recall@10 | search median | how |\n| --- | ---: | ---: | ---: | --- |\n")
	fmt.Fprintf(&b, "| lexical | %.3f | %.3f | %s | `bf search --limit 10` |\n", r.NDCG10, r.Recall10, measure.Millis(r.Latency.Median))
	for _, run := range r.Fused {
		med := ""
		if run.Latency.Median > 0 {
			med = measure.Millis(run.Latency.Median)
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %s | %s |\n", run.Name, run.NDCG10, run.Recall10, med, run.How)
	}
	b.WriteString(classMarkdown(r))
	return b.String()
}

// classMarkdown is nDCG@10 by query class, one column per run.
func classMarkdown(r *Result) string {
	var b strings.Builder
	var classes []string
	counts := map[string]int{}
	for _, q := range r.PerQuery {
		counts[q.Class]++
	}
	for c := range counts {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	b.WriteString("\nnDCG@10 by query class:\n\n| class | queries |")
	for _, run := range r.Fused {
		fmt.Fprintf(&b, " %s |", run.Name)
	}
	b.WriteString("\n| --- | ---: |" + strings.Repeat(" ---: |", len(r.Fused)) + "\n")
	for _, c := range classes {
		fmt.Fprintf(&b, "| `%s` | %d |", c, counts[c])
		for _, run := range r.Fused {
			fmt.Fprintf(&b, " %.3f |", run.Classes[c])
		}
		b.WriteString("\n")
	}
	return b.String()
}
