package proc

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brainfix"
)

func TestRunOutcomes(t *testing.T) {
	start := time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		body    string
		adjust  func(*Spec)
		args    []string
		stdout  string
		kind    Kind
		status  int
		signal  string
		message string
		log     string
	}{
		{
			name: "ok", body: "echo out; echo err >&2",
			stdout: "out\n", log: "== TIME ok ==\nerr\n",
		},
		{
			name: "stderr without final newline", body: "printf x >&2",
			log: "== TIME ok ==\nx\n",
		},
		{
			name: "exit status", body: "echo bad >&2; exit 3",
			kind: Exit, status: 3, message: "s exited with status 3; see logs/s.log",
			log: "== TIME exit 3 ==\nbad\n",
		},
		{
			name: "killed by a signal", body: "kill -SEGV $$",
			kind: Exit, status: 139, signal: "SIGSEGV", message: "s was killed by SIGSEGV; see logs/s.log",
			log: "== TIME killed by SIGSEGV ==\n",
		},
		{
			name: "output exactly max_bytes", body: "printf 1234",
			adjust: func(s *Spec) { s.MaxBytes = 4 },
			stdout: "1234", log: "== TIME ok ==\n",
		},
		{
			name: "output one byte over max_bytes", body: "printf 12345",
			adjust: func(s *Spec) { s.MaxBytes = 4 },
			kind:   overflow, message: "s printed more than 4 bytes (max_bytes); see logs/s.log",
			log: "== TIME output over 4 bytes ==\n",
		},
		{
			name: "log routine keeps stdout", body: "echo e >&2; printf line",
			adjust: func(s *Spec) { s.LogStdout = true },
			stdout: "line", log: "== TIME ok ==\ne\nline\n",
		},
		{
			name: "helper holds stdout", body: "(sleep 30; echo late) & echo early",
			kind:    outputHeld,
			message: "s exited but a process it started kept its output open; make background helpers close stdout; see logs/s.log",
			log:     "== TIME output held open after exit ==\n",
		},
		{
			name: "helper closes stdout within the grace", body: "(sleep 0.2; echo late) & echo early",
			stdout: "early\nlate\n", log: "== TIME ok ==\n",
		},
		{
			name: "stdin delivered", body: "cat",
			adjust: func(s *Spec) { s.Stdin = []byte("a\nb\n") },
			stdout: "a\nb\n", log: "== TIME ok ==\n",
		},
		{
			name: "stdin is /dev/null by default", body: "cat; echo end",
			stdout: "end\n", log: "== TIME ok ==\n",
		},
		{
			name: "extra environment", body: `printf %s "$BF_BRAIN"`,
			adjust: func(s *Spec) { s.Env = []string{"BF_BRAIN=/b"} },
			stdout: "/b", log: "== TIME ok ==\n",
		},
		{
			name: "arguments expanded", body: `printf '%s\n' "$@"`,
			args:   []string{"{{start}}", "--end={{end}}", "{{lines:ids.txt}}", "{{home}}"},
			stdout: "2026-10-16T09:00:00.000000Z\n--end=2026-10-16T10:00:00.000000Z\nid 1\nid-2\n/home/u\n",
			log:    "== TIME ok ==\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			brainfix.Script(t, root, "sensors/s", tc.body)
			brainfix.WriteFile(t, root, "ids.txt", []byte("# ids\nid 1\n\nid-2\n"), 0o644)
			s := spec(root, "s", append([]string{"sensors/s"}, tc.args...)...)
			s.Vars = Vars{Home: "/home/u", Start: start, End: start.Add(time.Hour)}
			if tc.adjust != nil {
				tc.adjust(&s)
			}
			res, err := Run(context.Background(), s)
			if tc.kind == 0 {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if diff := cmp.Diff(tc.stdout, string(res.Stdout)); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
				if res.LogErr != nil || res.Elapsed <= 0 {
					t.Errorf("LogErr %v, Elapsed %v", res.LogErr, res.Elapsed)
				}
			} else {
				e := asError(t, err)
				if res != nil {
					t.Errorf("failed run returned a result")
				}
				got := [4]any{e.Kind, e.Status, e.Signal, e.Error()}
				want := [4]any{tc.kind, tc.status, tc.signal, tc.message}
				if got != want {
					t.Errorf("error = %v, want %v", got, want)
				}
				if e.Log != "logs/s.log" || e.LogErr != nil {
					t.Errorf("Log %q, LogErr %v", e.Log, e.LogErr)
				}
			}
			if diff := cmp.Diff(tc.log, readLog(t, root, "s")); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "routines/r", "pwd -P")
	res, err := Run(context.Background(), spec(root, "r", "routines/r"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(root)
	if got := string(res.Stdout); got != want+"\n" {
		t.Errorf("working directory %q, want %q", got, want)
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "sensors/s", "sleep 100 & echo $! > child.pid; wait")
	s := spec(root, "s", "sensors/s")
	s.Timeout = 2 * time.Second
	_, err := Run(context.Background(), s)
	e := asError(t, err)
	if e.Kind != timeout || e.After != 2*time.Second || e.Error() != "s timed out after 2s; see logs/s.log" {
		t.Errorf("error = %v (kind %v, after %v)", e, e.Kind, e.After)
	}
	assertGone(t, readPid(t, root))
	if got := readLog(t, root, "s"); got != "== TIME timeout after 2s ==\n" {
		t.Errorf("log = %q", got)
	}
}

func TestCancelKillsGroup(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "sensors/s", "sleep 100 & echo $! > child.pid; wait")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if b, _ := os.ReadFile(filepath.Join(root, "child.pid")); bytes.HasSuffix(b, []byte("\n")) {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := Run(ctx, spec(root, "s", "sensors/s"))
	e := asError(t, err)
	if e.Kind != Canceled || !errors.Is(err, context.Canceled) || e.Error() != "s was canceled; see logs/s.log" {
		t.Errorf("error = %v (kind %v)", e, e.Kind)
	}
	assertGone(t, readPid(t, root))
	if got := readLog(t, root, "s"); got != "== TIME canceled ==\n" {
		t.Errorf("log = %q", got)
	}
}

func TestCanceledBeforeStart(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "sensors/s", "touch ran")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, spec(root, "s", "sensors/s"))
	if e := asError(t, err); e.Kind != Canceled || e.Error() != "s was canceled" {
		t.Errorf("error = %v (kind %v)", e, e.Kind)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the program ran")
	}
}

