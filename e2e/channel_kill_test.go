//go:build linux

package e2e

// Kill tests of bf channel send: the real process is killed with SIGKILL (or stopped with
// SIGTERM) at many points — before it starts working, while the queue commits, while the
// send command runs, after it sent, after it returned — and the queue must then hold every
// obligation exactly once, in the state the channels page prescribes once the next bf
// command records the interruption, with nothing sent twice.
//
// Points are reached from outside the process: the send command (a shell adapter) holds at
// a point the test chooses and says so through a file; a read lock on SQLite's shared lock
// bytes holds bf inside a commit, with its rollback journal written, until it is killed;
// other kills land at increasing delays after the start.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/bfgo/bf/libbf/brainfix"
)

const killAdapter = `#!/bin/sh
# channels/send MODE: MODE idem appends a delivery ID to the outbox once, whatever the
# number of sends (an idempotent adapter); plain appends every send. read prints an
# empty batch. Every send is logged to calls.log; run/hold.ID makes it wait for run/go.ID
# before sending, run/hold2.ID for run/go2.ID after sending, announcing each wait.
if [ "$1" = read ]; then echo '{"messages":[]}'; exit 0; fi
read -r line
id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
echo "$id" >> calls.log
echo $$ > "run/pid.$id"
if [ -e "run/hold.$id" ]; then : > "run/ready.$id"; while [ ! -e "run/go.$id" ]; do sleep 0.01; done; fi
if [ "$1" = idem ] && grep -qx "$id" outbox.ids 2>/dev/null; then :; else
  printf '%s\n' "$line" >> outbox.jsonl
  echo "$id" >> outbox.ids
fi
if [ -e "run/hold2.$id" ]; then : > "run/sent.$id"; while [ ! -e "run/go2.$id" ]; do sleep 0.01; done; fi
printf '{"id":"sent-%s","conversation":"c"}\n' "$id"
`

const killConfig = `version: 8
name: brain
channels:
  idem:
    send:
      command: [channels/send, idem]
      idempotent: true
    read:
      command: [channels/send, read, "{{start}}", "{{end}}"]
  plain:
    send:
      command: [channels/send, plain]
`

// SQLite's unix locks: a writer needs a write lock on the shared byte range of the
// lock-byte page to commit, which any read lock there holds off.
const (
	sqliteSharedFirst = 0x40000000 + 2
	sqliteSharedSize  = 510
)

type killRig struct {
	t     *testing.T
	home  string
	brain string
	queue string // the queue file
	env   []string
	// journals counts kills that left a rollback journal behind.
	journals int
	// points counts the kill points covered, by kind.
	points map[string]int
	// ids are every delivery ID sent so far, with its channel.
	ids map[string]string
}

func newKillRig(t *testing.T) *killRig {
	t.Helper()
	return newRig(t, brainfix.Spec{Config: killConfig}, map[string]string{"channels/send": killAdapter})
}

