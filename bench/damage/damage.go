// Package damage measures what bf answers from a damaged cache. It damages one 4 KiB block
// of a brain's .bf/index.sqlite at a time (zeroed, random bytes, one flipped bit), runs the
// same commands against it and compares each reply with the reply of the undamaged cache.
// A reply that differs while bf exits 0 is a silent wrong answer; a failure is run again:
// a failure on both runs is a persistent error, a failure on the first run only is an
// error that healed.
package damage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// BlockSize is the unit of damage, the page size of the cache.
const BlockSize = 4096

// Kinds are the ways a block is damaged.
var Kinds = []string{"zero", "random", "flip"}

// Target is one brain and the commands asked of it.
type Target struct {
	Name     string
	Dir      string     // the brain; it is copied, never changed
	Commands [][]string // bf arguments, such as {"search", "ledger"}
}

// Case is one damaged block and one command's outcome.
type Case struct {
	Brain   string
	Kind    string
	Block   int
	Command string
	Outcome string // Correct, SilentWrong, HealedError or PersistentError
	Detail  string // the first reply's stderr when it failed, or its stdout when wrong
}

// Outcomes.
const (
	Correct         = "correct"
	SilentWrong     = "silent wrong"
	HealedError     = "error, then correct"
	PersistentError = "persistent error"
)

// Counts sums outcomes.
type Counts map[string]int

// Sweep damages blocks of target's cache, in each way of Kinds: every block, or at most
// limit blocks evenly spread over the file (limit > 0). work is a scratch folder. jobs cases
// run at once, each worker on its own copy of the brain with its own build (a case rebuilds
// the cache it damaged, so cases on one copy cannot overlap). It returns each case, in the
// order of blocks, kinds and commands whatever jobs is; done, when set, is called as each
// case ends. When ctx ends, the cases running finish and Sweep returns the cases that
// ended, with ctx's error: blocks come first, so a sweep cut short has damaged its first
// blocks in every way.
func Sweep(ctx context.Context, bf, work string, target Target, limit int, seed uint64, jobs int, done func(Case)) ([]Case, error) {
	jobs = max(1, jobs)
	workers := make([]*worker, jobs)
	for w := range workers {
		var err error
		if workers[w], err = newWorker(bf, filepath.Join(work, fmt.Sprintf("%s-%d", target.Name, w)), target); err != nil {
			return nil, err
		}
	}
	// The block numbers are those of the first copy's cache; every copy is a build of the
	// same files, and one of another size or with other replies would damage other blocks.
	first := workers[0]
	for _, w := range workers[1:] {
		if len(w.original.data) != len(first.original.data) {
			return nil, fmt.Errorf("two builds of %s left caches of %d and %d bytes; run the sweep with one job", target.Name, len(first.original.data), len(w.original.data))
		}
		for i := range w.want {
			if !bytes.Equal(w.want[i].stdout, first.want[i].stdout) {
				return nil, fmt.Errorf("two builds of %s answer bf %s differently; run the sweep with one job", target.Name, strings.Join(target.Commands[i], " "))
			}
		}
	}
	var todo []Case
	for _, block := range spread(len(first.original.data), limit) {
		for _, kind := range Kinds {
			for _, args := range target.Commands {
				todo = append(todo, Case{Brain: target.Name, Kind: kind, Block: block, Command: "bf " + strings.Join(args, " ")})
			}
		}
	}
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// Each case's random bytes and flipped bit follow from the seed and the case
				// alone, so a case damages the same way whichever worker runs it.
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				if err := w.run(&todo[i], i%len(target.Commands), rng); err != nil {
					fail(err)
				} else if done != nil {
					mu.Lock()
					done(todo[i])
					mu.Unlock()
				}
			}
			if err := w.original.restore(w.index); err != nil {
				fail(err)
			}
		}()
	}
dispatch:
	for i := range todo {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		var ended []Case
		for _, c := range todo {
			if c.Outcome != "" {
				ended = append(ended, c)
			}
		}
		return ended, err
	}
	return todo, nil
}

// worker is one copy of a target brain with its undamaged cache and replies.
type worker struct {
	bf, brain, index string
	target           Target
	original         *original
	want             []reply
}

func newWorker(bf, brain string, target Target) (*worker, error) {
	if err := os.RemoveAll(brain); err != nil {
		return nil, err
	}
	if err := copyTree(target.Dir, brain); err != nil {
		return nil, fmt.Errorf("copying %s: %w", target.Dir, err)
	}
	if out, err := run(bf, brain, "build"); err != nil {
		return nil, fmt.Errorf("bf build of %s: %v: %s", target.Name, err, out.stderr)
	}
	w := &worker{bf: bf, brain: brain, index: filepath.Join(brain, ".bf", "index.sqlite"), target: target}
	var err error
	if w.original, err = keep(w.index, brain+".pristine"); err != nil {
		return nil, err
	}
	w.want = make([]reply, len(target.Commands))
	for i, args := range target.Commands {
		w.want[i], err = run(bf, brain, args...)
		if err != nil {
			return nil, fmt.Errorf("bf %s on the undamaged cache: %v: %s", strings.Join(args, " "), err, w.want[i].stderr)
		}
	}
	return w, nil
}

