// Command buildamid times bf build alone and amid loops of bf read and bf search on a
// generated brain of 2,600 files, and the longest any reader waited meanwhile: make
// bench-concurrency prints the figures bench/README.md quotes. Given several bin folders
// (-bin old,new) it measures them in turn, round after round, so that binaries compared
// share the machine's conditions, and prints each one's medians over the rounds.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/brains"
)

func main() {
	bins := flag.String("bin", "bin", "folders holding the bf binaries, separated by commas")
	loops := flag.Int("readers", 8, "reader loops, alternating bf read and bf search")
	builds := flag.Int("builds", 4, "builds timed alone and as many amid the readers")
	rounds := flag.Int("rounds", 1, "rounds, each measuring every bin folder in turn")
	flag.Parse()
	if err := run(strings.Split(*bins, ","), *loops, *builds, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "buildamid:", err)
		os.Exit(1)
	}
}

// result is one measurement of one set of binaries.
type result struct {
	alone, amid     time.Duration // medians of the builds
	buildsFailed    int
	readers         int
	reader, longest time.Duration // the readers' median and longest command
	readersFailed   int
	failures        []string
}

func (r result) ratio() float64 { return float64(r.amid) / float64(r.alone) }

func run(bins []string, loops, builds, rounds int) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	brain, _, err := brains.Ensure(brains.DefaultCache(), gen.NewPlan(gen.Config{Notes: 600, Records: 2_000, Seed: 1}), logf)
	if err != nil {
		return err
	}
	// A working copy, so the cached brain's .bf is never touched.
	work, err := os.MkdirTemp("", "bf-buildamid-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "brain")
	if out, err := exec.Command("cp", "-r", brain, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the brain: %v: %s", err, out)
	}
	all := map[string][]result{}
	for round := range rounds {
		for _, bin := range bins {
			bf, err := filepath.Abs(filepath.Join(bin, "bf"))
			if err != nil {
				return err
			}
			r, err := measure(bf, dir, loops, builds)
			if err != nil {
				return err
			}
			all[bin] = append(all[bin], r)
			fmt.Printf("round %d, %s: build alone %s, amid %d reader loops %s (%.2f× alone), builds failed %d; reader commands %d, median %s, longest %s, failed %d\n",
				round+1, bin, r.alone, loops, r.amid, r.ratio(), r.buildsFailed, r.readers, r.reader, r.longest.Round(time.Millisecond), r.readersFailed)
			for i, e := range r.failures {
				if i == 5 {
					break
				}
				fmt.Println("failure:", e)
			}
		}
	}
	if rounds > 1 {
		for _, bin := range bins {
			rs := all[bin]
			pick := func(f func(result) float64) float64 {
				v := make([]float64, len(rs))
				for i, r := range rs {
					v[i] = f(r)
				}
				sort.Float64s(v)
				return v[len(v)/2]
			}
			sec := func(d time.Duration) float64 { return d.Seconds() }
			fmt.Printf("%s, medians of %d rounds: build alone %.2f s, amid %.2f s, ratio %.2f×; reader median %.0f ms, longest %.0f ms\n",
				bin, len(rs), pick(func(r result) float64 { return sec(r.alone) }), pick(func(r result) float64 { return sec(r.amid) }),
				pick(result.ratio), pick(func(r result) float64 { return sec(r.reader) * 1000 }), pick(func(r result) float64 { return sec(r.longest) * 1000 }))
		}
	}
	return nil
}

// measure times builds alone, then amid the reader loops, with the binary bf.
func measure(bf, dir string, loops, builds int) (result, error) {
	os.RemoveAll(filepath.Join(dir, ".bf"))
	if _, err := bfRun(bf, dir, "build"); err != nil {
		return result{}, err
	}
	var alone []time.Duration
	for range builds {
		d, err := bfRun(bf, dir, "build")
		if err != nil {
			return result{}, err
		}
		alone = append(alone, d)
	}
	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		mu       sync.Mutex
		waits    []time.Duration
		failures []string
	)
	for i := range loops {
		args := []string{"read"}
		if i%2 == 1 {
			args = []string{"search", "report"}
		}
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, err := bfRun(bf, dir, args...)
				mu.Lock()
				waits = append(waits, d)
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(time.Second) // the loops are running
	var amid []time.Duration
	var buildErrs []string
	for range builds {
		d, err := bfRun(bf, dir, "build")
		if err != nil {
			buildErrs = append(buildErrs, err.Error())
		}
		amid = append(amid, d)
	}
	close(stop)
	wg.Wait()
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	return result{
		alone: median(alone), amid: median(amid), buildsFailed: len(buildErrs),
		readers: len(waits), reader: median(waits), longest: waits[len(waits)-1], readersFailed: len(failures),
		failures: append(buildErrs, failures...),
	}, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Millisecond)
}

func bfRun(bf, dir string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bf, args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("bf %v after %s: %v: %s", args, d.Round(time.Millisecond), err, bytes.TrimSpace(errb.Bytes()))
	}
	return d, nil
}
