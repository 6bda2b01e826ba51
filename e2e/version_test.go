package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestVersionStamp builds binaries as make dist does, with one version stamped at link
// time, and finds it in bf --version, bf-search --version and MCP's serverInfo.
func TestVersionStamp(t *testing.T) {
	const stamp = "v9.8.7-stamp"
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self))
	bin := t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X github.com/bfgo/bf/libbf/release.stamp="+stamp,
		"-o", bin+string(filepath.Separator), "./bf", "./bf-search", "./bf-mcp")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct{ program, want string }{
		{"bf", "bf " + stamp + "\n"},
		{"bf-search", "bf-search " + stamp + "\n"},
	} {
		out, err := exec.Command(filepath.Join(bin, c.program), "--version").Output()
		if err != nil || string(out) != c.want {
			t.Errorf("%s --version = %q, %v; want %q", c.program, out, err, c.want)
		}
	}
	brain := filepath.Join(t.TempDir(), "brain")
	home := t.TempDir()
	initCmd := exec.Command(filepath.Join(binDir, "bf"), "init", brain)
	initCmd.Env = []string{"HOME=" + home}
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("bf init: %v\n%s", err, out)
	}
	mcp := exec.Command(filepath.Join(bin, "bf-mcp"), "--brain", brain)
	mcp.Env = []string{"HOME=" + home}
	mcp.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	out, err := mcp.Output()
	if err != nil {
		t.Fatalf("bf-mcp: %v\n%s", err, out)
	}
	var res struct {
		Result struct {
			ServerInfo struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Result.ServerInfo.Version != stamp {
		t.Errorf("initialize: %v\n%s", err, out)
	}
}