func TestHelperKilledAfterLeaderExits(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "sensors/s", "sleep 100 >/dev/null 2>&1 & echo $! > child.pid; echo done")
	res, err := Run(context.Background(), spec(root, "s", "sensors/s"))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "done\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	assertGone(t, readPid(t, root))
}

func TestHeldOutputKillsHelper(t *testing.T) {
	root := t.TempDir()
	brainfix.Script(t, root, "sensors/s", "sleep 100 & echo $! > child.pid")
	_, err := Run(context.Background(), spec(root, "s", "sensors/s"))
	if e := asError(t, err); e.Kind != outputHeld {
		t.Errorf("kind %v, want OutputHeld", e.Kind)
	}
	assertGone(t, readPid(t, root))
}

func TestOverflowStopsEarly(t *testing.T) {
	root := t.TempDir()
	// yes never ends on its own: only the cap can end this run before its timeout.
	s := spec(root, "s", "yes")
	s.MaxBytes = 100000
	_, err := Run(context.Background(), s)
	e := asError(t, err)
	if e.Kind != overflow || e.Limit != 100000 || e.Error() != "s printed more than 100000 bytes (max_bytes); see logs/s.log" {
		t.Errorf("error = %v (kind %v, limit %d)", e, e.Kind, e.Limit)
	}
}

func TestStderrKeepsNewest(t *testing.T) {
	root := t.TempDir()
	var data []byte
	for i := 0; len(data) < 300<<10; i++ {
		data = append(data, []byte(strings.Repeat(string(rune('a'+i%26)), 99)+"\n")...)
	}
	brainfix.WriteFile(t, root, "big.txt", data, 0o644)
	brainfix.Script(t, root, "sensors/s", "cat big.txt >&2")
	if _, err := Run(context.Background(), spec(root, "s", "sensors/s")); err != nil {
		t.Fatal(err)
	}
	want := "== TIME ok ==\n" + string(data[len(data)-maxStderr:])
	if got := readLog(t, root, "s"); got != want {
		t.Errorf("log has %d bytes starting %q, want %d bytes starting %q", len(got), got[:40], len(want), want[:40])
	}
}