// newRig builds the brain s describes with its executable programs (path → text), a run/
// folder the programs signal through, and a home of its own beside it, then trusts it.
func newRig(t *testing.T, s brainfix.Spec, programs map[string]string) *killRig {
	t.Helper()
	b := brainfix.New(t, s)
	for rel, text := range programs {
		b.WriteMode(rel, text, 0o755)
	}
	r := &killRig{t: t, home: filepath.Join(filepath.Dir(b.Root), "home"), brain: b.Root,
		points: map[string]int{}, ids: map[string]string{}}
	if err := os.Mkdir(r.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(r.brain, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.trust()
	return r
}

// trust gives the rig a machine of its own (its home, UTC, the built binaries first on
// PATH, no clock override), registers the brain there with collection trust and finds its
// queue.
func (r *killRig) trust() {
	r.t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "BF_BRAIN", "TZ", "PATH", "BF_NOW":
			continue
		}
		r.env = append(r.env, kv)
	}
	r.env = append(r.env, "HOME="+r.home, "TZ=UTC", "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	r.bf(0, "", "register", ".", "--collect")
	var st syscall.Stat_t
	if err := syscall.Stat(r.brain, &st); err != nil {
		r.t.Fatal(err)
	}
	r.queue = filepath.Join(r.home, ".local", "state", "bf", "runtime", fmt.Sprintf("%d-%d", st.Dev, st.Ino), "queue.sqlite3")
}

func (r *killRig) command(stdin string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(filepath.Join(binDir, "bf"), args...)
	cmd.Dir, cmd.Env = r.brain, r.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// bf runs bf to its end and checks its exit code; want < 0 accepts any.
func (r *killRig) bf(want int, stdin string, args ...string) []byte {
	r.t.Helper()
	cmd, out, errb := r.command(stdin, args...)
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		r.t.Fatalf("bf %s: %v", strings.Join(args, " "), err)
	}
	if want >= 0 && code != want {
		r.t.Fatalf("bf %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errb)
	}
	return out.Bytes()
}

func payload(id string) string {
	return `{"id":"` + id + `","text":"kill test ` + id + `","conversation":"c"}` + "\n"
}

// start starts bf channel send for id.
func (r *killRig) start(channel, id string) *exec.Cmd {
	r.t.Helper()
	r.ids[id] = channel
	cmd, _, _ := r.command(payload(id), "channel", "send", channel, "--stdin")
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd
}

func (r *killRig) kill(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

func (r *killRig) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(r.brain, rel))
	return err == nil
}

func (r *killRig) touch(rel string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.brain, rel), nil, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// waitFor polls cond for up to 10 seconds.
func (r *killRig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// alive reports whether process pid still runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || (data[i+2] != 'Z' && data[i+2] != 'X')
}

// settle lets an adapter a killed bf left behind finish (or kills it with killAdapter),
// so the outbox is final before it is counted.
func (r *killRig) settle(id string, killAdapter bool) {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.brain, "run", "pid."+id))
	if err != nil {
		// No pid yet: the adapter never ran, or bf was killed just after starting it and
		// it has not written its pid. Wait for every process in the brain to end, so a
		// late adapter cannot log a send after the test counted them.
		r.waitFor("the processes in the brain to end", func() bool { return !r.busy() })
		return
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if killAdapter {
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// Released, so later sends of the same ID do not wait either.
	r.touch("run/go." + id)
	r.touch("run/go2." + id)
	// The whole group, helpers included: bf counts the attempt as running until then.
	r.waitFor("the adapter of "+id+" to end", func() bool { return pid <= 0 || !groupAlive(pid) })
}

// groupAlive reports whether a live process (not a zombie) belongs to process group pgid.
func groupAlive(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// busy reports whether any live process has the brain as its working folder. Every bf
// the test started has ended by now, so such a process is an adapter (or its child) that a
// killed bf left behind.
func (r *killRig) busy() bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == r.brain && alive(pid) {
			return true
		}
	}
	return false
}

// holdCommit takes a read lock on the queue's shared lock bytes, so a bf process cannot
// commit until release. It reports false when the lock cannot be had right now (bf is
// writing the database) or there is no queue yet.
func (r *killRig) holdCommit() (release func(), ok bool) {
	f, err := os.OpenFile(r.queue, os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	lk := syscall.Flock_t{Type: syscall.F_RDLCK, Whence: 0, Start: sqliteSharedFirst, Len: sqliteSharedSize}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		return nil, false
	}
	// Closing the file drops this process's locks on it.
	return func() { f.Close() }, true
}

func (r *killRig) journal() bool {
	_, err := os.Lstat(r.queue + "-journal")
	return err == nil
}

type queueItem struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Error    string `json:"error"`
	Attempts int    `json:"attempts"`
	Channel  string `json:"channel"`
}

func (r *killRig) list() map[string]queueItem {
	r.t.Helper()
	var l struct {
		Items []queueItem `json:"items"`
	}
	if err := json.Unmarshal(r.bf(0, "", "queue"), &l); err != nil {
		r.t.Fatalf("bf queue: %v", err)
	}
	out := map[string]queueItem{}
	for _, it := range l.Items {
		if _, dup := out[it.ID]; dup {
			r.t.Fatalf("bf queue lists %s twice", it.ID)
		}
		out[it.ID] = it
	}
	return out
}

