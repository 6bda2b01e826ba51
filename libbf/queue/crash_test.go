//go:build unix

package queue

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A crash test re-executes the test binary as a child that runs crashScript in a folder
// and SIGKILLs itself at the Nth crash point: the queue's own points (a transaction begun,
// about to commit, committed, rows written inside it) and, on Linux, every write,
// truncation and deletion SQLite makes, which puts points inside each commit. The parent
// then opens the queue and checks that the interrupted write was rolled back, that the
// queue holds exactly the state before or after the interrupted step, and that recovery
// then records every interrupted attempt as its policy says.
const (
	crashDirEnv = "BF_QUEUE_TEST_CRASH_DIR"
	crashAtEnv  = "BF_QUEUE_TEST_CRASH_AT"
)

// crashOptions shrinks the page cache so that transactions with large bodies write pages
// into the database before they commit: a kill then leaves a journal that matters.
func crashOptions(c *clock) Options { return Options{Now: c.Now, cachePages: 4} }

type scriptState struct {
	q        *Queue
	c        *clock
	dir      string
	attempts map[string]*Attempt
	runs     map[string]*Run
}

type scriptStep struct {
	name    string
	advance time.Duration
	run     func(s *scriptState) error
}

var (
	bigText   = strings.Repeat("A long text that spills pages. ", 800) // about 25 KB
	bigAnswer = []byte(strings.Repeat("The saved answer. ", 1200))     // about 22 KB
)

func crashJob(id, assistant string, route Send) NewJob {
	return NewJob{ID: id, Assistant: assistant, Kind: "message", Channel: "chat", Conversation: "t-" + id,
		Input: []byte("input of " + id), Config: []byte("config " + assistant), MaxBytes: 1 << 20,
		Routes: []Route{{Channel: "chat", Conversation: "t-" + id, Send: route}}}
}

var crashConfig = JobConfig{Assistant: []byte("config helper"), Channels: map[string]Send{"chat": idem}}

func begin(id string, send Send) func(*scriptState) error {
	return func(s *scriptState) error {
		a, err := s.q.BeginAttempt(id, &send)
		s.attempts[id] = a
		return err
	}
}

func finish(id string, o Outcome) func(*scriptState) error {
	return func(s *scriptState) error {
		_, err := s.attempts[id].Finish(o)
		return err
	}
}

func admit(d NewDelivery) func(*scriptState) error {
	return func(s *scriptState) error {
		_, _, err := s.q.AdmitDelivery(d)
		return err
	}
}

