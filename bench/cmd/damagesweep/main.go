// Command damagesweep damages a brain's cache one block at a time and counts the replies
// that are silently wrong or fail for good (package damage). make bench-damage runs it on
// the example brain and on a generated brain of 2,600 files.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/bfgo/bf/bench/damage"
	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/brains"
)

// generated is the generated brain of the sweep: 600 notes and 2,000 records.
var generated = gen.Config{Notes: 600, Records: 2_000, Seed: 1}

func main() {
	bin := flag.String("bin", "bin", "folder holding the bf binary")
	exampleBlocks := flag.Int("example-blocks", 0, "blocks of the example brain's cache to damage, spread evenly (0: every block)")
	genBlocks := flag.Int("generated-blocks", 204, "blocks of the generated brain's cache to damage, spread evenly (0: every block)")
	example := flag.String("example", "examples/brain", "the example brain")
	show := flag.Int("show", 5, "cases of each bad outcome to print")
	jobs := flag.Int("jobs", runtime.NumCPU(), "cases run at once, each on its own copy of the brain")
	only := flag.String("brains", "example,generated", "the brains to sweep, separated by commas")
	flag.Parse()
	// Interrupted (Ctrl-C), the sweep prints the counts of the cases that ended.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := sweep(ctx, *bin, *example, *exampleBlocks, *genBlocks, *show, *jobs, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "damagesweep:", err)
		os.Exit(1)
	}
}

func sweep(ctx context.Context, bin, example string, exampleBlocks, genBlocks, show, jobs int, only []string) error {
	bf, err := filepath.Abs(filepath.Join(bin, "bf"))
	if err != nil {
		return err
	}
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	genDir, _, err := brains.Ensure(brains.DefaultCache(), gen.NewPlan(generated), logf)
	if err != nil {
		return err
	}
	genNote, genWord, err := sample(genDir)
	if err != nil {
		return err
	}
	targets := []struct {
		damage.Target
		flag   string
		blocks int
	}{
		{damage.Target{Name: "example", Dir: example, Commands: [][]string{{"search", "ledger"}, {"read"}, {"read", "concepts/ledger.md"}}}, "example", exampleBlocks},
		{damage.Target{Name: "generated-2600", Dir: genDir, Commands: [][]string{{"search", genWord}, {"read"}, {"read", genNote}}}, "generated", genBlocks},
	}
	work, err := os.MkdirTemp("", "bf-damage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var all []damage.Case
	for _, t := range targets {
		if !slices.Contains(only, t.flag) {
			continue
		}
		logf("damaging the cache of %s (%s; blocks: %s; %d at once)…", t.Name, strings.Join(damage.Kinds, ", "), blocksText(t.blocks), jobs)
		start := time.Now()
		ended := damage.Counts{}
		progress := func(c damage.Case) {
			ended[c.Outcome]++
			if n := ended[damage.Correct] + ended[damage.SilentWrong] + ended[damage.HealedError] + ended[damage.PersistentError]; n%100 == 0 {
				logf("%s: %d cases in %s; silent wrong %d, persistent %d", t.Name, n, time.Since(start).Round(time.Second), ended[damage.SilentWrong], ended[damage.PersistentError])
			}
		}
		cases, err := damage.Sweep(ctx, bf, work, t.Target, t.blocks, 1, jobs, progress)
		all = append(all, cases...)
		if ctx.Err() != nil {
			fmt.Printf("interrupted: the counts below are of the %d cases that ended\n", len(all))
			break
		}
		if err != nil {
			return err
		}
		logf("%s: %d cases in %s", t.Name, len(cases), time.Since(start).Round(time.Second))
	}
	report(all, show)
	return nil
}

func blocksText(n int) string {
	if n <= 0 {
		return "every one"
	}
	return fmt.Sprintf("%d spread evenly", n)
}

// sample picks a note of the generated brain to read and a word of its title to search.
func sample(dir string) (note, word string, err error) {
	var notes []string
	filepath.WalkDir(filepath.Join(dir, "concepts"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && filepath.Base(p) != "index.md" {
			notes = append(notes, p)
		}
		return nil
	})
	sort.Strings(notes)
	if len(notes) == 0 {
		return "", "", fmt.Errorf("%s: no note under concepts/", dir)
	}
	f, err := os.Open(notes[0])
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if title, ok := strings.CutPrefix(sc.Text(), "# "); ok {
			for _, w := range strings.Fields(title) {
				if len(w) >= 4 {
					word = strings.ToLower(strings.Trim(w, ".,:;()"))
					break
				}
			}
			break
		}
	}
	if word == "" {
		return "", "", fmt.Errorf("%s: no title word to search", notes[0])
	}
	rel, _ := filepath.Rel(dir, notes[0])
	return filepath.ToSlash(rel), word, nil
}

func report(cases []damage.Case, show int) {
	type key struct{ brain, kind string }
	per := map[key][]damage.Case{}
	var keys []key
	for _, c := range cases {
		k := key{c.Brain, c.Kind}
		if per[k] == nil {
			keys = append(keys, k)
		}
		per[k] = append(per[k], c)
	}
	outcomes := []string{damage.Correct, damage.SilentWrong, damage.HealedError, damage.PersistentError}
	fmt.Printf("%-16s %-7s %6s %8s %13s %20s %17s\n", "brain", "damage", "cases", "correct", "silent wrong", "error, then correct", "persistent error")
	for _, k := range keys {
		n := damage.Count(per[k])
		fmt.Printf("%-16s %-7s %6d %8d %13d %20d %17d\n", k.brain, k.kind, len(per[k]), n[outcomes[0]], n[outcomes[1]], n[outcomes[2]], n[outcomes[3]])
	}
	total := damage.Count(cases)
	fmt.Printf("%-16s %-7s %6d %8d %13d %20d %17d\n", "all", "", len(cases), total[outcomes[0]], total[outcomes[1]], total[outcomes[2]], total[outcomes[3]])
	for _, o := range outcomes[1:] {
		shown := 0
		for _, c := range cases {
			if c.Outcome == o && shown < show {
				fmt.Printf("%s: %s %s block %d, %s: %s\n", o, c.Brain, c.Kind, c.Block, c.Command, c.Detail)
				shown++
			}
		}
	}
}