func (r *killRig) count(file, id string) int {
	data, _ := os.ReadFile(filepath.Join(r.brain, file))
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == id || strings.HasPrefix(line, `{"id":"`+id+`",`) {
			n++
		}
	}
	return n
}

// check verifies the queue after id's send was killed (or stopped) and its adapter
// settled, then completes the obligation the way a user would: the same send again, and
// an explicit retry of a failed delivery on the idempotent channel.
func (r *killRig) check(id, kind string) {
	r.t.Helper()
	r.points[kind]++
	channel := r.ids[id]
	idem := channel == "idem"
	if r.journal() {
		r.journals++
	}
	// bf queue rolls an interrupted write back and lists every obligation once, without
	// recording interrupted attempts.
	items := r.list()
	if r.journal() {
		r.t.Fatalf("%s (%s): the rollback journal is still there after bf queue", id, kind)
	}
	it, admitted := items[id]
	calls := r.count("calls.log", id)
	switch {
	case !admitted:
		if calls != 0 {
			r.t.Fatalf("%s (%s): the adapter ran for a delivery the queue does not hold", id, kind)
		}
	case it.State == "pending":
		if it.Attempts != 0 || calls != 0 {
			r.t.Fatalf("%s (%s): pending after %d attempts and %d sends", id, kind, it.Attempts, calls)
		}
	case it.State == "sending", it.State == "delivered", it.State == "failed", it.State == "uncertain":
	default:
		r.t.Fatalf("%s (%s): state %s", id, kind, it.State)
	}
	if calls > 1 {
		r.t.Fatalf("%s (%s): sent %d times", id, kind, calls)
	}

	// Any execution command records the interruption; bf channel read is one.
	r.bf(0, "", "channel", "read", "idem", "--since", "1h")
	after := r.list()
	got := after[id]
	switch {
	case !admitted:
		if _, ok := after[id]; ok {
			r.t.Fatalf("%s (%s): appeared after recovery", id, kind)
		}
	case it.State == "sending" && idem:
		if got.State != "failed" || got.Error != "interrupted send; retry it with bf queue "+id+" --retry" {
			r.t.Fatalf("%s (%s): recorded as %s (%s)", id, kind, got.State, got.Error)
		}
	case it.State == "sending":
		if got.State != "uncertain" || got.Error != "interrupted send; inspect before retrying" {
			r.t.Fatalf("%s (%s): recorded as %s (%s)", id, kind, got.State, got.Error)
		}
	default:
		if got != it {
			r.t.Fatalf("%s (%s): changed from %+v to %+v by recovery", id, kind, it, got)
		}
	}
	// Every earlier obligation is still there once.
	for other := range r.ids {
		if _, ok := after[other]; !ok && other != id {
			r.t.Fatalf("%s (%s): %s is gone", id, kind, other)
		}
	}

	// The same send again: a saved delivery is returned without another send, unless it was
	// never attempted.
	out := r.bf(-1, payload(id), "channel", "send", channel, "--stdin")
	var res queueItem
	if err := json.Unmarshal(out, &res); err != nil {
		r.t.Fatalf("%s (%s): resend printed %q", id, kind, out)
	}
	again := r.count("calls.log", id)
	switch {
	case !admitted || got.State == "pending":
		if again != 1 || res.State != "delivered" {
			r.t.Fatalf("%s (%s): resend of an unsent delivery: %s after %d sends", id, kind, res.State, again)
		}
	default:
		if again != calls || res.State != got.State {
			r.t.Fatalf("%s (%s): resend of a %s delivery sent again or changed it (%s)", id, kind, got.State, res.State)
		}
	}
	if idem && res.State == "failed" {
		r.bf(0, "", "queue", id, "--retry")
	}
	if idem {
		if n := r.count("outbox.jsonl", id); n != 1 {
			r.t.Fatalf("%s (%s): the idempotent outbox holds it %d times", id, kind, n)
		}
	} else if n := r.count("outbox.jsonl", id); n > 1 {
		r.t.Fatalf("%s (%s): sent %d times", id, kind, n)
	}
}

