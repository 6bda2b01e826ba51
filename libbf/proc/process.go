package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bfgo/bf/libbf/timestamp"
)

const (
	readSize  = 64 << 10
	heldGrace = time.Second // how long stdout may stay open after the leader exits
)

// errCut is what a Stdout reader sees when bf ended the program; Wait says why.
var errCut = errors.New("program output was cut off; Wait reports why")

// why records the first reason bf ended a program.
type why int

const (
	whyNone why = iota
	whyTimeout
	whyCanceled
	whyOverflow
	whyHeld
	whyStopped
)

// Input is the write end of a long-lived program's stdin. A write deadline bounds a write
// the program does not drain.
type Input interface {
	io.WriteCloser
	SetWriteDeadline(t time.Time) error
}

// Process is a running program: a leader in its own process group, its pipes, and the
// goroutines that watch it. Run drives one to its end; Spawn hands one to a caller.
type Process struct {
	spec    Spec
	stream  bool
	proc    *os.Process
	pid     int
	started time.Time

	stdin   *os.File // write end, or nil when stdin is /dev/null
	stdoutR *os.File
	stderrR *os.File
	pr      *io.PipeReader // stream: what the caller reads
	pw      *io.PipeWriter
	out     bytes.Buffer // run: collected stdout
	errTail ring

	exitedCh chan struct{}
	pumpDone chan struct{}
	errDone  chan struct{}
	done     chan struct{}

	mu         sync.Mutex
	reason     why
	reasonLate bool // the reason came after the leader had exited on its own
	failText   string
	ctxErr     error
	final      bool // the group got its last signal; its id may be reused from now on
	exited     bool
	exitAt     time.Time
	inRead     bool
	readStart  time.Time
	used       time.Duration // time spent waiting on stdout after the leader exited

	state *os.ProcessState
	ended time.Time

	waitOnce sync.Once
	waitErr  error
	logErr   error
}

// Spawn starts a long-lived program (a channel stream) and returns at once. The caller
// writes to Stdin, reads Stdout until it ends (framing is the caller's), and must call
// Wait, which also writes the run's log entry: the newest stderr followed by one line
// "== TIME OUTCOME after N.Ns ==". Spec.Timeout, when set, bounds the whole run;
// Spec.MaxBytes, when set, bounds the whole output. Spec.Stdin and Spec.LogStdout apply to
// Run only.
func Spawn(ctx context.Context, s Spec) (*Process, error) {
	if s.Stdin != nil || s.LogStdout {
		return nil, &Error{Kind: Args, Program: s.Name, Err: errors.New("Stdin and LogStdout apply to Run only")}
	}
	return start(ctx, s, true)
}

// Stdin is the program's stdin. Closing it gives the program end of file.
func (p *Process) Stdin() Input { return p.stdin }

// Stdout is the program's stdout. It reaches io.EOF when the output closes, or another
// error once bf ended the program; Wait then says why.
func (p *Process) Stdout() io.Reader { return p.pr }

// Exited is closed when the leader process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exitedCh }

// Kill stops the program: SIGKILL to its whole process group. Its log entry says
// "stopped". It is safe to call at any time, also more than once.
func (p *Process) Kill() { p.stop(whyStopped, "") }

// Fail stops the program like Kill, recording outcome (the caller's own words, such as an
// invalid frame's field and reason) as the outcome of its log entry. Called after the
// program ended on its own, it only records the outcome.
func (p *Process) Fail(outcome string) { p.stop(whyStopped, oneLine(outcome)) }

// Wait waits for the leader to exit and its output to close, then writes the log entry and
// reports how the run ended: nil when the program exited 0 on its own, else an *Error.
// A caller that stops reading Stdout before its end must call Kill or Fail first.
func (p *Process) Wait() error {
	<-p.done
	p.waitOnce.Do(func() { p.waitErr = p.conclude() })
	return p.waitErr
}

