package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/bfgo/bf/libbf/mcptest"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bf-mcp-test-bin-")
	if err != nil {
		panic(err)
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./bf-mcp", "./bf-search", "./bf-read", "./bf-init", "./bf-index")
	build.Dir = repoRoot()
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("building the binaries: " + err.Error())
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(self))
}

// fixture is a copy of the example brain with a private home, plus one large note whose
// text comes back in pages.
type fixture struct {
	brain, home, work string
	// extraEnv is added to the environment of every program the test starts.
	extraEnv []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	tmp := t.TempDir()
	f := &fixture{brain: filepath.Join(tmp, "brain"), home: filepath.Join(tmp, "home"), work: filepath.Join(tmp, "work")}
	if err := os.CopyFS(f.brain, os.DirFS(filepath.Join(repoRoot(), "examples", "brain"))); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{f.home, f.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	mcptest.WriteLargeNote(t, f.brain)
	return f
}

func (f *fixture) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "BF_BRAIN", "TZ":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "HOME="+f.home, "TZ=UTC"), f.extraEnv...)
}

// cli runs a built CLI binary and returns its stdout without the trailing newline.
func (f *fixture) cli(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	if name == "bf-read" {
		// bf-read serves read and export: run directly, it takes the verb first.
		args = append([]string{"read"}, args...)
	}
	cmd := exec.Command(filepath.Join(binDir, name), append(args, "--brain", f.brain)...)
	cmd.Dir, cmd.Env = f.work, f.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v: %s", name, args, err, stderr.String())
	}
	return bytes.TrimSuffix(out, []byte("\n"))
}

// session is the bf-mcp binary driven by mcp-go's client.
type session struct {
	*mcptest.Session
	cmd *exec.Cmd
}

func (f *fixture) start(t *testing.T, args ...string) *session {
	t.Helper()
	s := &session{}
	var mu sync.Mutex
	c, err := client.NewStdioMCPClientWithOptions(filepath.Join(binDir, "bf-mcp"), nil, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Dir, cmd.Env = f.work, f.env()
			mu.Lock()
			s.cmd = cmd
			mu.Unlock()
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s.Session = mcptest.Initialize(t, c)
	return s
}

// TestSameAsCLI: through the binaries, a tool's result is what the command prints for the
// same request, byte for byte (libbf/mcpserver's tests cover the protocol in process).
func TestSameAsCLI(t *testing.T) {
	f := newFixture(t)
	s := f.start(t, "--brain", f.brain)
	first := mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"invoice","limit":2}`), f.cli(t, "bf-search", "invoice", "--limit", "2"))
	next, ok := first["next_offset"].(float64)
	if !ok {
		t.Fatalf("no next_offset in %v", first)
	}
	n := strconv.FormatInt(int64(next), 10)
	mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"invoice","limit":2,"offset":`+n+`}`), f.cli(t, "bf-search", "invoice", "--limit", "2", "--offset", n))
	mcptest.SameAsCLI(t, s.Call(t, "read", `{}`), f.cli(t, "bf-read"))
	mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/ledger.md","rel":"links"}`), f.cli(t, "bf-read", "concepts/ledger.md", "--rel", "links"))
	page := mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/retention.md"}`), f.cli(t, "bf-read", "concepts/retention.md"))
	if next, ok := page["next_offset"].(float64); ok {
		n := strconv.FormatInt(int64(next), 10)
		mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/retention.md","offset":`+n+`}`), f.cli(t, "bf-read", "concepts/retention.md", "--offset", n))
	} else {
		t.Fatalf("the large note came back in one page: %v", page)
	}
}

// TestStartup: the selection is checked before serving, with the CLI's exit codes.
func TestStartup(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--brain", filepath.Join(f.work, "missing")}, 1, "does not exist"},
		{[]string{"--brain="}, 2, "bf: "},
		{[]string{"extra"}, 2, "takes no arguments"},
	} {
		cmd := exec.Command(filepath.Join(binDir, "bf-mcp"), c.args...)
		cmd.Dir, cmd.Env = f.work, f.env()
		cmd.Stdin = strings.NewReader("")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%q: %v, stderr %q; want exit %d", c.args, err, stderr.String(), c.code)
		}
	}
}

// TestSignal: SIGTERM ends a serving server with exit 130.
func TestSignal(t *testing.T) {
	f := newFixture(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(filepath.Join(binDir, "bf-mcp"), "--brain", f.brain)
		cmd.Dir, cmd.Env = f.work, f.env()
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until it serves, then signal it.
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("%v: %v, want exit 130", sig, err)
		}
		in.Close()
	}
}

// TestSoak makes 1,000 mixed calls in one session and fails only on a gross leak.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	f := newFixture(t)
	s := f.start(t, "--brain", f.brain)
	calls := []struct{ tool, args string }{
		{"search", `{"query":"invoice","limit":5}`},
		{"search", `{"query":"ledger migration","scope":"projects"}`},
		{"search", `{"query":"invoice","limit":2,"offset":2}`},
		{"read", `{}`},
		{"read", `{"ref":"concepts/ledger.md"}`},
		{"read", `{"ref":"tasks"}`},
		{"read", `{"ref":"concepts/ledger.md","rel":"links"}`},
		{"read", `{"ref":"concepts/retention.md","offset":1000}`},
		{"read", `{"ref":"2026-13"}`},
		{"search", `{"query":"invoice","limit":0}`},
	}
	// Warm up, then measure.
	for _, c := range calls {
		s.Call(t, c.tool, c.args)
	}
	before := rss(t, s.cmd.Process.Pid)
	start := time.Now()
	for i := range 1000 {
		c := calls[i%len(calls)]
		res := s.Call(t, c.tool, c.args)
		if wantErr := i%len(calls) >= 8; res.IsError != wantErr {
			t.Fatalf("call %d %s %s: error %v: %s", i, c.tool, c.args, res.IsError, mcptest.Text(t, res))
		}
	}
	after := rss(t, s.cmd.Process.Pid)
	t.Logf("1000 calls in %v; RSS %d KiB before, %d KiB after", time.Since(start).Round(time.Millisecond), before, after)
	if after-before > 64<<10 {
		t.Errorf("RSS grew by %d KiB over 1000 calls", after-before)
	}
}

// rss is a process's resident set size in KiB.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// trust registers the fixture's brain on its machine with collection trust, which lets its
// declared programs and providers run.
func (f *fixture) trust(t *testing.T) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bf-init"), "register", "--collect", f.brain)
	cmd.Dir, cmd.Env = f.work, f.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bf register --collect: %v: %s", err, out)
	}
}
