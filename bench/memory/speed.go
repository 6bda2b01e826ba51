package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/memory"
)

// SpeedResult is the wall time of each memory command at each brain size.
type SpeedResult struct {
	Sizes []SpeedAt `json:"sizes"`
}

// SpeedAt is one brain size's measures: wall time, and the CPU time the process used.
type SpeedAt struct {
	Memories int     `json:"memories"`
	Recall   Timings `json:"recall"`
	Hook     Timings `json:"prompt_hook"`
	Brief    Timings `json:"brief"`
	// BriefRepo is bf brief with the brain in a git repository of its own, its notes
	// committed: the brief's code lines then cost git's own time.
	BriefRepo Timings `json:"brief_in_repository"`
	Remember  Timings `json:"remember"`
}

// Timings are one command's runs.
type Timings struct {
	Wall measure.Summary `json:"wall"`
	CPU  measure.Summary `json:"cpu"`
}

type runs struct{ wall, cpu []time.Duration }

func (r *runs) add(s measure.Sample) { r.wall, r.cpu = append(r.wall, s.Wall), append(r.cpu, s.CPU) }

func (r *runs) summary() Timings {
	return Timings{Wall: measure.Summarize(r.wall), CPU: measure.Summarize(r.cpu)}
}

// notesSettle is how long after its notes are written a brain is measured: more than the
// two seconds within which a note's parse is not kept (libbf/memory/notecache.go).
const notesSettle = 2500 * time.Millisecond

// Goals of issue #35, in milliseconds at the median.
const (
	goalRead     = 50
	goalRemember = 60
)

// The queries recall and the hook run, in turn: two words, a sentence, a rare word.
var speedQueries = []string{
	"rollback pipeline",
	"what did we decide about the billing export schedule",
	"quota",
	"database latency after the migration",
	"who owns the staging cluster",
}

func runSpeed(o options, dir string) (*SpeedResult, error) {
	bf, err := measure.BF(o.bin)
	if err != nil {
		return nil, err
	}
	// The brains are kept inside bf's own checkout (bench/cache): without a ceiling, the
	// brief's git commands would report on that repository, whatever its size. They are
	// measured outside any repository, then in one of their own (BriefRepo).
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.Setenv("GIT_CEILING_DIRECTORIES", abs); err != nil {
		return nil, err
	}
	res := &SpeedResult{}
	for _, f := range strings.Split(o.sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a count of memories", f)
		}
		root := filepath.Join(dir, strconv.Itoa(n))
		logf("speed: writing a brain of %d memories", n)
		if err := writeMemories(root, n); err != nil {
			return nil, err
		}
		written := time.Now()
		if s, err := measure.Run(root, bf, "build"); err != nil || s.Exit != 0 {
			return nil, fmt.Errorf("bf build of %d memories: %v %s", n, err, s.Stderr)
		}
		// A note modified within the last two seconds is parsed again by every command
		// (its modification time could still change without its size: memory-notes.bin
		// keeps no parse of it). A brain written a moment ago is the bench's, not a
		// session's: the runs start once every note is older than that.
		time.Sleep(time.Until(written.Add(notesSettle)))
		at := SpeedAt{Memories: n}
		var recall, hook, brief, save runs
		// One unmeasured run of each first: the page cache holds the brain afterwards, as
		// it does for a session that has been working in it.
		for i := -1; i < o.reps; i++ {
			q := speedQueries[max(i, 0)%len(speedQueries)]
			r, err := timed(root, nil, bf, "recall", q)
			if err != nil {
				return nil, err
			}
			event := fmt.Appendf(nil, `{"hook_event_name":"UserPromptSubmit","prompt":%q,"cwd":%q}`, q, root)
			h, err := timed(root, event, bf, "recall", "--hook", "user-prompt")
			if err != nil {
				return nil, err
			}
			b, err := timed(root, nil, bf, "brief")
			if err != nil {
				return nil, err
			}
			title, body := memoryText(rand.New(rand.NewPCG(uint64(n), uint64(1_000_000+i))), i)
			s, err := timed(root, nil, bf, "remember", "--type", "fact", "--title", title, "--body", body)
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				recall.add(r)
				hook.add(h)
				brief.add(b)
				save.add(s)
			}
		}
		at.Recall, at.Hook, at.Brief, at.Remember = recall.summary(), hook.summary(), brief.summary(), save.summary()
		if at.BriefRepo, err = briefInRepository(root, bf, o.reps); err != nil {
			return nil, err
		}
		logf("speed: %d memories: recall %s, hook %s, brief %s (in a repository %s), remember %s", n,
			measure.Millis(at.Recall.Wall.Median), measure.Millis(at.Hook.Wall.Median), measure.Millis(at.Brief.Wall.Median),
			measure.Millis(at.BriefRepo.Wall.Median), measure.Millis(at.Remember.Wall.Median))
		res.Sizes = append(res.Sizes, at)
	}
	return res, nil
}