// crashScript is the work the child does: every kind of commit the queue makes, with
// attempts left sending or running in the killed process.
var crashScript = []scriptStep{
	{name: "open", run: func(s *scriptState) error {
		var err error
		s.q, err = Open(s.dir, testBinding, crashOptions(s.c))
		return err
	}},
	{name: "admit standalone idempotent", run: admit(NewDelivery{ID: "s-idem", Channel: "chat", Conversation: "t1", Text: bigText, Send: idem})},
	{name: "admit standalone default", run: admit(NewDelivery{ID: "s-plain", Channel: "desktop", Text: "The review is ready.", Send: nonIdem})},
	{name: "begin s-idem", run: begin("s-idem", idem)},
	{name: "fail s-idem", run: finish("s-idem", SendFailed("send exited with status 1"))},
	{name: "begin s-plain (left sending)", run: begin("s-plain", nonIdem)},
	{name: "admit job j1", run: func(s *scriptState) error {
		_, _, err := s.q.AdmitJob(crashJob("j1", "helper", idem))
		return err
	}},
	{name: "admit job j2", run: func(s *scriptState) error {
		j := crashJob("j2", "helper", idem)
		j.Input = []byte(bigText)
		_, _, err := s.q.AdmitJob(j)
		return err
	}},
	{name: "start j1", run: func(s *scriptState) error {
		r, err := s.q.StartJob("j1", crashConfig)
		s.runs["j1"] = r
		return err
	}},
	{name: "answer j1", run: func(s *scriptState) error {
		_, err := s.runs["j1"].Answer(bigAnswer)
		return err
	}},
	{name: "begin j1.1", run: begin("j1.1", idem)},
	{name: "fail j1.1", run: finish("j1.1", SendFailed("send timed out after 300 seconds"))},
	{name: "begin j1.1 again", advance: 2 * time.Second, run: begin("j1.1", idem)},
	{name: "deliver j1.1", run: finish("j1.1", Sent(Receipt{ID: "m-100", Conversation: "t-j1"}))},
	{name: "start j2 (left running)", run: func(s *scriptState) error {
		r, err := s.q.StartJob("j2", crashConfig)
		s.runs["j2"] = r
		return err
	}},
	{name: "admit messages", advance: time.Second, run: func(s *scriptState) error {
		_, err := s.q.AdmitMessages(Batch{Channel: "chat", Input: "helper/chat",
			Messages: []Message{
				{ID: "m-2", Sender: "dana", Conversation: "t2", Time: epoch.Add(2 * time.Second), Text: bigText},
				{ID: "m-1", Sender: "dana", Conversation: "t1", Time: epoch.Add(time.Second), Text: "What needs my attention?"},
				{ID: "m-100", Sender: "bot", Conversation: "t-j1", Time: epoch, Text: "echo"},
			},
			Done: Progress{Position: epoch.Add(time.Minute)},
			Jobs: func(m Message) []NewJob { return []NewJob{crashJob("job-"+m.ID, "helper", idem)} },
		})
		return err
	}},
	{name: "retry s-idem", run: func(s *scriptState) error {
		_, err := s.q.Retry("s-idem")
		return err
	}},
	{name: "begin s-idem again", run: begin("s-idem", idem)},
	{name: "deliver s-idem", run: finish("s-idem", Sent(Receipt{ID: "m-200", Conversation: "t1"}))},
	{name: "cancel job-m-1", run: func(s *scriptState) error {
		_, err := s.q.Cancel("job-m-1")
		return err
	}},
	{name: "start job-m-2", run: func(s *scriptState) error {
		r, err := s.q.StartJob("job-m-2", crashConfig)
		s.runs["job-m-2"] = r
		return err
	}},
	{name: "answer job-m-2", run: func(s *scriptState) error {
		_, err := s.runs["job-m-2"].Answer([]byte("Short answer."))
		return err
	}},
	{name: "begin job-m-2.1 (left sending)", run: begin("job-m-2.1", idem)},
	{name: "compact after the tombstone age", advance: 36 * 24 * time.Hour, run: func(s *scriptState) error { return s.q.Compact() }},
	{name: "admit s-idem anew", run: admit(NewDelivery{ID: "s-idem", Channel: "chat", Conversation: "t9", Text: "A new send under a reused ID.", Send: idem})},
}