// run damages the undamaged cache as c says, runs command once, and again only when the
// first run failed: a first reply that succeeds decides the outcome alone.
func (w *worker) run(c *Case, command int, rng *rand.Rand) error {
	if err := w.original.restore(w.index); err != nil {
		return err
	}
	if err := damageBlock(w.index, w.original.data, c.Block, c.Kind, rng); err != nil {
		return err
	}
	args, want := w.target.Commands[command], w.want[command].stdout
	first, err := run(w.bf, w.brain, args...)
	switch {
	case err == nil && bytes.Equal(first.stdout, want):
		c.Outcome = Correct
	case err == nil:
		c.Outcome, c.Detail = SilentWrong, clip(string(first.stdout))
	default:
		second, err2 := run(w.bf, w.brain, args...)
		if err2 == nil && bytes.Equal(second.stdout, want) {
			c.Outcome, c.Detail = HealedError, clip(first.stderr)
		} else {
			c.Outcome, c.Detail = PersistentError, clip(first.stderr)
		}
	}
	return nil
}

// spread returns the blocks of a file of size bytes to damage: every block, or limit
// blocks evenly spread, the first and the last included.
func spread(size, limit int) []int {
	blocks := (size + BlockSize - 1) / BlockSize
	if limit <= 0 || limit >= blocks {
		limit = blocks
	}
	out := make([]int, 0, limit)
	for i := range limit {
		b := i * (blocks - 1) / max(1, limit-1)
		if limit == 1 {
			b = 0
		}
		out = append(out, b)
	}
	return out
}

// Count sums the outcomes of cases.
func Count(cases []Case) Counts {
	n := Counts{}
	for _, c := range cases {
		n[c.Outcome]++
	}
	return n
}

// original is the undamaged generation as the build left it. The cache refuses a copy of
// itself (it records its file's inode), and a rebuild replaces the file: a hard link keeps
// the original inode, so each case starts from the very file the build wrote, with the
// files the build left beside it (its seal).
type original struct {
	link   string // a hard link to the build's file
	data   []byte
	mtime  time.Time
	beside map[string][]byte // .bf files other than the generation and its locks
}

// besideNames are the files a build leaves beside the generation that describe it.
var besideNames = []string{"index.sqlite.seal"}

func keep(index, link string) (*original, error) {
	os.Remove(link)
	if err := os.Link(index, link); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(index)
	if err != nil {
		return nil, err
	}
	o := &original{link: link, data: data, mtime: st.ModTime(), beside: map[string][]byte{}}
	for _, name := range besideNames {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(index), name)); err == nil {
			o.beside[name] = b
		}
	}
	return o, nil
}

// restore puts the undamaged generation back, in its own inode, and removes what a run
// left beside it.
func (o *original) restore(index string) error {
	dir := filepath.Dir(index)
	for _, suffix := range []string{"-wal", "-shm", "-journal", ".new", ".new-journal", ".new-tables", ".new-tables-journal"} {
		if err := os.Remove(index + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	cur, err1 := os.Stat(index)
	orig, err2 := os.Stat(o.link)
	if err2 != nil {
		return err2
	}
	if err1 != nil || !os.SameFile(cur, orig) {
		if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.Link(o.link, index); err != nil {
			return err
		}
	}
	if err := os.WriteFile(index, o.data, 0o600); err != nil {
		return err
	}
	if err := os.Chtimes(index, o.mtime, o.mtime); err != nil {
		return err
	}
	for _, name := range besideNames {
		p := filepath.Join(dir, name)
		if b, ok := o.beside[name]; ok {
			if err := os.WriteFile(p, b, 0o600); err != nil {
				return err
			}
		} else if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// damageBlock changes block of the file in place, as dd conv=notrunc would.
func damageBlock(index string, pristine []byte, block int, kind string, rng *rand.Rand) error {
	start := block * BlockSize
	end := min(start+BlockSize, len(pristine))
	data := make([]byte, end-start)
	copy(data, pristine[start:end])
	switch kind {
	case "zero":
		clear(data)
	case "random":
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
	case "flip":
		bit := rng.IntN(len(data) * 8)
		data[bit/8] ^= 1 << (bit % 8)
	default:
		return fmt.Errorf("unknown damage %q; use zero, random or flip", kind)
	}
	f, err := os.OpenFile(index, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, int64(start)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type reply struct {
	stdout []byte
	stderr string
}

func run(bf, dir string, args ...string) (reply, error) {
	cmd := exec.Command(bf, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return reply{out.Bytes(), errb.String()}, err
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// copyTree copies the regular files and folders of src into dst, leaving out src's .bf.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == ".bf" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case info.IsDir():
			return os.MkdirAll(target, 0o755)
		case info.Mode().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
			return os.Chtimes(target, info.ModTime(), info.ModTime())
		}
		return nil
	})
}