// briefInRepository makes the brain a git repository with its notes committed (its
// cache and logs ignored) and times bf brief there, once unmeasured first.
func briefInRepository(root, bf string, reps int) (Timings, error) {
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".bf/\nlogs/\n"), 0o644); err != nil {
		return Timings{}, err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "memories"}} {
		if s, err := measure.Run(root, "git", args...); err != nil || s.Exit != 0 {
			return Timings{}, fmt.Errorf("git %s: %v %s", strings.Join(args, " "), err, s.Stderr)
		}
	}
	var brief runs
	for i := -1; i < reps; i++ {
		b, err := timed(root, nil, bf, "brief")
		if err != nil {
			return Timings{}, err
		}
		if !strings.Contains(string(b.Stdout), `"name":"code"`) {
			return Timings{}, fmt.Errorf("bf brief in a repository: no line on the code's state:\n%s", b.Stdout)
		}
		if i >= 0 {
			brief.add(b)
		}
	}
	return brief.summary(), nil
}

func timed(dir string, stdin []byte, name string, args ...string) (measure.Sample, error) {
	s, err := measure.RunInput(dir, stdin, name, args...)
	if err != nil {
		return s, err
	}
	if s.Exit != 0 {
		return s, fmt.Errorf("%s: exit %d: %s", strings.Join(args, " "), s.Exit, s.Stderr)
	}
	return s, nil
}

// memoryTypes are the types the generated memories take, in turn.
var memoryTypes = []string{"fact", "decision", "gotcha", "infra", "preference", "state", "incident", "policy"}

// writeMemories makes a fresh brain of n memory notes, written as bf remember writes
// them (memory.Store.Write) without its guards, which would make generating 5,000 a
// quadratic wait. Titles of 6–10 words from the generator's vocabulary, bodies of 20–60;
// every byte is a function of n and the memory's index.
func writeMemories(root string, n int) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "bf.yaml"), []byte("version: 8\nname: memory-speed\n"), 0o644); err != nil {
		return err
	}
	b, err := brain.Open(root)
	if err != nil {
		return err
	}
	s := &memory.Store{Brain: b}
	if err := s.DeclareFields(); err != nil {
		return err
	}
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		rng := rand.New(rand.NewPCG(uint64(n), uint64(i)))
		title, body := memoryText(rng, i)
		m := &memory.Memory{Ref: fmt.Sprintf("%s/m%05d.md", memory.Folder, i), Title: title, Body: body,
			Type: memoryTypes[i%len(memoryTypes)], Importance: 1 + rng.IntN(5), Confidence: memory.Reported,
			Trust: memory.DefaultTrust, Scope: memory.DefaultScope, Saved: start.Add(time.Duration(i) * time.Hour)}
		if err := s.Write(m); err != nil {
			return err
		}
	}
	return nil
}

// memoryText is a memory's title and body; the index in the title keeps titles apart.
func memoryText(rng *rand.Rand, i int) (title, body string) {
	words := gen.ContentWords()
	pick := func(n int) []string {
		out := make([]string, n)
		for j := range out {
			// Lower ranks are more common, as in prose.
			out[j] = words[int(float64(len(words))*rng.Float64()*rng.Float64())]
		}
		return out
	}
	t := pick(5 + rng.IntN(5))
	title = strings.Join(append(t, "n"+strconv.Itoa(i)), " ")
	bw := pick(20 + rng.IntN(41))
	bw[0] = strings.ToUpper(bw[0][:1]) + bw[0][1:]
	return title, strings.Join(bw, " ") + "."
}

// Markdown is the speed table: one row per command, one column per size, the goal last.
func (r *SpeedResult) Markdown() string {
	var b strings.Builder
	b.WriteString("### Memory commands by brain size: median wall time (p95), and median CPU time\n\n| command |")
	for _, s := range r.Sizes {
		fmt.Fprintf(&b, " %d memories |", s.Memories)
	}
	b.WriteString(" goal |\n| --- |")
	for range r.Sizes {
		b.WriteString(" ---: |")
	}
	b.WriteString(" ---: |\n")
	rows := []struct {
		name string
		get  func(SpeedAt) Timings
		goal int
	}{
		{"`bf recall QUERY`", func(s SpeedAt) Timings { return s.Recall }, goalRead},
		{"`bf recall --hook user-prompt` (UserPromptSubmit)", func(s SpeedAt) Timings { return s.Hook }, goalRead},
		{"`bf brief`", func(s SpeedAt) Timings { return s.Brief }, goalRead},
		{"`bf brief`, the brain in a git repository", func(s SpeedAt) Timings { return s.BriefRepo }, goalRead},
		{"`bf remember`", func(s SpeedAt) Timings { return s.Remember }, goalRemember},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s |", row.name)
		for _, s := range r.Sizes {
			m := row.get(s)
			fmt.Fprintf(&b, " %s (%s), CPU %s |", measure.Millis(m.Wall.Median), measure.Millis(m.Wall.P95), measure.Millis(m.CPU.Median))
		}
		fmt.Fprintf(&b, " ≤ %d ms |\n", row.goal)
	}
	b.WriteString("\n")
	return b.String()
}
