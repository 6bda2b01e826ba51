package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/compat"
)

type evalReply struct {
	Cases []struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
	} `json:"cases"`
	MRR    float64 `json:"mrr"`
	Passed bool    `json:"passed"`
	Score  string  `json:"score"`
}

// runEval runs the real bf eval on a brain and returns its reply.
func runEval(t *testing.T, brain string) evalReply {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bf"), "eval", "--brain", brain)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "BF_BRAIN=")
	out, err := cmd.Output()
	var r evalReply
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("bf eval: %v %v\n%s", err, jerr, out)
	}
	for _, c := range r.Cases {
		if !c.Passed {
			t.Errorf("case %s failed:\n%s", c.Name, out)
		}
	}
	if err != nil || !r.Passed {
		t.Fatalf("bf eval: %v, score %s", err, r.Score)
	}
	return r
}

func TestExampleBrainEval(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(filepath.Dir(self)), "examples", "brain")
	if r := runEval(t, brainfix.Copy(t, src, false)); len(r.Cases) < 30 {
		t.Errorf("examples/brain/evals has %d cases; keep at least 30", len(r.Cases))
	}
}

// TestReferenceBrainEval runs the shared reference brain's own 23-case suite.
func TestReferenceBrainEval(t *testing.T) {
	r := runEval(t, brainfix.Copy(t, compat.Dir(t), true))
	if len(r.Cases) != 23 || r.MRR != 1 {
		t.Errorf("reference suite: %d cases, mrr %v; want 23 cases, mrr 1", len(r.Cases), r.MRR)
	}
}
