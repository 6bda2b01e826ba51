package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// memoryCLI runs bf remember, recall or brief as bf-memory VERB and returns its stdout and
// exit code.
func (f *fixture) memoryCLI(t *testing.T, verb string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bf-memory"), append(append([]string{verb}, args...), "--brain", f.brain)...)
	cmd.Dir, cmd.Env = f.work, f.env()
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out, []byte("\n")), code
}

// TestMemoryTools: the remember, recall and brief tools answer exactly as the CLI.
func TestMemoryTools(t *testing.T) {
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./bf-memory")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building bf-memory: %v: %s", err, out)
	}
	t.Setenv("BF_NOW", "2026-01-01T00:00:00Z")
	f := newFixture(t)
	s := f.start(t, "--brain", f.brain)

	// A first save through the tool, then the same save through both: unchanged, equal.
	first := s.call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since March","body":"stage-3 runs staging."}`)
	if first.IsError || !strings.Contains(text(t, first), `"action":"created"`) {
		t.Fatalf("remember: %s", text(t, first))
	}
	cli, code := f.memoryCLI(t, "remember", "--type", "infra", "--title", "Staging box is stage-3 since March", "--body", "stage-3 runs staging.")
	if code != 0 {
		t.Fatalf("bf remember exit %d: %s", code, cli)
	}
	sameAsCLI(t, s.call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since March","body":"stage-3 runs staging."}`), cli)

	// A refused duplicate: the tool's error text is the CLI's refusal document.
	cli, code = f.memoryCLI(t, "remember", "--type", "infra", "--title", "Staging box is stage-3 since April", "--body", "x")
	res := s.call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since April","body":"x"}`)
	if code != 2 || !res.IsError || text(t, res) != string(cli) || !strings.Contains(string(cli), `"reason":"duplicate"`) {
		t.Fatalf("refusal: cli %d %s, tool %v %s", code, cli, res.IsError, text(t, res))
	}

	cli, _ = f.memoryCLI(t, "recall", "staging box", "--no-touch")
	sameAsCLI(t, s.call(t, "recall", `{"query":"staging box","no_touch":true}`), cli)
	cli, _ = f.memoryCLI(t, "recall", "--no-touch", "--limit", "3")
	sameAsCLI(t, s.call(t, "recall", `{"no_touch":true,"limit":3}`), cli)
	cli, _ = f.memoryCLI(t, "brief", "--bytes", "300")
	sameAsCLI(t, s.call(t, "brief", `{"bytes":300}`), cli)
	cli, _ = f.memoryCLI(t, "brief")
	sameAsCLI(t, s.call(t, "brief", `{}`), cli)

	// Invalid input is refused with the CLI's message.
	wantError(t, s.call(t, "recall", `{"query":"x","scope":"Bad Scope"}`), func(m string) bool {
		return strings.HasPrefix(m, "invalid input: --scope: ")
	}, "the scope named")
	// Arguments the published schema excludes are refused in the words of every tool.
	wantError(t, s.call(t, "remember", `{"type":"infra","title":"t","body":"b","pin":"yes"}`), func(m string) bool {
		return m == `invalid input: pin: must be true or false (got "yes")`
	}, "the shared checker's refusal")
	wantError(t, s.call(t, "recall", `{"limit":0}`), func(m string) bool {
		return m == "invalid input: limit: must be 1 to 50 (got 0)"
	}, "the shared checker's refusal")
}

// TestPipelinedRememberThenRecall: a host that writes a remember and then a recall without
// waiting for the first answer gets a recall that sees the memory just saved, every time.
func TestPipelinedRememberThenRecall(t *testing.T) {
	t.Setenv("BF_NOW", "2026-01-01T00:00:00Z")
	f := newFixture(t)
	const pairs = 20
	var lines []string
	for i := range pairs {
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"remember-%d","method":"tools/call","params":{"name":"remember","arguments":{"type":"fact","title":"Locker %d code","body":"Locker %d opens with code q%dz."}}}`, i, i, i, i),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"recall-%d","method":"tools/call","params":{"name":"recall","arguments":{"query":"q%dz","no_touch":true}}}`, i, i))
	}
	recalled := map[string][]string{}
	for _, line := range f.wire(t, "2025-06-18", lines...) {
		var resp struct {
			ID     string `json:"id"`
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Items []struct {
						Title string `json:"title"`
					} `json:"items"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if resp.Result.IsError {
			t.Fatalf("%s: %s", resp.ID, line)
		}
		if strings.HasPrefix(resp.ID, "recall-") {
			for _, it := range resp.Result.StructuredContent.Items {
				recalled[resp.ID] = append(recalled[resp.ID], it.Title)
			}
		}
	}
	want := map[string][]string{}
	for i := range pairs {
		want[fmt.Sprintf("recall-%d", i)] = []string{fmt.Sprintf("Locker %d code", i)}
	}
	if diff := cmp.Diff(want, recalled); diff != "" {
		t.Errorf("what each pipelined recall found (-want +got):\n%s", diff)
	}
}
