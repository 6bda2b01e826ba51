// Command ir measures the retrieval quality of bf search on the public BEIR SciFact test
// collection: every document becomes a record of one source, every judged query runs
// through the real CLI (bf search --limit 10) as written, and the replies are scored with
// nDCG@10 and Recall@10 against the published judgements.
//
// Nothing here is tuned to SciFact: the brain is a plain one and the queries are passed
// unchanged. When the data folder is absent the command says so and exits 0. It then
// measures memory recall on LoCoMo's conversations (locomo.go), skipped likewise.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
)

// Published BM25 nDCG@10 on SciFact: the BEIR paper's Elasticsearch run over title and
// text fields, and the flat-index BM25 of the BEIR leaderboard.
const (
	bm25Multifield = 0.665
	bm25Flat       = 0.679
	targetNDCG     = 0.69
)

const source = "scifact"

type options struct {
	bin, data, cache, out, readme, dense, identity, locomo string
	limit                                                  int
	builtinOnly, locomoOnly                                bool
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin", "folder holding the bf binaries (make build)")
	flag.StringVar(&o.data, "data", defaultData(), "folder holding corpus.jsonl, queries.jsonl and qrels.tsv")
	flag.StringVar(&o.cache, "cache", filepath.Join("bench", "cache"), "folder keeping the generated brain")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "results"), "folder for ir.json and ir.md")
	flag.IntVar(&o.limit, "limit", 10, "results scored per query")
	flag.StringVar(&o.dense, "dense", defaultDense(), "the recorded dense run replayed as fused search's dense strategy")
	flag.BoolVar(&o.builtinOnly, "builtin-only", false, "build the brain and run only the corpus-trained vector experiment")
	flag.StringVar(&o.locomo, "locomo", defaultLocomo(), "folder holding LoCoMo's conv-NN.json files (memory recall)")
	flag.BoolVar(&o.locomoOnly, "locomo-only", false, "run only the LoCoMo memory recall")
	flag.StringVar(&o.readme, "readme", "", "also replace the table between <!-- bench:ir --> markers in this README")
	flag.StringVar(&o.identity, "identity", "", "instead of scoring, write every judged query's reply at -limit to this file (compare two builds with cmp)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-ir:", err)
		os.Exit(1)
	}
}

// defaultData is BF_BENCH_DATA/scifact, else ../shared/bench-data/scifact beside the
// repository.
func defaultData() string {
	if d := os.Getenv("BF_BENCH_DATA"); d != "" {
		return filepath.Join(d, "scifact")
	}
	return filepath.Join("..", "shared", "bench-data", "scifact")
}

