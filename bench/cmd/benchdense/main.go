// Command benchdense times fused search's dense strategy (vector.Dense, in process) on
// generated unit vectors: for each size, a brain whose vector store holds one vector per
// chunk (four chunks an item) and a provider on 127.0.0.1 answering each query with a
// vector near one of the stored ones. It measures the first search after a change (which
// makes the scan file), warm searches, the provider's own round trip, and the scan bf made
// before the scan file (every vector decoded from SQLite row by row), checking that both
// return the same items with the same scores. With -int8 it also measures, in memory, an
// int8 scan that rescores its head exactly, against the exact ranking (recall@10).
//
// Like every benchmark here it reports and never fails because a figure misses its target.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/vector"
)

type options struct {
	sizes   string
	int8    string
	dims    int
	queries int
	depth   int
	old     int
	readme  string
	out     string
}

func main() {
	var o options
	flag.StringVar(&o.sizes, "sizes", "10k,100k", "chunk counts measured through vector.Dense (k and m suffixes)")
	flag.StringVar(&o.int8, "int8", "", "chunk counts for the in-memory int8 experiment, for example 100k,1m")
	flag.IntVar(&o.dims, "dims", 384, "dimensions of every vector")
	flag.IntVar(&o.queries, "queries", 21, "warm searches measured per size")
	flag.IntVar(&o.depth, "depth", fuse.DefaultDepth, "items asked of the dense strategy")
	flag.IntVar(&o.old, "old-max", 100_000, "largest size at which the previous scan is timed and compared")
	flag.StringVar(&o.readme, "readme", "", "also replace the dense table between markers in this README")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "results"), "folder for dense.json and dense.md")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchdense:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(o); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "benchdense:", err)
		os.Exit(1)
	}
}

// Row is one size's figures, in milliseconds.
type Row struct {
	Chunks int     `json:"chunks"`
	Dims   int     `json:"dims"`
	First  float64 `json:"first_ms"`
	// AfterEdit is the first search after one chunk's text changed: the scan file is made
	// again from the old one, reading one vector from the store.
	AfterEdit float64          `json:"after_edit_ms"`
	Warm      measure.Summary  `json:"warm"`
	Provider  measure.Summary  `json:"provider"`
	Previous  *measure.Summary `json:"previous,omitempty"`
	Identical *bool            `json:"identical,omitempty"`
	ScanBytes int64            `json:"scan_bytes"`
	// WarmCPU is the median processor time of a warm search (all goroutines, the
	// in-process provider's included): on a machine other work keeps busy, the wall
	// times above include waiting for a core, this does not.
	WarmCPU float64 `json:"warm_cpu_ms"`
	// Store is the time taken to store every vector (batches of 10,000), and StoreCPU its
	// processor time.
	Store    float64 `json:"store_ms"`
	StoreCPU float64 `json:"store_cpu_ms"`
	// Load is the load average when the size's searches ended.
	Load string `json:"load"`
}

// Int8Row is one size of the int8 experiment.
type Int8Row struct {
	Chunks int             `json:"chunks"`
	Head   int             `json:"head"`
	Exact  measure.Summary `json:"exact"`
	Int8   measure.Summary `json:"int8"`
	Recall float64         `json:"recall_at_10"`
}

func run(o options) error {
	sizes, err := parseSizes(o.sizes)
	if err != nil {
		return err
	}
	int8Sizes, err := parseSizes(o.int8)
	if err != nil {
		return err
	}
	state, err := os.MkdirTemp("", "benchdense-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	os.Setenv("XDG_STATE_HOME", state)
	var rows []Row
	for _, n := range sizes {
		r, err := measureSize(o, n)
		if err != nil {
			return fmt.Errorf("%d chunks: %w", n, err)
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "benchdense: %d chunks: warm median %s\n", n, measure.Millis(r.Warm.Median))
	}
	var int8Rows []Int8Row
	for _, n := range int8Sizes {
		r := measureInt8(o, n)
		int8Rows = append(int8Rows, r)
		fmt.Fprintf(os.Stderr, "benchdense: int8 at %d chunks: %s against %s exact, recall@10 %.3f\n", n, measure.Millis(r.Int8.Median), measure.Millis(r.Exact.Median), r.Recall)
	}
	md := table(o, rows, int8Rows)
	fmt.Print(md)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(map[string]any{"cpus": runtime.NumCPU(), "gomaxprocs": runtime.GOMAXPROCS(0), "dense": rows, "int8": int8Rows}, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, "dense.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "dense.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if o.readme != "" {
		if len(rows) > 0 {
			if err := measure.ReplaceBetween(o.readme, "<!-- bench:dense -->", "<!-- /bench:dense -->", denseTable(o, rows)); err != nil {
				return err
			}
		}
		if len(int8Rows) > 0 {
			return measure.ReplaceBetween(o.readme, "<!-- bench:dense-int8 -->", "<!-- /bench:dense-int8 -->", int8Table(o, int8Rows))
		}
	}
	return nil
}

// parseSizes reads "10k,100k,1m".
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a count such as 10k", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// corpus is n generated unit vectors of dims values, chunk i belonging to item i/4+1.
type corpus struct {
	dims int
	vecs [][]float32
}

func generate(n, dims int) *corpus {
	r := rand.New(rand.NewPCG(uint64(n), uint64(dims)))
	c := &corpus{dims: dims, vecs: make([][]float32, n)}
	for i := range c.vecs {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		c.vecs[i] = normalize(v)
	}
	return c
}

func normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func itemOf(chunk int) int64 { return int64(chunk/4 + 1) }

// query is the vector the provider returns for a text: a stored vector (chosen by the
// text's hash) plus as much noise, so each query has near neighbours as real ones do.
func (c *corpus) query(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, 1))
	base := c.vecs[int(seed%uint64(len(c.vecs)))]
	v := make([]float32, c.dims)
	for i := range v {
		v[i] = base[i] + float32(r.NormFloat64()/math.Sqrt(float64(c.dims)))
	}
	return normalize(v)
}

