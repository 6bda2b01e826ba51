// Command memory measures agent memory (seed 004): how well bf recall finds the turns of
// long conversations on the public LoCoMo benchmark, beside bf search, bf search --fused
// and a plain FTS5 BM25 over the same turn texts; and how long recall, the prompt hook,
// the brief and a save take as a brain grows from 500 to 5,000 memories.
//
// Nothing here is tuned to LoCoMo: the turns are saved as they are, one memory each, and
// the questions are passed as written. Benchmarks report; they never fail because a
// figure misses its target. A nonzero exit means the harness itself could not run.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type options struct {
	bin       string
	data      string
	cache     string
	out       string
	readme    string
	cliSaves  int
	sizes     string
	reps      int
	skipSpeed bool
	skipIR    bool
	// memoryType is the type every turn is saved as.
	memoryType string
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin", "folder holding the bf binaries (make build)")
	flag.StringVar(&o.data, "data", defaultData(), "folder holding LoCoMo's conv-NN.json files")
	flag.StringVar(&o.cache, "cache", filepath.Join("bench", "cache"), "folder keeping the brains between steps")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "results"), "folder for memory.json and memory.md")
	flag.StringVar(&o.readme, "readme", "", "also replace the tables between <!-- bench:memory --> markers in this README")
	flag.IntVar(&o.cliSaves, "cli-saves", 100, "turns of the first conversation saved by one bf remember process each, timed; the rest are saved in this process through the same library call")
	flag.StringVar(&o.sizes, "sizes", "500,5000", "brain sizes, in memories, of the speed measures")
	flag.IntVar(&o.reps, "reps", 15, "measured runs of each command at each size")
	flag.StringVar(&o.memoryType, "type", "fact", "the memory type every turn is saved as (it sets how fast the turns fade)")
	flag.BoolVar(&o.skipSpeed, "skip-speed", false, "measure only retrieval quality")
	flag.BoolVar(&o.skipIR, "skip-locomo", false, "measure only speed")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-memory:", err)
		os.Exit(1)
	}
}

// defaultData is BF_BENCH_DATA/locomo, else ../shared/bench-data/locomo beside the repository.
func defaultData() string {
	if d := os.Getenv("BF_BENCH_DATA"); d != "" {
		return filepath.Join(d, "locomo")
	}
	return filepath.Join("..", "shared", "bench-data", "locomo")
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench-memory: "+format+"\n", args...) }

func run(o options) error {
	cache, err := filepath.Abs(o.cache)
	if err != nil {
		return err
	}
	// Every bf process and the library calls here keep their state (usage counts, locks)
	// under the cache, never in the user's own state folder.
	state := filepath.Join(cache, "memory-state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	os.Setenv("XDG_STATE_HOME", state)
	var report strings.Builder
	res := Result{}
	if !o.skipIR {
		lr, err := runLocomo(o, filepath.Join(cache, "locomo"))
		if err != nil {
			return err
		}
		if lr != nil {
			res.Locomo = lr
			report.WriteString(lr.Markdown())
		}
	}
	if !o.skipSpeed {
		sr, err := runSpeed(o, filepath.Join(cache, "memory-speed"))
		if err != nil {
			return err
		}
		res.Speed = sr
		report.WriteString(sr.Markdown())
	}
	fmt.Print(report.String())
	return res.write(o, report.String())
}