// defaultLocomo is BF_BENCH_DATA/locomo, else ../shared/bench-data/locomo beside the
// repository.
func defaultLocomo() string {
	if d := os.Getenv("BF_BENCH_DATA"); d != "" {
		return filepath.Join(d, "locomo")
	}
	return filepath.Join("..", "shared", "bench-data", "locomo")
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench-ir: "+format+"\n", args...) }

type doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Result is written as JSON.
type Result struct {
	When       string          `json:"when"`
	Cores      int             `json:"cores"`
	Documents  int             `json:"documents"`
	Queries    int             `json:"queries"`
	Failed     int             `json:"failed_queries"`
	NDCG10     float64         `json:"ndcg_at_10"`
	Recall10   float64         `json:"recall_at_10"`
	BuildMS    float64         `json:"build_ms"`
	Latency    measure.Summary `json:"search"`
	References map[string]any  `json:"references"`
	Target     float64         `json:"target_ndcg_at_10"`
	// Fused are the fused runs, compared with the word search above.
	Fused []Run `json:"fused"`
	// Builtin are the vectors learned from the corpus itself, each as a dense list fused
	// with the word ranking by bf's rule (see builtin.go).
	Builtin []Variant `json:"builtin_vectors"`
	// Locomo is memory recall on LoCoMo's conversations (locomo.go).
	Locomo   *Locomo      `json:"locomo,omitempty"`
	PerQuery []QueryScore `json:"per_query"`
}

type QueryScore struct {
	ID     string   `json:"id"`
	Class  string   `json:"class"`
	NDCG   float64  `json:"ndcg_at_10"`
	Recall float64  `json:"recall_at_10"`
	Found  []string `json:"found"`
}

// runLocomo measures and prints LoCoMo memory recall alone.
func runLocomo(o options) error {
	bf, err := measure.BF(o.bin)
	if err != nil {
		return err
	}
	l, err := locomoRun(bf, o.locomo, o.cache)
	if err != nil {
		return err
	}
	if l != nil {
		fmt.Print(locomoMarkdown(l))
	}
	return nil
}

func run(o options) error {
	if o.locomoOnly {
		return runLocomo(o)
	}
	corpusFile := filepath.Join(o.data, "corpus.jsonl")
	corpus, err := os.ReadFile(corpusFile)
	if os.IsNotExist(err) {
		fmt.Printf("SciFact data not found in %s; skipped (see bench/README.md).\n", o.data)
		return runLocomo(o)
	} else if err != nil {
		return err
	}
	bf, err := measure.BF(o.bin)
	if err != nil {
		return err
	}
	queries, err := readQueries(filepath.Join(o.data, "queries.jsonl"))
	if err != nil {
		return err
	}
	qrels, order, err := readQrels(filepath.Join(o.data, "qrels.tsv"))
	if err != nil {
		return err
	}

	sum := sha256.Sum256(corpus)
	dir, err := filepath.Abs(filepath.Join(o.cache, "scifact-"+hex.EncodeToString(sum[:6])))
	if err != nil {
		return err
	}
	brain := filepath.Join(dir, "brain")
	docs, err := writeBrain(brain, corpus)
	if err != nil {
		return err
	}
	res := &Result{When: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU(), Documents: docs,
		Target: targetNDCG, References: map[string]any{"bm25_multifield_ndcg_at_10": bm25Multifield, "bm25_flat_ndcg_at_10": bm25Flat}}

	logf("building the cache of %d records", docs)
	s, err := measure.Run(brain, bf, "build", "--brain", brain)
	if err != nil {
		return err
	}
	if s.Exit != 0 {
		return fmt.Errorf("bf build exited %d: %s", s.Exit, strings.TrimSpace(string(s.Stderr)))
	}
	res.BuildMS = float64(s.Wall.Microseconds()) / 1000
	if o.identity != "" {
		return writeIdentity(o.identity, bf, brain, queries, order, o.limit)
	}
	variants, lists, err := builtinExperiment(corpus, brain, queries, order, qrels)
	if err != nil {
		return err
	}
	res.Builtin = variants
	if o.builtinOnly {
		fmt.Print(builtinMarkdown(variants))
		return nil
	}

	logf("running %d judged queries", len(order))
	var walls []time.Duration
	for n, qid := range order {
		text, ok := queries[qid]
		if !ok {
			return fmt.Errorf("query %s is judged but not in queries.jsonl", qid)
		}
		found, wall, err := search(bf, brain, text, o.limit)
		if err != nil {
			res.Failed++
			logf("query %s: %v", qid, err)
		}
		walls = append(walls, wall...)
		parsed, _ := fold.Parse(text)
		q := QueryScore{ID: qid, Class: fuse.Classify(text, parsed), NDCG: ndcgAt(10, found, qrels[qid]), Recall: recallAt(10, found, qrels[qid]), Found: found}
		res.NDCG10 += q.NDCG
		res.Recall10 += q.Recall
		res.PerQuery = append(res.PerQuery, q)
		if (n+1)%100 == 0 {
			logf("  %d/%d", n+1, len(order))
		}
	}
	res.Queries = len(order)
	res.NDCG10 /= float64(len(order))
	res.Recall10 /= float64(len(order))
	res.Latency = measure.Summarize(walls)
	if res.Fused, err = fusedRuns(bf, brain, queries, order, qrels, o.limit, o.dense, best(variants, lists)); err != nil {
		return err
	}

	if res.Locomo, err = locomoRun(bf, o.locomo, o.cache); err != nil {
		return err
	}
	md := markdown(res)
	fmt.Print(md)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	js, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, "ir.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "ir.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if o.readme != "" {
		return measure.ReplaceBetween(o.readme, "<!-- bench:ir -->", "<!-- /bench:ir -->", md)
	}
	return nil
}

func markdown(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### SciFact (BEIR test split): %d documents, %d judged queries\n\n", r.Documents, r.Queries)
	fmt.Fprintf(&b, "%d cores; %s. `bf search --limit 10` per query, one process each; build %s; search median %s, p95 %s.\n\n",
		r.Cores, r.When, measure.Millis(r.BuildMS), measure.Millis(r.Latency.Median), measure.Millis(r.Latency.P95))
	b.WriteString("| metric | bf | BM25 multifield (BEIR) | BM25 flat | target | |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	verdict := fmt.Sprintf("missed by %.3f", targetNDCG-r.NDCG10)
	if r.NDCG10 >= targetNDCG {
		verdict = fmt.Sprintf("met by %.3f", r.NDCG10-targetNDCG)
	}
	fmt.Fprintf(&b, "| nDCG@10 | %.3f | %.3f | %.3f | ≥ %.2f | %s |\n", r.NDCG10, bm25Multifield, bm25Flat, targetNDCG, verdict)
	fmt.Fprintf(&b, "| Recall@10 | %.3f | | | | |\n", r.Recall10)
	if r.Failed > 0 {
		fmt.Fprintf(&b, "\n%d queries failed and scored 0.\n", r.Failed)
	}
	b.WriteString(fusedMarkdown(r))
	b.WriteString(builtinMarkdown(r.Builtin))
	if r.Locomo != nil {
		b.WriteString(locomoMarkdown(r.Locomo))
	}
	return b.String()
}

// search runs one query and returns the document ids of the first limit items, following
// next_offset when a page ends early because of its byte budget.
func search(bf, brain, text string, limit int, mode ...string) ([]string, []time.Duration, error) {
	var ids []string
	var walls []time.Duration
	offset := 0
	for len(ids) < limit {
		args := append([]string{"search", "--brain", brain, "--limit", strconv.Itoa(limit - len(ids))}, mode...)
		if offset > 0 {
			args = append(args, "--offset", strconv.Itoa(offset))
		}
		s, err := measure.Run(brain, bf, append(args, "--", text)...)
		if err != nil {
			return ids, walls, err
		}
		walls = append(walls, s.Wall)
		if s.Exit != 0 {
			return ids, walls, fmt.Errorf("bf search exited %d: %s", s.Exit, strings.TrimSpace(string(s.Stderr)))
		}
		var reply struct {
			Items []struct {
				Ref  string `json:"ref"`
				Kind string `json:"kind"`
			} `json:"items"`
			NextOffset *int `json:"next_offset"`
		}
		if err := json.Unmarshal(s.Stdout, &reply); err != nil {
			return ids, walls, err
		}
		for _, it := range reply.Items {
			if id, ok := strings.CutPrefix(it.Ref, source+":"); ok && it.Kind == "record" {
				ids = append(ids, id)
			}
		}
		if reply.NextOffset == nil || len(reply.Items) == 0 || len(ids) >= limit {
			break
		}
		offset = *reply.NextOffset
	}
	return ids, walls, nil
}

func readQueries(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs := map[string]string{}
	dec := json.NewDecoder(f)
	for {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := dec.Decode(&q); err == io.EOF {
			return qs, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		qs[q.ID] = q.Text
	}
}

// readQrels returns the judgements by query and the judged queries in file order.
func readQrels(file string) (map[string]map[string]int, []string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	qrels := map[string]map[string]int{}
	var order []string
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		fs := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if line == 0 && len(fs) > 0 && fs[0] == "query-id" {
			continue
		}
		if len(fs) != 3 {
			continue
		}
		score, err := strconv.Atoi(fs[2])
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", file, line+1, err)
		}
		if qrels[fs[0]] == nil {
			qrels[fs[0]] = map[string]int{}
			order = append(order, fs[0])
		}
		qrels[fs[0]][fs[1]] = score
	}
	return qrels, order, sc.Err()
}

// writeBrain writes one record per document, unless a complete brain is already there.
func writeBrain(brain string, corpus []byte) (int, error) {
	stamp := filepath.Join(filepath.Dir(brain), "complete")
	folder := filepath.Join(brain, "memories", source)
	ledgerFile := filepath.Join(folder, provenance.LedgerName)
	if _, err := os.Stat(ledgerFile); err != nil {
		os.Remove(stamp) // a brain written before records needed their ledger
	}
	if b, err := os.ReadFile(stamp); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n, nil
		}
	}
	if err := os.RemoveAll(filepath.Dir(brain)); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return 0, err
	}
	config := "version: 8\nname: scifact\nsensors:\n  scifact:\n    command: [scifact-import]\n    enabled: false\n"
	if err := os.WriteFile(filepath.Join(brain, "bf.yaml"), []byte(config), 0o644); err != nil {
		return 0, err
	}
	// The documents count as collected: the ledger names them as collection would.
	ledger := provenance.Ledger{}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(string(corpus)))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return n, fmt.Errorf("corpus line %d: %w", n+1, err)
		}
		r := record.Record{ID: d.ID, Title: d.Title, Text: d.Text}
		b, err := r.Canonical()
		if err != nil {
			return n, fmt.Errorf("document %s: %w", d.ID, err)
		}
		if err := os.WriteFile(filepath.Join(folder, record.FileName(d.ID)), b, 0o644); err != nil {
			return n, err
		}
		ledger.Wrote(record.FileName(d.ID), b)
		n++
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if err := os.WriteFile(ledgerFile, ledger.Encode(), 0o644); err != nil {
		return n, err
	}
	return n, os.WriteFile(stamp, []byte(strconv.Itoa(n)+"\n"), 0o644)
}

// writeIdentity writes the reply of every judged query at limit, with --explain (every
// score), to file, one header line
// per reply, so that the replies of two builds of bf can be compared with cmp.
func writeIdentity(file, bf, brain string, queries map[string]string, order []string, limit int) error {
	var out strings.Builder
	for _, qid := range order {
		s, err := measure.Run(brain, bf, "search", "--brain", brain, "--explain", "--limit", strconv.Itoa(limit), "--", queries[qid])
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "### %s limit=%d exit=%d\n%s\n", qid, limit, s.Exit, strings.TrimSpace(string(s.Stdout)))
	}
	logf("%d replies written to %s", len(order), file)
	return os.WriteFile(file, []byte(out.String()), 0o644)
}