// LogErr says why the log entry could not be written, once Wait has returned.
func (p *Process) LogErr() error {
	<-p.done
	p.Wait()
	return p.logErr
}

func checkSpec(s *Spec) error {
	switch {
	case !validName(s.Name):
		return errors.New("the program name must be a nonempty file name without slashes, control characters or a leading dot")
	case !strings.HasPrefix(s.Root, "/"):
		return errors.New("the brain root must be an absolute path")
	}
	if fi, err := os.Stat(s.Root); err != nil || !fi.IsDir() {
		return errors.New("the brain root is not a folder; check the brain's location")
	}
	for i, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			//lint:ignore ST1005 the message starts with the field's name, Env
			return fmt.Errorf("Env[%d] must read KEY=VALUE", i)
		}
	}
	return nil
}

func validName(n string) bool {
	if n == "" || len(n) > 200 || n[0] == '.' || strings.ContainsAny(n, "/\\") {
		return false
	}
	for _, r := range n {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func start(ctx context.Context, s Spec, stream bool) (*Process, error) {
	if err := checkSpec(&s); err != nil {
		return nil, &Error{Kind: Args, Program: s.Name, Err: err}
	}
	argv, err := Expand(s.Root, s.Command, s.Vars)
	if err != nil {
		return nil, &Error{Kind: Args, Program: s.Name, Err: err}
	}
	env := environ(os.Environ(), s.Env)
	path, perr := resolve(&s, argv[0], env)
	if perr != nil {
		if perr.Kind != Args {
			startFailed(&s, perr)
		}
		return nil, perr
	}
	if interp := missingInterpreter(path, env); interp != "" {
		e := &Error{Kind: Start, Program: s.Name, Exec: argv[0], Err: fs.ErrNotExist,
			hint: "the program's interpreter " + interp + " is not installed; install it or change the #! line of " + argv[0]}
		startFailed(&s, e)
		return nil, e
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: Canceled, Program: s.Name, Err: err}
	}

	p := &Process{
		spec: s, stream: stream,
		errTail:  ring{max: maxStderr},
		exitedCh: make(chan struct{}), pumpDone: make(chan struct{}),
		errDone: make(chan struct{}), done: make(chan struct{}),
	}
	var files [3]*os.File // the child's ends
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	fail := func(err error) (*Process, error) {
		for _, f := range []*os.File{p.stdin, p.stdoutR, p.stderrR} {
			if f != nil {
				f.Close()
			}
		}
		e := &Error{Kind: Start, Program: s.Name, Exec: argv[0], Err: err}
		startFailed(&s, e)
		return nil, e
	}
	if s.Stdin != nil || stream {
		if files[0], p.stdin, err = os.Pipe(); err != nil {
			return fail(err)
		}
	} else if files[0], err = os.Open(os.DevNull); err != nil {
		return fail(err)
	}
	if p.stdoutR, files[1], err = os.Pipe(); err != nil {
		return fail(err)
	}
	if p.stderrR, files[2], err = os.Pipe(); err != nil {
		return fail(err)
	}
	p.started = time.Now()
	p.proc, err = os.StartProcess(path, argv, &os.ProcAttr{
		Dir: s.Root, Env: env, Files: files[:],
		Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return fail(err)
	}
	p.pid = p.proc.Pid
	if s.Started != nil {
		s.Started(p.pid)
	}
	if stream {
		p.pr, p.pw = io.Pipe()
	}
	go p.waitLeader()
	go p.pump()
	go p.drainStderr()
	go p.watch(ctx)
	if s.Stdin != nil {
		go p.feed(s.Stdin)
	}
	go p.finish()
	return p, nil
}

// startFailed records a run that never started, so the program's log shows every attempt.
func startFailed(s *Spec, e *Error) {
	err := appendLog(s.Root, s.Name, entry{
		marker: "== " + timestamp.Canonical(time.Now()) + " start failed ==",
		body:   []byte(e.Error() + "\n"),
	})
	if err != nil {
		e.LogErr = err
		return
	}
	e.Log = LogPath(s.Name)
}

// stop records why bf ends the program, if no reason was recorded yet, and kills the group
// while its id still belongs to it. Fail's text is kept even after the end.
func (p *Process) stop(r why, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reason == whyNone && (!p.final || text != "") {
		p.reason, p.reasonLate, p.failText = r, p.exited, text
	} else if text != "" && p.reason == whyStopped && p.failText == "" {
		p.failText = text
	}
	if !p.final {
		syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	if p.pr != nil {
		p.pr.CloseWithError(errCut)
	}
}

func (p *Process) waitLeader() {
	state := awaitExit(p.proc)
	p.mu.Lock()
	p.exited, p.exitAt, p.state = true, time.Now(), state
	if p.inRead {
		p.stdoutR.SetReadDeadline(p.exitAt.Add(heldGrace))
	}
	p.mu.Unlock()
	close(p.exitedCh)
}

// beginRead arms the grace deadline once the leader has exited; it reports false when the
// grace is used up. Time the pump spends handing data to a slow reader does not count.
func (p *Process) beginRead() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.exited {
		left := heldGrace - p.used
		if left <= 0 {
			return false
		}
		p.stdoutR.SetReadDeadline(now.Add(left))
	}
	p.inRead, p.readStart = true, now
	return true
}

func (p *Process) endRead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		from := p.readStart
		if p.exitAt.After(from) {
			from = p.exitAt
		}
		p.used += time.Since(from)
	}
	p.inRead = false
}