func TestOversizeEntryKeepsHeaderAndNewest(t *testing.T) {
	root := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcde\n"), (2<<20)/16)
	brainfix.WriteFile(t, root, "big.txt", data, 0o644)
	brainfix.Script(t, root, "routines/r", "cat big.txt")
	s := spec(root, "r", "routines/r")
	s.MaxBytes, s.LogStdout = 4<<20, true
	brainfix.WriteFile(t, root, "logs/r.log", []byte("== 2026-01-01T00:00:00.000000Z ok ==\nold\n"), 0o600)
	if _, err := Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	got := readLog(t, root, "r")
	head := "== TIME ok ==\n"
	if len(got) != maxLog-len("== 2026-01-01T00:00:00.000000Z ")+len("== TIME ") ||
		!strings.HasPrefix(got, head) || got[len(head):] != string(data[len(data)-(len(got)-len(head)):]) {
		t.Errorf("log of %d bytes starts %q", len(got), got[:min(40, len(got))])
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, root string)
		cmd      string
		kind     Kind
		message  string
		notExist bool
	}{
		{
			name: "missing", cmd: "sensors/nope", kind: Start, notExist: true,
			message: "could not start sensors/nope: it does not exist; create it or correct the command",
		},
		{
			name: "not executable", cmd: "sensors/x", kind: Start,
			setup: func(t *testing.T, root string) {
				brainfix.WriteFile(t, root, "sensors/x", []byte("#!/bin/sh\n"), 0o644)
			},
			message: "could not start sensors/x: it is not executable; run chmod +x sensors/x",
		},
		{
			name: "symbolic link", cmd: "sensors/link", kind: Start,
			setup: func(t *testing.T, root string) {
				brainfix.Script(t, root, "sensors/real", "true")
				if err := os.Symlink("real", filepath.Join(root, "sensors/link")); err != nil {
					t.Fatal(err)
				}
			},
			message: "could not start sensors/link: it is a symbolic link; put the file itself in the brain",
		},
		{
			name: "folder behind a symbolic link", cmd: "sensors/x", kind: Start,
			setup: func(t *testing.T, root string) {
				other := t.TempDir()
				brainfix.Script(t, other, "x", "true")
				if err := os.Symlink(other, filepath.Join(root, "sensors")); err != nil {
					t.Fatal(err)
				}
			},
			message: "could not start sensors/x: it passes through the symbolic link sensors; keep the files themselves in the brain",
		},
		{
			name: "folder", cmd: "sensors/d", kind: Start,
			setup: func(t *testing.T, root string) {
				if err := os.MkdirAll(filepath.Join(root, "sensors/d"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			message: "could not start sensors/d: it is not a regular file",
		},
		{
			name: "not a program", cmd: "sensors/x", kind: Start,
			setup: func(t *testing.T, root string) {
				brainfix.WriteFile(t, root, "sensors/x", []byte{0, 1, 2, 3, 4, 5}, 0o755)
			},
			message: "could not start sensors/x (exec format error); check its executable bit and interpreter",
		},
		{
			name: "missing interpreter", cmd: "sensors/x", kind: Start, notExist: true,
			setup: func(t *testing.T, root string) {
				brainfix.WriteFile(t, root, "sensors/x", []byte("#!/nonexistent/interp\n"), 0o755)
			},
			message: "could not start sensors/x: the program's interpreter /nonexistent/interp is not installed; install it or change the #! line of sensors/x",
		},
		{
			name: "interpreter missing from PATH", cmd: "sensors/x", kind: Start, notExist: true,
			setup: func(t *testing.T, root string) {
				brainfix.WriteFile(t, root, "sensors/x", []byte("#!/usr/bin/env bf-test-no-such-python3 -u\nprint(1)\n"), 0o755)
			},
			message: "could not start sensors/x: the program's interpreter bf-test-no-such-python3 is not installed; install it or change the #! line of sensors/x",
		},
		{
			name: "not on PATH", cmd: "bf-test-no-such-program", kind: NotOnPath,
			message: "bf-test-no-such-program is not on PATH; install it or correct the command of s",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, root)
			}
			_, err := Run(context.Background(), spec(root, "s", tc.cmd))
			e := asError(t, err)
			if e.Kind != tc.kind || e.Error() != tc.message || e.Log != "logs/s.log" {
				t.Errorf("error = %q (kind %v, log %q), want %q (kind %v)", e, e.Kind, e.Log, tc.message, tc.kind)
			}
			if errors.Is(err, fs.ErrNotExist) != tc.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v", !tc.notExist)
			}
			if got, want := readLog(t, root, "s"), "== TIME start failed ==\n"+tc.message+"\n"; got != want {
				t.Errorf("log = %q, want %q", got, want)
			}
		})
	}
}