func TestChannelSendKill(t *testing.T) {
	r := newKillRig(t)
	n := 0
	next := func(channel string) string { n++; return fmt.Sprintf("k-%s-%d", channel, n) }

	// How long one whole send takes, to spread the delayed kills over it.
	began := time.Now()
	r.bf(0, payload("warm"), "channel", "send", "idem", "--stdin")
	r.ids["warm"] = "idem"
	whole := time.Since(began)

	channels := []string{"idem", "plain"}
	// hot counts kills while bf wrote the database beside its rollback journal.
	hot := 0

	// Before bf starts working, and at increasing delays across its whole run: queue
	// opening, admission, the attempt's start, the send command, the record of its end.
	const steps = 20
	for i := range steps {
		for _, ch := range channels {
			id := next(ch)
			cmd := r.start(ch, id)
			time.Sleep(whole * time.Duration(i) * 3 / (2 * steps))
			r.kill(cmd)
			r.settle(id, false)
			r.check(id, "delay")
		}
	}

	for _, ch := range channels {
		// While the send command runs, before it sent: bf killed, the orphan adapter
		// finishes and sends; or both die, and nothing is sent.
		for _, both := range []bool{false, true} {
			id := next(ch)
			r.touch("run/hold." + id)
			cmd := r.start(ch, id)
			r.waitFor("the adapter of "+id, func() bool { return r.exists("run/ready." + id) })
			r.kill(cmd)
			r.settle(id, both)
			r.check(id, "running")
		}
		// After it sent, before it returned its receipt.
		id := next(ch)
		r.touch("run/hold2." + id)
		cmd := r.start(ch, id)
		r.waitFor("the adapter of "+id+" to send", func() bool { return r.exists("run/sent." + id) })
		r.kill(cmd)
		r.settle(id, false)
		r.check(id, "sent")

		// Right after it returned: the receipt is being read and recorded.
		for _, delay := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond} {
			id := next(ch)
			r.touch("run/hold2." + id)
			cmd := r.start(ch, id)
			r.waitFor("the adapter of "+id+" to send", func() bool { return r.exists("run/sent." + id) })
			r.touch("run/go2." + id)
			pid := r.pid(id)
			r.waitFor("the adapter of "+id+" to return", func() bool { return !alive(pid) })
			time.Sleep(delay)
			r.kill(cmd)
			r.settle(id, false)
			r.check(id, "returned")
		}

		// Waiting to commit: a read lock on the queue holds bf at its first commit (the
		// admission), or at the record of the attempt's end, until it is killed.
		{
			id := next(ch)
			release, ok := r.holdCommit()
			if !ok {
				t.Fatal("cannot lock the queue")
			}
			cmd := r.start(ch, id)
			time.Sleep(whole + 50*time.Millisecond)
			r.kill(cmd)
			release()
			r.settle(id, false)
			r.check(id, "commit-wait")
		}
		{
			id := next(ch)
			r.touch("run/hold." + id)
			cmd := r.start(ch, id)
			r.waitFor("the adapter of "+id, func() bool { return r.exists("run/ready." + id) })
			release, ok := r.holdCommit()
			if !ok {
				t.Fatal("cannot lock the queue")
			}
			r.touch("run/go." + id)
			pid := r.pid(id)
			r.waitFor("the adapter of "+id+" to return", func() bool { return !alive(pid) })
			time.Sleep(50 * time.Millisecond)
			r.kill(cmd)
			release()
			r.settle(id, false)
			r.check(id, "commit-wait")
		}
		// Inside a commit: bf is stopped (SIGSTOP, then SIGKILL) as the k-th commit of its
		// run creates its rollback journal, or as it then writes the database file, which
		// the journal must roll back. The commits are the admission, the attempt's start
		// and the record of its end.
		for k := 1; k <= 3; k++ {
			for _, stage := range []string{"journal", "database"} {
				id := next(ch)
				w := r.watch(k, stage)
				cmd := r.start(ch, id)
				w.arm(cmd.Process.Pid)
				stopped := w.wait(5 * time.Second)
				r.kill(cmd)
				w.close()
				if stopped && stage == "database" && r.journal() {
					hot++
				}
				r.settle(id, false)
				r.check(id, "commit-"+stage)
			}
		}

		// SIGTERM while the send command runs: recorded before bf exits (130), with no
		// recovery needed.
		id = next(ch)
		r.touch("run/hold." + id)
		cmd = r.start(ch, id)
		r.waitFor("the adapter of "+id, func() bool { return r.exists("run/ready." + id) })
		cmd.Process.Signal(syscall.SIGTERM)
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Fatalf("%s: SIGTERM ended bf with %v, want exit 130", id, err)
		}
		got := r.list()[id]
		want := map[string]string{"idem": "failed", "plain": "uncertain"}[ch]
		if got.State != want {
			t.Fatalf("%s: after SIGTERM the queue holds %s, want %s", id, got.State, want)
		}
		r.settle(id, true)
		r.check(id, "sigterm")
	}

	total := 0
	for _, v := range r.points {
		total += v
	}
	t.Logf("%d kill points %v; %d left a rollback journal, %d while the database was being written", total, r.points, r.journals, hot)
	if total < 50 {
		t.Errorf("only %d kill points", total)
	}
	if r.journals < 4 || hot < 1 {
		t.Errorf("only %d kills left a rollback journal, %d of them while the database was being written", r.journals, hot)
	}
	// Nothing was sent twice on the idempotent channel, and everything reached it.
	for id, ch := range r.ids {
		if ch == "idem" && r.count("outbox.jsonl", id) != 1 {
			t.Errorf("%s is in the idempotent outbox %d times", id, r.count("outbox.jsonl", id))
		}
	}
}