// serve answers OpenAI-compatible embedding requests with c's query vectors.
func (c *corpus) serve() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []datum `json:"data"`
		}
		for i, t := range req.Input {
			out.Data = append(out.Data, datum{i, c.query(t)})
		}
		json.NewEncoder(w).Encode(out)
	}))
}

// measureSize times vector.Dense on n chunks.
func measureSize(o options, n int) (Row, error) {
	ctx := context.Background()
	row := Row{Chunks: n, Dims: o.dims}
	c := generate(n, o.dims)
	srv := c.serve()
	defer srv.Close()
	root, err := os.MkdirTemp("", "benchdense-brain-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(root)
	cfg := fmt.Sprintf("version: 8\nname: dense\nembeddings:\n  url: %s/v1/embeddings\n  model: bench\n", srv.URL)
	if err := os.WriteFile(filepath.Join(root, "bf.yaml"), []byte(cfg), 0o644); err != nil {
		return row, err
	}
	b, err := brain.Open(root)
	if err != nil {
		return row, err
	}
	if err := brain.System().Trust(root); err != nil {
		return row, err
	}
	// The vector store, filled as embedding passes fill it.
	st, err := cache.OpenVectors(ctx, root)
	if err != nil {
		return row, err
	}
	key := cache.VectorKey{Provider: srv.URL + "/v1/embeddings", Model: "bench"}
	hashOf := func(i int) string { return fmt.Sprintf("%064x", i) }
	t0, c0 := time.Now(), cpuNow()
	for start := 0; start < n; start += 10_000 {
		batch := map[string][]byte{}
		for i := start; i < min(start+10_000, n); i++ {
			batch[hashOf(i)] = vector.Encode(c.vecs[i])
		}
		if err := st.Put(ctx, key, batch); err != nil {
			return row, err
		}
	}
	st.Close()
	row.Store, row.StoreCPU = ms(time.Since(t0)), ms(cpuNow()-c0)
	// The chunks of a generation, and the table the previous scan joined them with.
	genFile := filepath.Join(root, cache.Dir, "generation.sqlite")
	db, err := sql.Open("sqlite", "file:"+genFile+"?mode=rwc")
	if err != nil {
		return row, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE chunks(id INTEGER PRIMARY KEY, item INTEGER NOT NULL, fragment TEXT NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL)`,
		`CREATE TABLE chunk_state(generation TEXT NOT NULL, changes INTEGER NOT NULL)`,
		`INSERT INTO chunk_state VALUES('bench', 0)`,
		`CREATE TABLE vectors(model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID`,
	} {
		if _, err := db.Exec(s); err != nil {
			return row, err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return row, err
	}
	for i := range n {
		if _, err := tx.Exec(`INSERT INTO chunks(item, fragment, hash, text) VALUES(?, '', ?, '')`, itemOf(i), hashOf(i)); err != nil {
			return row, err
		}
		if n <= o.old {
			if _, err := tx.Exec(`INSERT INTO vectors VALUES('bench', ?, ?)`, hashOf(i), vector.Encode(c.vecs[i])); err != nil {
				return row, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return row, err
	}

	var lastCPU time.Duration
	search := func(q string) ([]fuse.Scored, time.Duration, error) {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, 0, err
		}
		defer tx.Rollback()
		t0, c0 := time.Now(), cpuNow()
		out, note, err := vector.Dense(ctx, tx, b, q, o.depth)
		d := time.Since(t0)
		lastCPU = cpuNow() - c0
		if err == nil && note != "" {
			err = fmt.Errorf("dense strategy unavailable: %s", note)
		}
		return out, d, err
	}
	if _, d, err := search("first"); err != nil {
		return row, err
	} else {
		row.First = ms(d)
	}
	if st, err := os.Stat(filepath.Join(root, cache.Dir, "vectors.scan")); err == nil {
		row.ScanBytes = st.Size()
	}
	p := vector.New(b.Config.Embeddings, root)
	var warm, warmCPU, provider, previous []time.Duration
	identical := true
	for i := range o.queries {
		q := fmt.Sprintf("query %d", i)
		got, d, err := search(q)
		if err != nil {
			return row, err
		}
		warm, warmCPU = append(warm, d), append(warmCPU, lastCPU)
		t0 := time.Now()
		vecs, err := p.Embed(ctx, []string{q})
		if err != nil {
			return row, err
		}
		provider = append(provider, time.Since(t0))
		if n <= o.old {
			t0 = time.Now()
			want, err := previousScan(ctx, db, vecs[0], o.depth)
			if err != nil {
				return row, err
			}
			previous = append(previous, time.Since(t0))
			identical = identical && slices.Equal(got, want)
		}
	}
	// One chunk's text changes, as an edit and its embedding pass make it.
	st, err = cache.OpenVectors(ctx, root)
	if err != nil {
		return row, err
	}
	edited := hashOf(n)
	err = st.Put(ctx, key, map[string][]byte{edited: vector.Encode(c.query("edited"))})
	st.Close()
	if err != nil {
		return row, err
	}
	for _, s := range []string{`UPDATE chunks SET hash = '` + edited + `' WHERE id = 1`, `UPDATE chunk_state SET changes = changes + 1`} {
		if _, err := db.Exec(s); err != nil {
			return row, err
		}
	}
	if _, d, err := search("after an edit"); err != nil {
		return row, err
	} else {
		row.AfterEdit = ms(d)
	}
	row.Warm, row.Provider, row.Previous = measure.Summarize(warm), measure.Summarize(provider), measure.Optional(previous)
	row.WarmCPU = measure.Summarize(warmCPU).Median
	if len(previous) > 0 {
		row.Identical = &identical
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		row.Load = strings.Join(strings.Fields(string(raw))[:3], " ")
	}
	return row, nil
}

// previousScan is the dense scan as bf made it before the scan file: every vector decoded
// from SQLite row by row, a map of each item's best score, every item sorted.
func previousScan(ctx context.Context, db *sql.DB, query []float32, depth int) ([]fuse.Scored, error) {
	q := unitOf(query)
	rows, err := db.QueryContext(ctx, `SELECT c.item, v.vector FROM chunks c JOIN vectors v ON v.model = 'bench' AND v.hash = c.hash`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	best := map[int64]float64{}
	for rows.Next() {
		var item int64
		var enc []byte
		if err := rows.Scan(&item, &enc); err != nil {
			return nil, err
		}
		if len(enc) != 4*len(q) {
			continue
		}
		var s float32
		for i := range q {
			s += math.Float32frombits(binary.LittleEndian.Uint32(enc[4*i:])) * q[i]
		}
		if old, ok := best[item]; !ok || float64(s) > old {
			best[item] = float64(s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]fuse.Scored, 0, len(best))
	for id, s := range best {
		out = append(out, fuse.Scored{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b fuse.Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(depth, len(out))], nil
}

// unitOf scales a query vector as bf does before comparing: through its stored encoding.
func unitOf(v []float32) []float32 {
	enc := vector.Encode(v)
	out := make([]float32, len(enc)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(enc[4*i:]))
	}
	return out
}

// table renders the figures as Markdown.
func table(o options, rows []Row, int8Rows []Int8Row) string {
	var out string
	if len(rows) > 0 {
		out += denseTable(o, rows)
	}
	if len(int8Rows) > 0 {
		out += int8Table(o, int8Rows)
	}
	return out
}

// denseTable is the table of vector.Dense's figures.
func denseTable(o options, rows []Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nGenerated unit vectors of %d dimensions, four chunks an item, %d warm searches a size, depth %d; %d CPUs, GOMAXPROCS %d. Times are vector.Dense in process, the provider's round trip included (a server on 127.0.0.1; that round trip alone is its own column).\n\n",
		o.dims, o.queries, o.depth, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	b.WriteString("| chunks | storing every vector (processor) | scan file | first search (makes it) | first search after an edit | warm median | warm p95 | warm processor time, median | provider alone, median | previous scan, median | same ids and scores | load average |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, r := range rows {
		prev, same := "not run", "not compared"
		if r.Previous != nil {
			prev = measure.Millis(r.Previous.Median)
		}
		if r.Identical != nil {
			same = map[bool]string{true: "yes", false: "NO"}[*r.Identical]
		}
		fmt.Fprintf(&b, "| %d | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Chunks, measure.Millis(r.Store), measure.Millis(r.StoreCPU),
			measure.Bytes(r.ScanBytes), measure.Millis(r.First), measure.Millis(r.AfterEdit), measure.Millis(r.Warm.Median), measure.Millis(r.Warm.P95),
			measure.Millis(r.WarmCPU), measure.Millis(r.Provider.Median), prev, same, r.Load)
	}
	return b.String()
}

// int8Table is the table of the int8 experiment.
func int8Table(o options, rows []Int8Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nIn memory, no file, %d queries a size, depth %d: the exact float32 scan against int8 codes (one scale per vector) whose best items are rescored exactly.\n\n", o.queries, o.depth)
	b.WriteString("| chunks | exact float32, median | int8 + exact rescoring of the head, median | head (items) | recall@10 against exact |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %.3f |\n", r.Chunks, measure.Millis(r.Exact.Median), measure.Millis(r.Int8.Median), r.Head, r.Recall)
	}
	return b.String()
}

// cpuNow is the processor time this process has used, user and system.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
