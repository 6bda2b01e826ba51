package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
)

// brokenNote is a project note with a broken link, a missing heading and an undeclared
// relation, and a working link to hover on.
const brokenNote = `---
type: project
title: Broken
---

# Broken

See [the rules](tax-rules.md) and [rates](tax-engine.md#rate-tabel).
The [ledger](../concepts/ledger.md) feeds [billing](bf://acme/projects/billing-api.md?rel=feeds).
`

// TestNeovim runs bf lsp under a third-party client, Neovim's built-in one, headless: the
// diagnostics, a hover and a definition it receives are compared with
// testdata/lsp/nvim.want, and no server process is left when Neovim has quit.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (apt-get install neovim)")
	}
	_, self, _, _ := runtime.Caller(0)
	here := filepath.Dir(self)
	brain := brainfix.Copy(t, filepath.Join(filepath.Dir(here), "examples", "brain"), false)
	note := filepath.Join(brain, "projects", "broken.md")
	if err := os.WriteFile(note, []byte(brokenNote), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "nvim.out")
	server := filepath.Join(binDir, "bf-lsp")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-c", "luafile "+filepath.Join(here, "testdata", "lsp", "nvim.lua"))
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "XDG_DATA_HOME="+filepath.Join(home, ".data"), "BF_BRAIN=",
		"LSP_FILE="+note, "LSP_OUT="+out, "LSP_HOVER=8:8", "BF_LSP="+server, "BRAIN="+brain)
	cmd.Dir = brain
	done := make(chan error, 1)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("nvim: %v\n%s", err, output.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("nvim did not quit within 60 s\n%s", output.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote nothing: %v\n%s", err, output.String())
	}
	want, err := os.ReadFile(filepath.Join(here, "testdata", "lsp", "nvim.want"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("Neovim received:\n%s\nwant:\n%s", got, want)
	}
	// The server ends with its client: no bf-lsp of this build is left running.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := running(server)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bf-lsp still running after nvim quit: pids %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// running lists the processes whose executable is program, from /proc.
func running(program string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == program {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
