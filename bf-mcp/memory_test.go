package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/mcptest"
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
	first := s.Call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since March","body":"stage-3 runs staging."}`)
	if first.IsError || !strings.Contains(mcptest.Text(t, first), `"action":"created"`) {
		t.Fatalf("remember: %s", mcptest.Text(t, first))
	}
	cli, code := f.memoryCLI(t, "remember", "--type", "infra", "--title", "Staging box is stage-3 since March", "--body", "stage-3 runs staging.")
	if code != 0 {
		t.Fatalf("bf remember exit %d: %s", code, cli)
	}
	mcptest.SameAsCLI(t, s.Call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since March","body":"stage-3 runs staging."}`), cli)

	// A refused duplicate: the tool's error text is the CLI's refusal document, its ways
	// forward named as the tool's arguments instead of flags.
	const stored = "concepts/memory/staging-box-is-stage-3-since-march.md"
	cli, code = f.memoryCLI(t, "remember", "--type", "infra", "--title", "Staging box is stage-3 since April", "--body", "x")
	res := s.Call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since April","body":"x"}`)
	var cliRefusal, toolRefusal struct {
		Refused struct {
			Reason, Existing string
			Overlap          int
			Flags            []string
			Message          string
		}
	}
	if err := json.Unmarshal(cli, &cliRefusal); err != nil || code != 2 || !res.IsError {
		t.Fatalf("refusal: cli %d %s, tool %v %s", code, cli, res.IsError, mcptest.Text(t, res))
	}
	if err := json.Unmarshal([]byte(mcptest.Text(t, res)), &toolRefusal); err != nil {
		t.Fatal(err)
	}
	want := cliRefusal
	want.Refused.Flags = []string{`supersedes: "` + stored + `"`, "update: true", "allow_duplicate: true"}
	want.Refused.Message = stored + ` in global is already about this (75% title overlap):
  stored:  Staging box is stage-3 since March
  yours:   Staging box is stage-3 since April
Storing both would put two answers to one question in the brain. Pick one:
  the fact CHANGED       supersedes: "` + stored + `"
  same fact, better words  the remember tool with type: "infra", scope: "global", title: "Staging box is stage-3 since March", body: "x", update: true
  genuinely separate     allow_duplicate: true`
	if diff := cmp.Diff(want, toolRefusal); diff != "" || cliRefusal.Refused.Reason != "duplicate" {
		t.Errorf("duplicate refusal (-want +got):\n%s", diff)
	}
	// A different body for a stored title: the same, with its own ways forward.
	mcptest.WantError(t, s.Call(t, "remember", `{"type":"infra","title":"Staging box is stage-3 since March","body":"stage-4 runs staging."}`),
		func(m string) bool {
			return strings.Contains(m, `"flags":["update: true","supersedes: \"`+stored+`\""]`) &&
				strings.Contains(m, `same fact, better words   update: true (the old body is kept in history)\n  the fact CHANGED          supersedes: \"`+stored+`\"`) &&
				!strings.Contains(m, "--")
		}, "the changed-body refusal in arguments")

	// Values the memory tools refuse: invalid input naming the argument, and every flag the
	// reason names worded as the argument it is.
	for _, c := range []struct{ tool, args, want string }{
		{"recall", `{"query":"x","scope":"Bad Scope"}`, "invalid input: scope: expected levels of lowercase letters, digits, - and _ joined by : such as channel:deploy:prod"},
		{"brief", `{"scope":"global:x"}`, "invalid input: scope: global is the top level; write it alone"},
		{"remember", `{"type":"fact","title":"Deploy window","body":"b","confidence":"confirmed"}`,
			`invalid input: confidence: confirmed needs a source: pass source: TEXT ("stated by the user" counts for a preference) or ref: REF, or save it as confidence: "reported"`},
		{"remember", `{"type":"fact","title":"Deploy window","body":"b","source":"   "}`,
			`invalid input: source: is blank; say where it was checked, such as source: "stated by the user"`},
		{"remember", `{"type":"fact","title":"Deploy window","body":"b","review":"2026-02-01","no_review":true}`,
			"invalid input: no_review: give either review: DATE or no_review: true, not both"},
		{"remember", `{"type":"fact","title":"Deploy window","body":"b","fork_ok":true}`, "invalid input: fork_ok: applies only with supersedes: REF"},
		{"remember", `{"type":"fact","title":"Deploy window","body":"b","supersedes":"nope"}`,
			`invalid input: supersedes: no memory "nope"; give a ref that the recall tool printed, such as concepts/memory/NAME.md`},
		{"remember", `{"type":"fact","title":"Staging box is stage-3 since March","body":"stage-3 runs staging."}`,
			`invalid input: type: ` + stored + ` is a infra memory; keep type: "infra" or save a correction with supersedes: "` + stored + `"`},
	} {
		mcptest.WantError(t, s.Call(t, c.tool, c.args), func(m string) bool { return m == c.want }, c.tool+" "+c.args+": "+c.want)
	}

	cli, _ = f.memoryCLI(t, "recall", "staging box", "--no-touch")
	mcptest.SameAsCLI(t, s.Call(t, "recall", `{"query":"staging box","no_touch":true}`), cli)
	cli, _ = f.memoryCLI(t, "recall", "--no-touch", "--limit", "3")
	mcptest.SameAsCLI(t, s.Call(t, "recall", `{"no_touch":true,"limit":3}`), cli)
	cli, _ = f.memoryCLI(t, "brief", "--bytes", "300")
	mcptest.SameAsCLI(t, s.Call(t, "brief", `{"bytes":300}`), cli)
	cli, _ = f.memoryCLI(t, "brief")
	mcptest.SameAsCLI(t, s.Call(t, "brief", `{}`), cli)

	// Arguments the published schema excludes are refused in the words of every tool.
	mcptest.WantError(t, s.Call(t, "remember", `{"type":"infra","title":"t","body":"b","pin":"yes"}`), func(m string) bool {
		return m == `invalid input: pin: must be true or false (got "yes")`
	}, "the shared checker's refusal")
	mcptest.WantError(t, s.Call(t, "recall", `{"limit":0}`), func(m string) bool {
		return m == "invalid input: limit: must be 1 to 50 (got 0)"
	}, "the shared checker's refusal")
}
