// Command benchrun generates a benchmark brain once, then measures bf on it the way
// people use it, one process per command: full build, the first search after an edit,
// warm searches and reads, and the cache size, beside rg and sqlite3 doing the same
// lookups on the same data in the same run. It prints a Markdown table and writes JSON.
//
// Benchmarks report; they never fail because a figure misses its target. A nonzero exit
// means the harness itself could not run (no binaries, a failed build).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/brains"
	"github.com/bfgo/bf/bench/internal/measure"
)

type options struct {
	size       string
	bin        string
	cache      string
	out        string
	readme     string
	builds     int
	searchReps int
	readReps   int
	edits      int
	adds       int
	identity   string
	searches   bool
	lspOnly    bool
	fused      bool
	watched    bool
}

func main() {
	var o options
	flag.StringVar(&o.size, "size", "small", "brain size: small (1k notes, 10k records) or large (10k notes, 100k records)")
	flag.StringVar(&o.bin, "bin", "bin", "folder holding the bf binaries (make build)")
	flag.StringVar(&o.cache, "cache", brains.DefaultCache(), "folder keeping generated brains between runs")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "results"), "folder for latest.json and SIZE.json/.md")
	flag.StringVar(&o.readme, "readme", "", "also replace this size's table between markers in this README")
	flag.IntVar(&o.builds, "builds", 3, "full builds measured")
	flag.IntVar(&o.searchReps, "search-reps", 0, "measured runs of each query (0: 5 small, 3 large)")
	flag.IntVar(&o.readReps, "read-reps", 0, "measured runs of each read (0: 10 small, 5 large)")
	flag.IntVar(&o.edits, "edits", 5, "note edits, each followed by one timed search")
	flag.IntVar(&o.adds, "adds", 3, "batches of 100 records added, each followed by one timed search")
	flag.StringVar(&o.identity, "identity", "", "instead of measuring, write every fixed query's reply at six limits to this file (compare two builds with cmp)")
	flag.BoolVar(&o.fused, "fused", false, "with -identity: write the replies of bf search --fused instead of word search --explain")
	flag.BoolVar(&o.searches, "searches", false, "measure only the warm searches, on the copy a previous run built when there is one; print their table per query kind")
	flag.BoolVar(&o.lspOnly, "lsp", false, "measure only bf lsp (start-up, diagnostics of a 200 KB note, completion, hover), on the copy a previous run built when there is one")
	flag.BoolVar(&o.watched, "watched", runtime.GOOS == "linux", "also measure the warm searches and reads with bf watch --cache running (Linux)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// Result is everything one run measured; it is written as JSON.
type Result struct {
	Size      string       `json:"size"`
	When      string       `json:"when"`
	Machine   Machine      `json:"machine"`
	Generator brains.Info  `json:"generator"`
	Build     BuildResult  `json:"build"`
	Refresh   Refresh      `json:"refresh"`
	Search    SearchResult `json:"search"`
	Reads     []ReadResult `json:"reads"`
	Cache     CacheResult  `json:"cache"`
	LSP       *LSPResult   `json:"lsp,omitempty"`
	Targets   []Target     `json:"targets"`
	Problems  []string     `json:"problems,omitempty"`
}

type Machine struct {
	Cores   int    `json:"cores"`
	CPU     string `json:"cpu"`
	OS      string `json:"os"`
	Go      string `json:"go"`
	Commit  string `json:"commit"`
	RG      string `json:"rg"`
	SQLite3 string `json:"sqlite3"`
}

type BuildResult struct {
	Wall         measure.Summary  `json:"wall"`
	PeakRSS      int64            `json:"peak_rss_bytes"` // median over the builds
	PeakRSSMax   int64            `json:"peak_rss_max_bytes"`
	Reply        json.RawMessage  `json:"reply"`
	RGReadAll    *measure.Summary `json:"rg_read_all,omitempty"`
	SQLiteFTS    *measure.Summary `json:"sqlite3_fts5_index,omitempty"`
	SQLiteRSS    int64            `json:"sqlite3_fts5_index_rss_bytes,omitempty"`
	ValidateMS   float64          `json:"validate_ms"`
	Valid        bool             `json:"valid"`
	ReplyFiles   int              `json:"files"`
	ReplySkipped int              `json:"skipped"`
}

type Refresh struct {
	Query          string          `json:"query"`
	AfterEdit      measure.Summary `json:"after_edit"`
	AfterAdd       measure.Summary `json:"after_add_100_records"`
	WarmSameQuery  measure.Summary `json:"warm_same_query"`
	EditedNote     string          `json:"edited_note"`
	EditFound      int             `json:"edits_found_by_search"`
	AddFound       int             `json:"adds_found_by_search"`
	AfterEditRatio float64         `json:"after_edit_over_warm_same_query"`
}

type QueryResult struct {
	gen.Query
	BF measure.Summary `json:"bf"`
	// Watched is bf with bf watch --cache running, WatchedRG rg in the same passes.
	Watched   *measure.Summary `json:"bf_watched,omitempty"`
	WatchedRG *measure.Summary `json:"rg_watched,omitempty"`
	Fused     *measure.Summary `json:"bf_fused,omitempty"`
	RG        *measure.Summary `json:"rg,omitempty"`
	SQLite    *measure.Summary `json:"sqlite3,omitempty"`
	Items     int              `json:"items"`
	RGHits    int              `json:"rg_files"`
	Errors    int              `json:"errors,omitempty"`
}

type KindSummary struct {
	Kind   string  `json:"kind"`
	N      int     `json:"queries"`
	BF     float64 `json:"bf_median_ms"`
	Fused  float64 `json:"bf_fused_median_ms,omitempty"`
	RG     float64 `json:"rg_median_ms,omitempty"`
	SQLite float64 `json:"sqlite3_median_ms,omitempty"`
	// Watched is bf, sqlite3 and rg again, in the passes with bf watch --cache running.
	Watched *Pair `json:"watched,omitempty"`
}

type SearchResult struct {
	Reps int             `json:"reps"`
	All  measure.Summary `json:"bf"`
	// Fused is bf search --fused over the same queries, run alternately with the word
	// search above.
	Fused  *measure.Summary `json:"bf_fused,omitempty"`
	RG     *measure.Summary `json:"rg,omitempty"`
	SQLite *measure.Summary `json:"sqlite3,omitempty"`
	// Watched is every query again with bf watch --cache running, and WatchedSQLite and
	// WatchedRG sqlite3 and rg in the same passes.
	Watched       *measure.Summary `json:"bf_watched,omitempty"`
	WatchedSQLite *measure.Summary `json:"sqlite3_watched,omitempty"`
	WatchedRG     *measure.Summary `json:"rg_watched,omitempty"`
	MaxRSS        int64            `json:"bf_max_rss_bytes"`
	PerKind       []KindSummary    `json:"per_kind"`
	Queries       []QueryResult    `json:"queries"`
}

type ReadResult struct {
	Name      string           `json:"name"`
	Ref       string           `json:"ref"`
	BF        measure.Summary  `json:"bf"`
	RG        *measure.Summary `json:"rg,omitempty"`
	SQLite    *measure.Summary `json:"sqlite3,omitempty"`
	Backlinks int              `json:"backlinks,omitempty"`
	// Watched is the read again with bf watch --cache running, sqlite3 beside it.
	Watched *Pair `json:"watched,omitempty"`
	Bytes   int   `json:"reply_bytes"`
}

// Pair is bf beside sqlite3, measured in the same passes.
type Pair struct {
	BF     measure.Summary  `json:"bf"`
	SQLite *measure.Summary `json:"sqlite3,omitempty"`
	// RG is rg in the same passes, for searches.
	RG *measure.Summary `json:"rg,omitempty"`
}

type CacheResult struct {
	Bytes      int64 `json:"bytes"`
	BytesAtEnd int64 `json:"bytes_at_end"`
	BrainBytes int64 `json:"brain_bytes"`
}

type Target struct {
	Name   string  `json:"name"`
	Goal   string  `json:"goal"`
	Value  string  `json:"value"`
	Met    bool    `json:"met"`
	Margin string  `json:"margin"`
	Ratio  float64 `json:"ratio"` // value over limit (or limit over value for "at least" goals)
}

// bench holds the state of one run.
type bench struct {
	o       options
	plan    *gen.Plan
	bf      string
	work    string
	rg      string // empty when rg is not installed
	sqlite3 string
	res     *Result
}

func run(o options) error {
	cfg, ok := gen.Sizes[o.size]
	if !ok {
		return fmt.Errorf("unknown -size %q; use small or large", o.size)
	}
	if o.searchReps <= 0 {
		o.searchReps = map[string]int{"small": 5, "large": 3}[o.size]
	}
	if o.readReps <= 0 {
		o.readReps = map[string]int{"small": 10, "large": 5}[o.size]
	}
	bf, err := measure.BF(o.bin)
	if err != nil {
		return err
	}
	if o.cache, err = filepath.Abs(o.cache); err != nil {
		return err
	}
	b := &bench{o: o, bf: bf, res: &Result{Size: o.size, When: time.Now().UTC().Format(time.RFC3339)}}
	b.rg, _ = exec.LookPath("rg")
	b.sqlite3, _ = exec.LookPath("sqlite3")
	b.res.Machine = machine(b)

	start := time.Now()
	b.plan = gen.NewPlan(cfg)
	brain, info, err := brains.Ensure(o.cache, b.plan, logf)
	if err != nil {
		return err
	}
	b.res.Generator = info
	b.work = filepath.Join(filepath.Dir(brain), "work")
	if _, err := os.Stat(filepath.Join(b.work, ".bf", "index.sqlite")); (o.searches || o.lspOnly) && err == nil {
		logf("reusing %s and its cache", b.work)
		if o.lspOnly {
			return b.lspOnly()
		}
		return b.searchesOnly()
	}
	logf("copying the brain to %s", b.work)
	if err := brains.LinkTree(brain, b.work); err != nil {
		return err
	}
	if o.searches || o.lspOnly {
		if err := b.buildOnce(); err != nil {
			return err
		}
		if o.lspOnly {
			return b.lspOnly()
		}
		return b.searchesOnly()
	}
	b.res.Cache.BrainBytes = info.Stats.Bytes
	if o.identity != "" {
		file, err := filepath.Abs(o.identity)
		if err != nil {
			return err
		}
		return b.identity(file, o.fused)
	}

	steps := []struct {
		name string
		f    func() error
	}{
		{"validate", b.validate},
		{"full build", b.build},
		{"warm searches", b.searches},
		{"warm reads", b.reads},
		{"warm searches and reads with bf watch --cache running", b.watchedIf},
		{"bf lsp", b.lsp},
		{"search after editing a note", b.afterEdit},
		{"search after adding records", b.afterAdd},
	}
	for _, s := range steps {
		logf("%s…", s.name)
		if err := s.f(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	b.res.Cache.BytesAtEnd = brains.Size(filepath.Join(b.work, ".bf"))
	b.res.Targets = targets(b.res)
	logf("done in %s", time.Since(start).Round(time.Second))

	md := markdown(b.res)
	fmt.Print(md)
	return write(o, b.res, md)
}

func write(o options, res *Result, md string) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	for _, f := range []struct {
		name string
		data []byte
	}{{"latest.json", js}, {o.size + ".json", js}, {o.size + ".md", []byte(md)}} {
		if err := os.WriteFile(filepath.Join(o.out, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	if o.readme != "" {
		return measure.ReplaceBetween(o.readme, "<!-- bench:"+o.size+" -->", "<!-- /bench:"+o.size+" -->", md)
	}
	return nil
}

func machine(b *bench) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if v, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += " " + strings.TrimSpace(string(v))
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += " (with uncommitted changes)"
		}
	}
	first := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	if b.rg != "" {
		m.RG = first(b.rg, "--version")
	}
	if b.sqlite3 != "" {
		v := strings.Fields(first(b.sqlite3, "--version"))
		if len(v) > 0 {
			m.SQLite3 = "sqlite3 " + v[0]
		}
	}
	return m
}

// bfRun runs bf VERB --brain WORK ARGS…: the brain flag goes before the arguments, which
// may end in "--" and a query or ref.
func (b *bench) bfRun(verb string, args ...string) (measure.Sample, error) {
	return measure.Run(b.work, b.bf, append([]string{verb, "--brain", b.work}, args...)...)
}

func (b *bench) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	logf("problem: %s", msg)
	b.res.Problems = append(b.res.Problems, msg)
}

func (b *bench) validate() error {
	s, err := b.bfRun("validate")
	if err != nil {
		return err
	}
	b.res.Build.ValidateMS = float64(s.Wall.Microseconds()) / 1000
	var v struct {
		Valid    bool              `json:"valid"`
		Problems []json.RawMessage `json:"problems"`
	}
	if json.Unmarshal(s.Stdout, &v) == nil {
		b.res.Build.Valid = v.Valid
		if !v.Valid {
			b.problem("bf validate reports %d problems in the generated brain", len(v.Problems))
		}
	}
	return nil
}

func (b *bench) build() error {
	var walls []time.Duration
	var rss []int64
	cache := filepath.Join(b.work, ".bf")
	for k := range b.o.builds {
		if err := os.RemoveAll(cache); err != nil {
			return err
		}
		s, err := b.bfRun("build")
		if err != nil {
			return err
		}
		if s.Exit != 0 {
			return fmt.Errorf("bf build exited %d: %s", s.Exit, strings.TrimSpace(string(s.Stderr)))
		}
		logf("  build %d: %s, peak RSS %s", k+1, s.Wall.Round(time.Millisecond), measure.Bytes(s.MaxRSS))
		walls = append(walls, s.Wall)
		rss = append(rss, s.MaxRSS)
		b.res.Build.Reply = json.RawMessage(strings.TrimSpace(string(s.Stdout)))
	}
	var reply struct{ Files, Skipped int }
	json.Unmarshal(b.res.Build.Reply, &reply)
	b.res.Build.ReplyFiles, b.res.Build.ReplySkipped = reply.Files, reply.Skipped
	b.res.Build.Wall = measure.Summarize(walls)
	slices.Sort(rss)
	b.res.Build.PeakRSS = rss[len(rss)/2]
	b.res.Build.PeakRSSMax = rss[len(rss)-1]
	b.res.Cache.Bytes = brains.Size(cache)

	if b.rg != "" {
		var ds []time.Duration
		for range b.o.builds + 1 {
			s, err := measure.Run(b.work, b.rg, "--no-messages", "-c", "-F", "-e", "zqxjbenchnomatch", b.work)
			if err != nil {
				return err
			}
			ds = append(ds, s.Wall)
		}
		sum := measure.Summarize(ds[1:])
		b.res.Build.RGReadAll = &sum
	}
	if b.sqlite3 != "" {
		var ds []time.Duration
		var rss []int64
		tmp := filepath.Join(filepath.Dir(b.work), "fts5-baseline.sqlite")
		sql := fmt.Sprintf("ATTACH %s AS c; CREATE VIRTUAL TABLE t USING fts5(title, text, names, context, tokenize='porter unicode61 remove_diacritics 2'); INSERT INTO t(rowid, title, text, names, context) SELECT rowid, title, text, names, context FROM c.search;",
			sqlString(filepath.Join(cache, "index.sqlite")))
		for range b.o.builds {
			os.Remove(tmp)
			s, err := measure.Run(b.work, b.sqlite3, tmp, sql)
			if err != nil {
				return err
			}
			if s.Exit != 0 {
				b.problem("sqlite3 FTS5 baseline failed: %s", strings.TrimSpace(string(s.Stderr)))
				break
			}
			ds = append(ds, s.Wall)
			rss = append(rss, s.MaxRSS)
		}
		os.Remove(tmp)
		if len(ds) > 0 {
			sum := measure.Summarize(ds)
			b.res.Build.SQLiteFTS = &sum
			slices.Sort(rss)
			b.res.Build.SQLiteRSS = rss[len(rss)/2]
		}
	}
	return nil
}

// items counts the items of a search reply.
func items(out []byte) int {
	var r struct {
		Items []json.RawMessage `json:"items"`
	}
	json.Unmarshal(out, &r)
	return len(r.Items)
}

// refs lists the refs of a search reply's items.
func refs(out []byte) []string {
	var r struct {
		Items []struct {
			Ref string `json:"ref"`
		} `json:"items"`
	}
	json.Unmarshal(out, &r)
	var refs []string
	for _, it := range r.Items {
		refs = append(refs, it.Ref)
	}
	return refs
}

func searchArgs(q gen.Query) []string {
	var args []string
	if q.Scope != "" {
		args = append(args, "--scope", q.Scope)
	}
	return append(args, "--", q.Text)
}

func (b *bench) searches() error {
	qs := gen.Queries(b.plan)
	dbPath := filepath.Join(b.work, ".bf", "index.sqlite")
	type acc struct{ bf, fused, rg, sq []time.Duration }
	accs := make([]acc, len(qs))
	res := make([]QueryResult, len(qs))
	var maxRSS int64
	// Pass 0 warms the page cache and is not counted; passes alternate the three tools
	// query by query so that noise from the machine hits them alike.
	for rep := 0; rep <= b.o.searchReps; rep++ {
		for i, q := range qs {
			res[i].Query = q
			s, err := b.bfRun("search", searchArgs(q)...)
			if err != nil {
				return err
			}
			if s.Exit != 0 {
				res[i].Errors++
				if rep == 0 {
					b.problem("bf search %q exited %d: %s", q.Text, s.Exit, strings.TrimSpace(string(s.Stderr)))
				}
			}
			if rep == 0 {
				res[i].Items = items(s.Stdout)
			} else {
				accs[i].bf = append(accs[i].bf, s.Wall)
				maxRSS = max(maxRSS, s.MaxRSS)
			}
			// The same query fused, right after, so both modes see the same machine.
			fs, err := b.bfRun("search", append([]string{"--fused"}, searchArgs(q)...)...)
			if err != nil {
				return err
			}
			if fs.Exit != 0 && rep == 0 {
				b.problem("bf search --fused %q exited %d: %s", q.Text, fs.Exit, strings.TrimSpace(string(fs.Stderr)))
			}
			if rep > 0 {
				accs[i].fused = append(accs[i].fused, fs.Wall)
			}
			if b.rg != "" {
				s, err := measure.Run(b.work, b.rg, rgArgs(q, b.work)...)
				if err != nil {
					return err
				}
				if rep == 0 {
					res[i].RGHits = strings.Count(string(s.Stdout), "\n")
				} else {
					accs[i].rg = append(accs[i].rg, s.Wall)
				}
			}
			if b.sqlite3 != "" {
				s, err := measure.Run(b.work, b.sqlite3, "-readonly", "-batch", dbPath, sqlFor(q))
				if err != nil {
					return err
				}
				if s.Exit != 0 && rep == 0 {
					b.problem("sqlite3 baseline of %q failed: %s", q.Text, strings.TrimSpace(string(s.Stderr)))
				}
				if rep > 0 {
					accs[i].sq = append(accs[i].sq, s.Wall)
				}
			}
		}
		if rep == 0 {
			logf("  warm-up pass done")
		} else {
			logf("  pass %d/%d done", rep, b.o.searchReps)
		}
	}
	var all, allFused, allRG, allSQ []time.Duration
	byKind := map[string]*acc{}
	var kinds []string
	for i := range qs {
		a := accs[i]
		res[i].BF = measure.Summarize(a.bf)
		all = append(all, a.bf...)
		res[i].Fused = measure.Optional(a.fused)
		allFused = append(allFused, a.fused...)
		res[i].RG = measure.Optional(a.rg)
		allRG = append(allRG, a.rg...)
		res[i].SQLite = measure.Optional(a.sq)
		allSQ = append(allSQ, a.sq...)
		k := qs[i].Kind
		if byKind[k] == nil {
			byKind[k] = &acc{}
			kinds = append(kinds, k)
		}
		byKind[k].bf = append(byKind[k].bf, a.bf...)
		byKind[k].fused = append(byKind[k].fused, a.fused...)
		byKind[k].rg = append(byKind[k].rg, a.rg...)
		byKind[k].sq = append(byKind[k].sq, a.sq...)
	}
	sr := &b.res.Search
	sr.Reps, sr.Queries, sr.MaxRSS = b.o.searchReps, res, maxRSS
	sr.All = measure.Summarize(all)
	sr.Fused = measure.Optional(allFused)
	sr.RG = measure.Optional(allRG)
	sr.SQLite = measure.Optional(allSQ)
	for _, k := range kinds {
		a := byKind[k]
		// An empty list summarizes to 0, which the JSON leaves out.
		sr.PerKind = append(sr.PerKind, KindSummary{Kind: k, N: len(a.bf) / b.o.searchReps,
			BF: measure.Summarize(a.bf).Median, Fused: measure.Summarize(a.fused).Median,
			RG: measure.Summarize(a.rg).Median, SQLite: measure.Summarize(a.sq).Median})
	}
	return nil
}

func (b *bench) reads() error {
	dbPath := filepath.Join(b.work, ".bf", "index.sqlite")
	for _, c := range readCases(b.plan, b.work) {
		r := ReadResult{Name: c.Name, Ref: c.Ref}
		var bfs, rgs, sqs []time.Duration
		var args []string
		if c.Ref != "" {
			args = append(args, "--", c.Ref)
		}
		for rep := 0; rep <= b.o.readReps; rep++ {
			s, err := b.bfRun("read", args...)
			if err != nil {
				return err
			}
			if rep == 0 {
				if s.Exit != 0 {
					b.problem("bf read %q exited %d: %s", c.Ref, s.Exit, strings.TrimSpace(string(s.Stderr)))
				}
				r.Bytes = len(s.Stdout)
				var reply struct {
					Backlinks []struct{ Total int } `json:"backlinks"`
				}
				if json.Unmarshal(s.Stdout, &reply) == nil {
					for _, g := range reply.Backlinks {
						r.Backlinks += g.Total
					}
				}
			} else {
				bfs = append(bfs, s.Wall)
			}
			if b.rg != "" {
				s, err := measure.Run(b.work, b.rg, c.rg...)
				if err != nil {
					return err
				}
				if rep > 0 {
					rgs = append(rgs, s.Wall)
				}
			}
			if b.sqlite3 != "" {
				s, err := measure.Run(b.work, b.sqlite3, "-readonly", "-batch", dbPath, c.sql)
				if err != nil {
					return err
				}
				if s.Exit != 0 && rep == 0 {
					b.problem("sqlite3 baseline of read %q failed: %s", c.Ref, strings.TrimSpace(string(s.Stderr)))
				}
				if rep > 0 {
					sqs = append(sqs, s.Wall)
				}
			}
		}
		r.BF = measure.Summarize(bfs)
		r.RG, r.SQLite = measure.Optional(rgs), measure.Optional(sqs)
		logf("  %s: %s", c.Name, measure.Millis(r.BF.Median))
		b.res.Reads = append(b.res.Reads, r)
	}
	return nil
}

// refreshQuery is the search timed after each change; it is one of the warm queries.
const refreshQuery = "ledger migration plan"

// editedNote is a project other than the hub: an ordinary note someone works on.
func (b *bench) editedNote() string {
	for i, n := range b.plan.Notes {
		if n.Kind == gen.KindProject && i != b.plan.Hub {
			return n.Path
		}
	}
	return b.plan.Notes[b.plan.Hub].Path
}

// replaceFile writes data to a hidden temporary name and renames it over name, so a
// hard-linked file of the cached brain is never written through.
func replaceFile(name string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(name), ".bench-edit.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func (b *bench) warmSame(n int) ([]time.Duration, error) {
	var ds []time.Duration
	for range n {
		s, err := b.bfRun("search", "--", refreshQuery)
		if err != nil {
			return nil, err
		}
		ds = append(ds, s.Wall)
	}
	return ds, nil
}

func (b *bench) afterEdit() error {
	rf := &b.res.Refresh
	rf.Query = refreshQuery
	rf.EditedNote = b.editedNote()
	file := filepath.Join(b.work, filepath.FromSlash(rf.EditedNote))
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var first, warm []time.Duration
	for k := range b.o.edits {
		marker := fmt.Sprintf("benchedit%dq", k)
		edited := append(slices.Clip(orig), fmt.Appendf(nil, "\nEdited during the benchmark: %s, pass %d.\n", marker, k)...)
		if err := replaceFile(file, edited); err != nil {
			return err
		}
		s, err := b.bfRun("search", "--", refreshQuery)
		if err != nil {
			return err
		}
		first = append(first, s.Wall)
		w, err := b.warmSame(2)
		if err != nil {
			return err
		}
		warm = append(warm, w...)
		if v, err := b.bfRun("search", "--", marker); err == nil && slices.ContainsFunc(refs(v.Stdout), func(ref string) bool {
			return strings.Split(ref, "#")[0] == rf.EditedNote
		}) {
			rf.EditFound++
		}
	}
	if rf.EditFound < b.o.edits {
		b.problem("only %d of %d edits were found by the next search", rf.EditFound, b.o.edits)
	}
	rf.AfterEdit = measure.Summarize(first)
	rf.WarmSameQuery = measure.Summarize(warm)
	// The same query, warm, in the same loop: what the refresh adds, not what the query
	// costs, is what the ratio shows.
	if m := rf.WarmSameQuery.Median; m > 0 {
		rf.AfterEditRatio = rf.AfterEdit.Median / m
	}
	return nil
}

func (b *bench) afterAdd() error {
	rf := &b.res.Refresh
	var first []time.Duration
	base := b.plan.PerSrc[0]
	for k := range b.o.adds {
		marker := fmt.Sprintf("benchadd%dq", k)
		for m := range 100 {
			rel, data, err := b.plan.ExtraTicket(base+k*100+m, marker)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(b.work, filepath.FromSlash(rel)), data, 0o644); err != nil {
				return err
			}
		}
		s, err := b.bfRun("search", "--", refreshQuery)
		if err != nil {
			return err
		}
		first = append(first, s.Wall)
		if v, err := b.bfRun("search", "--scope", "memories/tickets", "--", marker); err == nil && items(v.Stdout) > 0 {
			rf.AddFound++
		}
		// A few searches in between, as would happen between two collections.
		if _, err := b.warmSame(2); err != nil {
			return err
		}
	}
	if rf.AddFound < b.o.adds {
		b.problem("only %d of %d added batches were found by the next search", rf.AddFound, b.o.adds)
	}
	rf.AfterAdd = measure.Summarize(first)
	return nil
}