// crashChild runs crashScript in dir, killing itself at point BF_QUEUE_TEST_CRASH_AT
// (never when 0, which lists every point instead).
func crashChild(dir string) {
	at, _ := strconv.Atoi(os.Getenv(crashAtEnv))
	step, n := 0, 0
	point := func(name string) {
		n++
		if at == 0 {
			fmt.Fprintf(os.Stdout, "point %d %d %s\n", n, step, name)
		}
		if n == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	crashHook = point
	if err := hookIO(point); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	s := &scriptState{c: newClock(), dir: dir, attempts: map[string]*Attempt{}, runs: map[string]*Run{}}
	for i, st := range crashScript {
		step = i
		s.c.Add(st.advance)
		fmt.Fprintf(os.Stdout, "step %d\n", i)
		if err := st.run(s); err != nil {
			fmt.Printf("error: step %d %s: %v\n", i, st.name, err)
			os.Exit(1)
		}
	}
	fmt.Println("end")
	os.Exit(0)
}

// snapRow is what the crash test compares of one job or delivery.
type snapRow struct {
	Type, State, Error, Job string
	Attempts                int
	NextAttempt             time.Time
	Idempotent              bool
	Body                    string
	BodyExpired             bool
	History                 []string
}

func snapshot(t *testing.T, q *Queue) map[string]snapRow {
	t.Helper()
	items, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	snap := map[string]snapRow{}
	for _, it := range items {
		if _, dup := snap[it.ID]; dup {
			t.Fatalf("%s listed twice", it.ID)
		}
		d := mustGet(t, q, it.ID)
		r := snapRow{Type: it.Type, State: string(it.State), Error: it.Error, Job: it.Job, Attempts: it.Attempts,
			NextAttempt: it.NextAttempt, BodyExpired: d.BodyExpired}
		if d.Text != nil {
			r.Body = *d.Text
		}
		if d.Send != nil {
			r.Idempotent = d.Send.Idempotent
		}
		if it.Type == "job" {
			r.Body = string(d.Input) + "|" + string(d.Answer)
		}
		for _, a := range d.History {
			r.History = append(r.History, fmt.Sprintf("%d %s %s", a.N, a.Outcome, a.Error))
		}
		snap[it.ID] = r
	}
	// Admitted messages and input progress are obligations too.
	err = q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT 'message ' || channel || ' ' || id, coalesce(text, '') FROM messages
			UNION ALL SELECT 'input ' || name, position || ' ' || cursor FROM inputs`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key, body string
			if err := rows.Scan(&key, &body); err != nil {
				return err
			}
			snap[key] = snapRow{Type: "admission", Body: body}
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// recovered is snap after Recover at now, stated independently of the code: a sending
// delivery follows its channel's policy and a running job becomes uncertain.
func recovered(snap map[string]snapRow, now time.Time) map[string]snapRow {
	out := map[string]snapRow{}
	for id, r := range snap {
		if r.State == "sending" || r.State == "running" {
			// The attempt that was running, the last, ends as interrupted.
			n := len(r.History)
			reason := map[string]string{"sending": "interrupted send", "running": "interrupted harness attempt"}[r.State]
			r.History = append(slices.Clone(r.History[:n-1]), fmt.Sprintf("%d interrupted %s", n, reason))
		}
		switch {
		case r.Type == "delivery" && r.State == "sending" && !r.Idempotent:
			r.State, r.Error = "uncertain", "interrupted send; inspect before retrying"
		case r.Type == "delivery" && r.State == "sending" && r.Job == "":
			r.State, r.Error = "failed", "interrupted send; retry it with bf queue "+id+" --retry"
		case r.Type == "delivery" && r.State == "sending":
			r.State, r.Error = "pending", "interrupted send"
			r.NextAttempt = now.Add(2 * time.Second << (r.Attempts - 1))
		case r.Type == "job" && r.State == "running":
			r.State, r.Error = "uncertain", "interrupted harness attempt; inspect before retrying"
		}
		out[id] = r
	}
	return out
}

// uninterrupted runs crashScript in this process and returns the snapshot and clock before
// each step and after the last.
func uninterrupted(t *testing.T) ([]map[string]snapRow, []time.Time) {
	s := &scriptState{c: newClock(), dir: testDir(t), attempts: map[string]*Attempt{}, runs: map[string]*Run{}}
	snaps := []map[string]snapRow{{}}
	times := []time.Time{s.c.Now()}
	for i, st := range crashScript {
		s.c.Add(st.advance)
		if err := st.run(s); err != nil {
			t.Fatalf("step %d %s: %v", i, st.name, err)
		}
		snaps = append(snaps, snapshot(t, s.q))
		times = append(times, s.c.Now())
	}
	s.q.Close()
	return snaps, times
}

type crashPointInfo struct {
	n    int
	step int
	name string
}

func listCrashPoints(t *testing.T) []crashPointInfo {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(childEnv(), crashDirEnv+"="+testDir(t), crashAtEnv+"=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	var points []crashPointInfo
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) != 4 || f[0] != "point" {
			continue
		}
		n, err1 := strconv.Atoi(f[1])
		step, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("dry run printed %q", sc.Text())
		}
		points = append(points, crashPointInfo{n: n, step: step, name: f[3]})
	}
	if !strings.HasSuffix(string(out), "end\n") {
		t.Fatalf("dry run did not finish:\n%s", out)
	}
	return points
}

// choose keeps every point of the queue's own and, of each run of SQLite I/O points
// between two of them (the writes of a statement that spilled pages, or of one commit),
// the first, the middle and the last two: the journal being written, the database being
// written after the journal was synced, and the deletion of the journal that commits.
// Under the race detector, which slows every child down, it keeps the last only.
func choose(points []crashPointInfo) []crashPointInfo {
	var out, run []crashPointInfo
	flush := func() {
		keep := map[int]bool{len(run) - 1: true}
		if !raceEnabled {
			keep[0], keep[len(run)/2], keep[len(run)-2] = true, true, true
		}
		for i, p := range run {
			if keep[i] {
				out = append(out, p)
			}
		}
		run = nil
	}
	for _, p := range points {
		if strings.HasPrefix(p.name, "io ") {
			run = append(run, p)
			continue
		}
		flush()
		out = append(out, p)
	}
	flush()
	return out
}

// crashRun is one killed child.
type crashRun struct {
	dir string
	out []byte
	err error
}

// killAll runs a child for each point, several at a time: they mostly wait for locks and
// the disk.
func killAll(t *testing.T, points []crashPointInfo) []crashRun {
	base := testDir(t)
	runs := make([]crashRun, len(points))
	sem := make(chan struct{}, 4*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range points {
		runs[i].dir = filepath.Join(base, strconv.Itoa(p.n))
		if err := os.Mkdir(runs[i].dir, 0o700); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(childEnv(), crashDirEnv+"="+runs[i].dir, crashAtEnv+"="+strconv.Itoa(p.n))
			runs[i].out, runs[i].err = cmd.Output()
		}()
	}
	wg.Wait()
	return runs
}

func TestCrashRecovery(t *testing.T) {
	snaps, times := uninterrupted(t)
	points := choose(listCrashPoints(t))
	if len(points) < 50 {
		t.Fatalf("only %d crash points", len(points))
	}
	runs := killAll(t, points)
	var inCommit atomic.Int32
	t.Run("points", func(t *testing.T) {
		for i, p := range points {
			t.Run(fmt.Sprintf("%04d-%s", p.n, strings.ReplaceAll(p.name, " ", "_")), func(t *testing.T) {
				t.Parallel()
				checkCrash(t, p, runs[i], snaps, times, &inCommit)
			})
		}
	})
	if inCommit.Load() < 20 {
		t.Errorf("only %d kills left a hot journal inside a commit", inCommit.Load())
	}
	t.Logf("%d crash points, %d of them inside a commit with a hot journal", len(points), inCommit.Load())
}

// checkCrash checks the queue a child killed at point p left in run.dir.
func checkCrash(t *testing.T, p crashPointInfo, run crashRun, snaps []map[string]snapRow, times []time.Time, inCommit *atomic.Int32) {
	dir, out, err := run.dir, run.out, run.err
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed at point %d (%s): %v\n%s", p.n, p.name, err, out)
	}
	step := lastStep(out)
	if step != p.step {
		t.Fatalf("child died in step %d, the dry run put point %d in step %d", step, p.n, p.step)
	}
	file := filepath.Join(dir, FileName)
	journal := file + "-journal"
	hot := hotJournal(t, journal)
	if hot && strings.HasPrefix(p.name, "io ") {
		inCommit.Add(1)
	}

	// A reader must not roll the journal back: it reports the interrupted write.
	ro, err := OpenReadOnly(dir, Options{})
	switch {
	case hot:
		checkErr(t, err, errInterruptedWrite, "assistant queue holds an interrupted write; run bf queue to recover it")
	case errors.Is(err, fs.ErrNotExist):
		if step != 0 {
			t.Fatalf("no queue after step %d: %v", step, err)
		}
	case err != nil:
		t.Fatalf("read-only open: %v", err)
	default:
		ro.Close()
	}

	c := newClock()
	q, err := Open(dir, testBinding, Options{Now: c.Now})
	if err != nil {
		t.Fatalf("open after the crash: %v", err)
	}
	defer q.Close()
	if fileExists(journal) {
		t.Fatalf("journal still present after opening for write")
	}
	got := snapshot(t, q)
	before, after := snaps[step], snaps[step+1]
	var want map[string]snapRow
	var now time.Time
	switch {
	case cmp.Equal(got, after):
		want, now = after, times[step+1]
	case cmp.Equal(got, before):
		want, now = before, times[step]
	default:
		t.Fatalf("state after crashing in step %d (%s) is neither before nor after it:\nbefore: %s\nafter: %s",
			step, crashScript[step].name, cmp.Diff(before, got), cmp.Diff(after, got))
	}
	c.t = now
	if _, err := q.Recover(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recovered(want, now), snapshot(t, q)); diff != "" {
		t.Fatalf("after recovery (-want +got):\n%s", diff)
	}
	if fileExists(journal) {
		t.Fatalf("journal present after recovery")
	}
}

func lastStep(out []byte) int {
	step := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var n int
		if _, err := fmt.Sscanf(sc.Text(), "step %d", &n); err == nil {
			step = n
		}
	}
	return step
}

// leaveHotJournal runs the crash child in dir and kills it just before its first commit
// of a large delivery, whose pages already reached the file: the journal is needed to
// roll that write back.
func leaveHotJournal(t *testing.T, dir string) {
	t.Helper()
	for _, p := range listCrashPoints(t) {
		if p.step != 1 || p.name != "commit" {
			continue
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(childEnv(), crashDirEnv+"="+dir, crashAtEnv+"="+strconv.Itoa(p.n))
		cmd.Run()
		if !hotJournal(t, filepath.Join(dir, FileName+"-journal")) {
			t.Fatal("the killed child left no journal to roll back")
		}
		return
	}
	t.Fatal("no commit point in step 1")
}