// watcher stops a process inside a commit of the queue, from inotify events of the
// state folder.
type watcher struct {
	f       *os.File
	pid     chan int
	stopped chan bool
}

// watch starts watching the queue's folder for the k-th creation of the rollback journal
// (stage "journal") or the first write of the database after it (stage "database").
func (r *killRig) watch(k int, stage string) *watcher {
	r.t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, filepath.Dir(r.queue), syscall.IN_CREATE|syscall.IN_MODIFY); err != nil {
		r.t.Fatal(err)
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), pid: make(chan int, 1), stopped: make(chan bool, 1)}
	journal, db := filepath.Base(r.queue)+"-journal", filepath.Base(r.queue)
	go func() {
		pid := 0
		created := 0
		buf := make([]byte, 64<<10)
		for {
			n, err := w.f.Read(buf)
			if err != nil {
				w.stopped <- false
				return
			}
			for i := 0; i+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[i]))
				name := strings.TrimRight(string(buf[i+syscall.SizeofInotifyEvent:i+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				i += syscall.SizeofInotifyEvent + int(ev.Len)
				if ev.Mask&syscall.IN_CREATE != 0 && name == journal {
					created++
				}
				hit := created == k && ((stage == "journal" && ev.Mask&syscall.IN_CREATE != 0 && name == journal) ||
					(stage == "database" && ev.Mask&syscall.IN_MODIFY != 0 && name == db))
				if !hit {
					continue
				}
				if pid == 0 {
					pid = <-w.pid
				}
				syscall.Kill(pid, syscall.SIGSTOP)
				w.stopped <- true
				return
			}
		}
	}()
	return w
}

// arm names the process to stop.
func (w *watcher) arm(pid int) { w.pid <- pid }

// wait reports whether the process was stopped within d.
func (w *watcher) wait(d time.Duration) bool {
	select {
	case ok := <-w.stopped:
		return ok
	case <-time.After(d):
		return false
	}
}

func (w *watcher) close() { w.f.Close() }

func (r *killRig) pid(id string) int {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.brain, "run", "pid."+id))
	if err != nil {
		r.t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}
