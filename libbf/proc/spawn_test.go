package proc

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
)

func TestSpawn(t *testing.T) {
	const echo = `echo ready >&2; while read line; do echo "got $line"; done`
	tests := []struct {
		name    string
		body    string
		role    string
		act     func(t *testing.T, p *Process)
		kind    Kind
		status  int
		message string
		log     string
	}{
		{
			name: "killed", body: echo,
			act: func(t *testing.T, p *Process) {
				exchange(t, p, "hi", "got hi\n")
				p.Kill()
				drain(p)
			},
			kind: stopped, message: "c was stopped; see logs/c.log",
			log: "ready\n== TIME stopped after N.Ns ==\n",
		},
		{
			name: "failed by the caller", body: echo,
			act: func(t *testing.T, p *Process) {
				exchange(t, p, "bad", "got bad\n")
				p.Fail("invalid stream message envelope: text:\ntoo long")
				drain(p)
			},
			kind: stopped, message: "c was stopped; see logs/c.log",
			log: "ready\n== TIME invalid stream message envelope: text: too long after N.Ns ==\n",
		},
		{
			name: "ended on its own with a status", body: `read line; echo "bye $line"; exit 4`, role: "adapter",
			act: func(t *testing.T, p *Process) {
				exchange(t, p, "x", "bye x\n")
				if rest := drain(p); rest != "" {
					t.Errorf("more output %q", rest)
				}
			},
			kind: Exit, status: 4, message: "c exited with status 4; see logs/c.log",
			log: "== TIME ended; adapter exited with status 4 after N.Ns ==\n",
		},
		{
			name: "ended on its own after stdin closed", body: `cat; echo err >&2`,
			act: func(t *testing.T, p *Process) {
				p.Stdin().Write([]byte("frame\n"))
				p.Stdin().Close()
				if out := drain(p); out != "frame\n" {
					t.Errorf("stdout %q", out)
				}
			},
			log: "err\n== TIME ended; program exited with status 0 after N.Ns ==\n",
		},
		{
			name: "caller's outcome after the program ended", body: `exit 0`, role: "adapter",
			act: func(t *testing.T, p *Process) {
				drain(p)
				<-p.Exited()
				p.Fail("stream closed its output")
			},
			log: "== TIME stream closed its output; adapter exited with status 0 after N.Ns ==\n",
		},
		{
			name: "killed by a signal of its own", body: `kill -TERM $$`, role: "adapter",
			act:  func(t *testing.T, p *Process) { drain(p) },
			kind: Exit, status: 143, message: "c was killed by SIGTERM; see logs/c.log",
			log: "== TIME ended; adapter was killed by SIGTERM after N.Ns ==\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			brainfix.Script(t, root, "channels/c", tc.body)
			s := spec(root, "c", "channels/c")
			s.Timeout, s.MaxBytes, s.Role = 0, 0, tc.role
			p, err := Spawn(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			tc.act(t, p)
			err = p.Wait()
			if tc.kind == 0 {
				if err != nil {
					t.Errorf("Wait: %v", err)
				}
			} else if e := asError(t, err); e.Kind != tc.kind || e.Status != tc.status || e.Error() != tc.message {
				t.Errorf("Wait = %q (kind %v, status %d), want %q (kind %v, status %d)", e, e.Kind, e.Status, tc.message, tc.kind, tc.status)
			}
			if p.LogErr() != nil {
				t.Errorf("LogErr: %v", p.LogErr())
			}
			if got := readLog(t, root, "c"); got != tc.log {
				t.Errorf("log = %q, want %q", got, tc.log)
			}
		})
	}
}

func TestSpawnAppendsEntries(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "channels/c", `echo "run" >&2`)
	s := spec(root, "c", "channels/c")
	s.Timeout, s.MaxBytes = 0, 0
	for range 2 {
		p, err := Spawn(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		drain(p)
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	entry := "run\n== TIME ended; program exited with status 0 after N.Ns ==\n"
	if got := readLog(t, root, "c"); got != entry+entry {
		t.Errorf("log = %q", got)
	}
}

func TestSpawnCanceled(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "channels/c", `sleep 100 & echo $! > child.pid; echo up; wait`)
	ctx, cancel := context.WithCancel(context.Background())
	s := spec(root, "c", "channels/c")
	s.Timeout, s.MaxBytes = 0, 0
	p, err := Spawn(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	if line != "up\n" {
		t.Fatalf("first line %q", line)
	}
	cancel()
	drain(p)
	if e := asError(t, p.Wait()); e.Kind != Canceled {
		t.Errorf("kind %v, want Canceled", e.Kind)
	}
	assertGone(t, readPid(t, root))
	if got := readLog(t, root, "c"); got != "== TIME stopped after N.Ns ==\n" {
		t.Errorf("log = %q", got)
	}
}

func TestSpawnTimeoutBoundsRun(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "channels/c", `sleep 100`)
	s := spec(root, "c", "channels/c")
	s.Timeout, s.MaxBytes = time.Second, 0
	p, err := Spawn(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	drain(p)
	if e := asError(t, p.Wait()); e.Kind != timeout || e.Error() != "c timed out after 1s; see logs/c.log" {
		t.Errorf("Wait = %q (kind %v)", e, e.Kind)
	}
	if got := readLog(t, root, "c"); got != "== TIME timed out after N.Ns ==\n" {
		t.Errorf("log = %q", got)
	}
}

func TestSpawnRejectsRunOptions(t *testing.T) {
	root := t.TempDir()
	for _, adjust := range []func(*Spec){
		func(s *Spec) { s.Stdin = []byte{} },
		func(s *Spec) { s.LogStdout = true },
	} {
		s := spec(root, "c", "true")
		adjust(&s)
		_, err := Spawn(context.Background(), s)
		if e := asError(t, err); e.Kind != Args || e.Error() != "command of c: Stdin and LogStdout apply to Run only" {
			t.Errorf("error = %q (kind %v)", e, e.Kind)
		}
	}
}

// exchange writes one line and expects one line back.
func exchange(t *testing.T, p *Process, send, want string) {
	t.Helper()
	if _, err := p.Stdin().Write([]byte(send + "\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(want))
	if _, err := io.ReadFull(p.Stdout(), buf); err != nil || string(buf) != want {
		t.Fatalf("read %q, %v; want %q", buf, err, want)
	}
}

// drain reads stdout to its end.
func drain(p *Process) string {
	b, _ := io.ReadAll(p.Stdout())
	return string(b)
}