func TestSpecErrors(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name    string
		adjust  func(*Spec)
		message string
	}{
		{"empty name", func(s *Spec) { s.Name = "" }, "the program name must be a nonempty file name without slashes, control characters or a leading dot"},
		{"name with slash", func(s *Spec) { s.Name = "a/b" }, "command of a/b: the program name must be a nonempty file name without slashes, control characters or a leading dot"},
		{"hidden name", func(s *Spec) { s.Name = ".s" }, "command of .s: the program name must be a nonempty file name without slashes, control characters or a leading dot"},
		{"relative root", func(s *Spec) { s.Root = "brain" }, "command of s: the brain root must be an absolute path"},
		{"missing root", func(s *Spec) { s.Root = filepath.Join(root, "nope") }, "command of s: the brain root is not a folder; check the brain's location"},
		{"no max_bytes", func(s *Spec) { s.MaxBytes = 0 }, "command of s: max_bytes must be positive"},
		{"no timeout", func(s *Spec) { s.Timeout = 0 }, "command of s: timeout must be positive"},
		{"bad env", func(s *Spec) { s.Env = []string{"A=1", "B"} }, "command of s: Env[1] must read KEY=VALUE"},
		{"absolute program", func(s *Spec) { s.Command = []string{"/bin/sh"} }, "command of s: command[0] must name a program on PATH or a normalised path inside the brain"},
		{"dot-dot program", func(s *Spec) { s.Command = []string{"sensors/../x"} }, "command of s: command[0] must name a program on PATH or a normalised path inside the brain"},
		{"placeholder without value", func(s *Spec) { s.Command = []string{"true", "{{start}}"} }, "command of s: command[1] uses {{start}} but this run has no window start"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(root, "s", "true")
			tc.adjust(&s)
			_, err := Run(context.Background(), s)
			if e := asError(t, err); e.Kind != Args || e.Error() != tc.message {
				t.Errorf("error = %q (kind %v), want %q", e, e.Kind, tc.message)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "logs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a command that never started wrote a log: %v", err)
	}
}

func TestRelativePathEntriesDropped(t *testing.T) {
	tests := []struct {
		name string
		path func(root string) string
		kind Kind
	}{
		{"relative entry", func(string) string { return "bin:/nonexistent" }, NotOnPath},
		{"empty entry", func(string) string { return ":/nonexistent" }, NotOnPath},
		{"dot entry", func(string) string { return ".:/nonexistent" }, NotOnPath},
		{"absolute entry", func(root string) string { return filepath.Join(root, "bin") }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			brainfix.WriteFile(t, root, "bin/mytool", []byte("#!/bin/sh\necho tool\n"), 0o755)
			brainfix.WriteFile(t, root, "mytool", []byte("#!/bin/sh\necho tool\n"), 0o755)
			t.Setenv("PATH", tc.path(root))
			res, err := Run(context.Background(), spec(root, "s", "mytool"))
			if tc.kind == 0 {
				if err != nil || string(res.Stdout) != "tool\n" {
					t.Errorf("Run = %v, %v", res, err)
				}
				return
			}
			if e := asError(t, err); e.Kind != tc.kind {
				t.Errorf("kind %v, want %v", e.Kind, tc.kind)
			}
		})
	}
}