func (p *Process) pump() {
	defer close(p.pumpDone)
	buf := make([]byte, readSize)
	var total int64
	limit := p.spec.MaxBytes
	var end error = io.EOF
	for {
		n := len(buf)
		if limit > 0 && limit-total+1 < int64(n) {
			n = int(limit - total + 1)
		}
		if !p.beginRead() {
			p.stop(whyHeld, "")
			end = errCut
			break
		}
		k, err := p.stdoutR.Read(buf[:n])
		p.endRead()
		if k > 0 {
			total += int64(k)
			if limit > 0 && total > limit {
				p.stop(whyOverflow, "")
				end = errCut
				break
			}
			if p.stream {
				if _, werr := p.pw.Write(buf[:k]); werr != nil {
					end = errCut
					break
				}
			} else {
				p.out.Write(buf[:k])
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.stop(whyHeld, "")
			end = errCut
			break
		}
		if err != nil {
			break
		}
	}
	p.stdoutR.Close()
	if p.pw != nil {
		p.pw.CloseWithError(end)
	}
}

func (p *Process) drainStderr() {
	defer close(p.errDone)
	buf := make([]byte, readSize)
	for {
		n, err := p.stderrR.Read(buf)
		p.errTail.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

func (p *Process) feed(b []byte) {
	p.stdin.Write(b)
	p.stdin.Close()
}

func (p *Process) watch(ctx context.Context) {
	var timeout <-chan time.Time
	if p.spec.Timeout > 0 {
		t := time.NewTimer(p.spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		p.mu.Lock()
		p.ctxErr = ctx.Err()
		p.mu.Unlock()
		p.stop(whyCanceled, "")
	case <-timeout:
		p.stop(whyTimeout, "")
	case <-p.done:
	}
}

// finish ends a run once the leader has exited and stdout has closed: the group is killed
// (helpers that let go of stdout may still run), the leader reaped, stderr collected.
func (p *Process) finish() {
	<-p.exitedCh
	<-p.pumpDone
	p.mu.Lock()
	syscall.Kill(-p.pid, syscall.SIGKILL)
	p.final = true
	state := p.state
	p.mu.Unlock()
	if state == nil {
		state, _ = p.proc.Wait()
	}
	p.stderrR.SetReadDeadline(time.Now().Add(heldGrace))
	<-p.errDone
	p.stderrR.Close()
	if p.stdin != nil {
		p.stdin.Close()
	}
	p.mu.Lock()
	p.state, p.ended = state, time.Now()
	p.mu.Unlock()
	close(p.done)
}

// conclude turns how the run ended into its log entry and error.
func (p *Process) conclude() error {
	p.mu.Lock()
	reason, late, text, ctxErr := p.reason, p.reasonLate, p.failText, p.ctxErr
	p.mu.Unlock()
	elapsed := p.ended.Sub(p.started)
	e := &Error{Program: p.spec.Name, After: elapsed}

	own := reason == whyNone || late // the leader ended before bf stopped anything
	var ownText string               // how the leader ended on its own, for stream logs
	status, sig := exitOf(p.state)
	if sig != "" {
		ownText = "was killed by " + sig
	} else {
		ownText = "exited with status " + strconv.Itoa(status)
	}
	switch {
	case own && (sig != "" || status != 0):
		e.Kind, e.Status, e.Signal = Exit, status, sig
	case reason == whyTimeout:
		e.Kind, e.After = timeout, p.spec.Timeout
	case reason == whyCanceled:
		e.Kind, e.Err = Canceled, ctxErr
	case reason == whyOverflow:
		e.Kind, e.Limit = overflow, p.spec.MaxBytes
	case reason == whyHeld:
		e.Kind = outputHeld
	case reason == whyStopped && !late:
		e.Kind = stopped
	}
	var ent entry
	stamp := "== " + timestamp.Canonical(p.ended) + " "
	if p.stream {
		outcome := "ended"
		switch {
		case text != "":
			outcome = text
		case reason == whyStopped || reason == whyCanceled:
			outcome = "stopped"
		case reason == whyTimeout:
			outcome = "timed out" // the marker already says after how long
		case e.Kind != Exit && e.Kind != 0:
			outcome = runOutcome(e)
		}
		if own {
			outcome += "; " + p.role() + " " + ownText
		}
		ent = entry{
			marker:  stamp + outcome + " after " + strconv.FormatFloat(elapsed.Seconds(), 'f', 1, 64) + "s ==",
			body:    p.errTail.Bytes(),
			trailer: true,
		}
	} else {
		body := append([]byte(nil), p.errTail.Bytes()...)
		if p.spec.LogStdout && p.out.Len() > 0 {
			if len(body) > 0 && body[len(body)-1] != '\n' {
				body = append(body, '\n')
			}
			body = append(body, p.out.Bytes()...)
		}
		ent = entry{marker: stamp + runOutcome(e) + " ==", body: body}
	}
	if err := appendLog(p.spec.Root, p.spec.Name, ent); err != nil {
		p.logErr, e.LogErr = err, err
	} else {
		e.Log = LogPath(p.spec.Name)
	}
	if e.Kind == 0 {
		return nil
	}
	return e
}

func (p *Process) role() string {
	if p.spec.Role != "" {
		return p.spec.Role
	}
	return "program"
}

// runOutcome is the word a log entry's marker gives a run.
func runOutcome(e *Error) string {
	switch e.Kind {
	case 0:
		return "ok"
	case Exit:
		if e.Signal != "" {
			return "killed by " + e.Signal
		}
		return "exit " + strconv.Itoa(e.Status)
	case timeout:
		return "timeout after " + seconds(e.After)
	case overflow:
		return "output over " + strconv.FormatInt(e.Limit, 10) + " bytes"
	case Canceled:
		return "canceled"
	case outputHeld:
		return "output held open after exit"
	case stopped:
		return "stopped"
	}
	return e.Kind.String()
}

// exitOf reads a leader's end: its status, or 128+N and the signal's name.
func exitOf(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = "signal " + strconv.Itoa(int(ws.Signal()))
		}
		return 128 + int(ws.Signal()), name
	}
	return st.ExitCode(), ""
}
