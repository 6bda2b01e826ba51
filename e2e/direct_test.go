package e2e

// Every verb runs the same way through the dispatcher (bf VERB ARGS) and directly from the
// binary serving it (bf-NAME ARGS, or bf-NAME VERB ARGS for a binary serving several
// verbs): the same stdout, stderr and exit code, byte for byte.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// directCases list each verb with the binary serving it and the argument lists to try.
var directCases = []struct {
	verb, binary string
	multi        bool // the binary serves several verbs and takes the verb first
	args         [][]string
}{
	{"init", "bf-init", true, [][]string{{"other"}, {}, {"--help"}}},
	{"register", "bf-init", true, [][]string{{"."}, {"a", "b"}, {"--help"}}},
	{"search", "bf-search", false, [][]string{{"welcome"}, {"welcome", "--limit", "1"}, {}, {"--help"}}},
	{"read", "bf-read", true, [][]string{{}, {"concepts/welcome.md"}, {"export"}, {"--help"}}},
	{"export", "bf-read", true, [][]string{{}, {"--kind", "edges"}, {"x"}, {"--help"}}},
	{"mcp", "bf-mcp", false, [][]string{{"x"}, {"--help"}}},
	{"lsp", "bf-lsp", false, [][]string{{"x"}, {"--help"}}},
	{"collect", "bf-collect", true, [][]string{{"nosuch"}, {}, {"--help"}}},
	{"update", "bf-collect", true, [][]string{{"--dry-run"}, {"--help"}}},
	{"status", "bf-collect", true, [][]string{{}, {"--help"}}},
	{"channel", "bf-channel", false, [][]string{{"read", "nosuch", "--since", "1d"}, {}, {"--help"}}},
	{"queue", "bf-queue", false, [][]string{{}, {"q-1"}, {"--retry"}, {"--help"}}},
	{"validate", "bf-index", true, [][]string{{}, {"x"}, {"--help"}}},
	{"build", "bf-index", true, [][]string{{}, {"--help"}}},
	{"eval", "bf-index", true, [][]string{{}, {"--help"}}},
	{"schema", "bf-index", true, [][]string{{}, {"--kind", "search-reply"}, {"--kind", "x"}, {"--help"}}},
	{"run", "bf-watch", true, [][]string{{}, {"nosuch"}, {"--help"}}},
	{"watch", "bf-watch", true, [][]string{{"--interval", "x"}, {"--help"}}},
	{"import", "bf-import", false, [][]string{{}, {"--help"}}},
	{"ask", "bf-ask", false, [][]string{{}, {"why"}, {"--help"}}},
	{"remember", "bf-memory", true, [][]string{{}, {"--type", "nosuch"}, {"--help"}}},
	{"recall", "bf-memory", true, [][]string{{"--limit", "0"}, {"--help"}}},
	{"brief", "bf-memory", true, [][]string{{"--bytes", "x"}, {"--help"}}},
	{"verify", "bf-memory", true, [][]string{{}, {"--help"}}},
	{"review", "bf-memory", true, [][]string{{}, {"--help"}}},
	{"forget", "bf-memory", true, [][]string{{}, {"--help"}}},
	{"scope", "bf-memory", true, [][]string{{}, {"--help"}}},
}

func TestDirectBinaries(t *testing.T) {
	base := t.TempDir()
	for _, c := range directCases {
		for _, args := range c.args {
			name := c.verb + " " + strings.Join(args, " ")
			t.Run(name, func(t *testing.T) {
				direct := []string{}
				if c.multi {
					direct = append(direct, c.verb)
				}
				direct = append(direct, args...)
				via := runFresh(t, base, "bf", append([]string{c.verb}, args...))
				own := runFresh(t, base, c.binary, direct)
				if via != own {
					t.Errorf("bf %s\n%s\n%s %s\n%s", name, via, c.binary, strings.Join(direct, " "), own)
				}
				if strings.Contains(via, "unknown verb") || strings.Contains(via, "not installed") {
					t.Errorf("bf %s did not reach %s:\n%s", name, c.binary, via)
				}
			})
		}
	}
}

// runFresh runs a program in a new registered brain at the same place each time, so the
// two ways of running a verb see identical worlds, and returns what it printed.
func runFresh(t *testing.T, base, program string, args []string) string {
	t.Helper()
	dir := filepath.Join(base, "w")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "TZ=UTC", "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}
	run := func(program string, args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(binDir, program), args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return "stdout:\n" + out.String() + "stderr:\n" + errb.String(), err
	}
	if out, err := run("bf", "init", "brain"); err != nil {
		t.Fatalf("bf init: %v\n%s", err, out)
	}
	if out, err := run("bf", "register", "brain", "--collect"); err != nil {
		t.Fatalf("bf register: %v\n%s", err, out)
	}
	dir = filepath.Join(dir, "brain")
	// Replies show modification times: both runs see the same ones.
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, fixed, fixed)
	}); err != nil {
		t.Fatal(err)
	}
	out, err := run(program, args...)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", program, err)
	}
	return out + "exit " + strconv.Itoa(code) + "\n"
}
