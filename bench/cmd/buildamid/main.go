// Command buildamid times bf build alone and amid loops of bf read and bf search on a
// generated brain of 2,600 files, and the longest any reader waited meanwhile: make
// bench-concurrency prints the figures bench/README.md quotes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/brains"
)

func main() {
	bin := flag.String("bin", "bin", "folder holding the bf binary")
	loops := flag.Int("readers", 8, "reader loops, alternating bf read and bf search")
	builds := flag.Int("builds", 4, "builds timed alone and as many amid the readers")
	flag.Parse()
	if err := run(*bin, *loops, *builds); err != nil {
		fmt.Fprintln(os.Stderr, "buildamid:", err)
		os.Exit(1)
	}
}

func run(bin string, loops, builds int) error {
	bf, err := filepath.Abs(filepath.Join(bin, "bf"))
	if err != nil {
		return err
	}
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
	os.RemoveAll(filepath.Join(dir, ".bf"))
	if _, err := bfRun(bf, dir, "build"); err != nil {
		return err
	}
	var alone []time.Duration
	for range builds {
		d, err := bfRun(bf, dir, "build")
		if err != nil {
			return err
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
	fmt.Printf("build alone, median of %d: %s\n", builds, median(alone))
	fmt.Printf("build amid %d reader loops, median of %d: %s (%.2f× alone); failed: %d\n", loops, builds, median(amid), float64(median(amid))/float64(median(alone)), len(buildErrs))
	fmt.Printf("reader commands: %d; median %s, longest %s; failed: %d\n", len(waits), median(waits), waits[len(waits)-1], len(failures))
	for i, e := range append(buildErrs, failures...) {
		if i == 5 {
			break
		}
		fmt.Println("failure:", e)
	}
	return nil
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