func TestEnvScrubbedInChild(t *testing.T) {
	set := map[string]string{
		"LD_LIBRARY_PATH": "/x", "DYLD_INSERT_LIBRARIES": "/x", "PYTHONPATH": "/x",
		"PYTHONSTARTUP": "/x", "NODE_OPTIONS": "-r x", "BASH_ENV": "/x", "ENV": "/x",
		"LUA_INIT_5_4": "x", "PERL5OPT": "-Mx", "JAVA_TOOL_OPTIONS": "-x", "ZDOTDIR": "/x",
		"PHPRC": "/x", "PS4": "x", "BASH_FUNC_f%%": "() { :; }",
		"KEEP_ME": "1", "MYPYTHON": "1", "ENVIRONMENT": "1", "PROVIDER_TOKEN": "t",
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
	t.Setenv("PATH", "rel:"+os.Getenv("PATH")+"::")
	root := t.TempDir()
	s := spec(root, "s", "env")
	s.Env = []string{"BF_BRAIN=" + root, "KEEP_ME=2"}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = append(got[k], v)
		}
	}
	want := map[string][]string{
		"KEEP_ME": {"2"}, "MYPYTHON": {"1"}, "ENVIRONMENT": {"1"}, "PROVIDER_TOKEN": {"t"},
		"BF_BRAIN": {root}, "PATH": {absolutePath(os.Getenv("PATH"))},
	}
	for k := range set {
		if _, ok := want[k]; !ok {
			want[k] = nil
		}
	}
	for k, w := range want {
		if diff := cmp.Diff(w, got[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	if strings.Contains(got["PATH"][0], "rel") || strings.Contains(got["PATH"][0], "::") {
		t.Errorf("PATH kept a relative entry: %q", got["PATH"][0])
	}
}

func TestEnviron(t *testing.T) {
	tests := []struct {
		name        string
		base, extra []string
		want        []string
	}{
		{
			name: "injection variables removed",
			base: []string{"HOME=/h", "LD_PRELOAD=x", "DYLD_X=x", "GCONV_PATH=x", "BASH_ENV=x", "ENV=x",
				"BASH_FUNC_f%%=() {}", "SHELLOPTS=x", "BASHOPTS=x", "PS4=x", "PYTHONHOME=x", "NODE_OPTIONS=x",
				"NODE_PATH=x", "RUBYOPT=x", "RUBYLIB=x", "PERL5OPT=x", "PERL5LIB=x", "PERLLIB=x",
				"JAVA_TOOL_OPTIONS=x", "_JAVA_OPTIONS=x", "JDK_JAVA_OPTIONS=x", "LUA_INIT=x", "LUA_INIT_5_3=x",
				"ZDOTDIR=x", "PHPRC=x", "PHP_INI_SCAN_DIR=x", "TOKEN=secret"},
			want: []string{"HOME=/h", "TOKEN=secret"},
		},
		{
			name: "lookalikes kept",
			base: []string{"ENVX=1", "XLD_PRELOAD=1", "PS41=1", "NODE_ENV=1", "PHP=1", "LUA_PATH=1"},
			want: []string{"ENVX=1", "XLD_PRELOAD=1", "PS41=1", "NODE_ENV=1", "PHP=1", "LUA_PATH=1"},
		},
		{
			name: "relative and empty PATH entries dropped",
			base: []string{"PATH=/usr/bin::bin:./x:/bin:"},
			want: []string{"PATH=/usr/bin:/bin"},
		},
		{
			name: "PATH without absolute entries left out",
			base: []string{"PATH=bin:", "A=1"},
			want: []string{"A=1"},
		},
		{
			name:  "extra appended and overriding",
			base:  []string{"A=1", "BF_BRAIN=/old", "B=2"},
			extra: []string{"BF_BRAIN=/new", "C=3"},
			want:  []string{"A=1", "B=2", "BF_BRAIN=/new", "C=3"},
		},
		{
			name: "malformed entries dropped",
			base: []string{"NOEQUALS", "=x", "A="},
			want: []string{"A="},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, environ(tc.base, tc.extra)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
