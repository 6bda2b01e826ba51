package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/compat"
	"github.com/bfgo/bf/libbf/yamlx"
)

// suite is an evals/*.yaml retrieval suite. Only its search cases run here; read cases
// need bf read.
type suite struct {
	Version int        `json:"version"`
	Cases   []evalCase `json:"cases"`
}

type evalCase struct {
	Name   string   `json:"name"`
	Query  string   `json:"query"`
	Read   *string  `json:"read"`
	Scope  string   `json:"scope"`
	Limit  int      `json:"limit"`
	Expect []string `json:"expect"`
	Forbid []string `json:"forbid"`
	Text   []string `json:"text"`
	Empty  bool     `json:"empty"`
}

type searchReply struct {
	Items []struct {
		Ref     string `json:"ref"`
		Title   string `json:"title"`
		Excerpt string `json:"excerpt"`
	} `json:"items"`
	Problems []json.RawMessage `json:"problems"`
	Stale    []string          `json:"stale"`
}

// runSuite runs every search case of the suite at brain/evals/retrieval.yaml through the
// real bf search, with the rules bf eval applies: expected refs among the first limit items
// (a whole-note ref matches its sections), forbidden refs absent, text found in a title or
// excerpt (case-insensitive), no problems and nothing stale. It returns how many ran.
func runSuite(t *testing.T, brain string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(brain, "evals", "retrieval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s suite
	if err := yamlx.Decode("evals/retrieval.yaml", data, &s, yamlx.Strict); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range s.Cases {
		if c.Read != nil {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			limit := c.Limit
			if limit == 0 {
				limit = 10
			}
			args := []string{"search", c.Query, "--limit", fmt.Sprint(limit), "--brain", brain}
			if c.Scope != "" {
				args = append(args, "--scope", c.Scope)
			}
			cmd := exec.Command(filepath.Join(binDir, "bf"), args...)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "BF_BRAIN=")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bf %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			var r searchReply
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatal(err)
			}
			var refs []string
			var text strings.Builder
			for _, it := range r.Items {
				refs = append(refs, it.Ref)
				text.WriteString(strings.ToLower(it.Title + "\n" + it.Excerpt + "\n"))
			}
			if len(r.Problems) > 0 || len(r.Stale) > 0 {
				t.Errorf("problems %s, stale %v", r.Problems, r.Stale)
			}
			if c.Empty && len(refs) > 0 {
				t.Errorf("want no items, got %v", refs)
			}
			for _, want := range c.Expect {
				if !slices.ContainsFunc(refs, func(got string) bool { return matches(want, got) }) {
					t.Errorf("missing %s in %v", want, refs)
				}
			}
			for _, bad := range c.Forbid {
				if slices.ContainsFunc(refs, func(got string) bool { return matches(bad, got) }) {
					t.Errorf("forbidden %s in %v", bad, refs)
				}
			}
			for _, frag := range c.Text {
				if !strings.Contains(text.String(), strings.ToLower(frag)) {
					t.Errorf("text %q absent from\n%s", frag, text.String())
				}
			}
		})
	}
	return ran
}

// matches reports whether a returned ref satisfies an expected one: equal, or a section
// of an expected whole note.
func matches(want, got string) bool {
	return got == want || (!strings.Contains(want, "#") && strings.HasPrefix(got, want+"#"))
}

func TestExampleBrainSearchCases(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(filepath.Dir(self)), "examples", "brain")
	if n := runSuite(t, copyTree(t, src, false)); n < 15 {
		t.Errorf("examples/brain/evals/retrieval.yaml has %d search cases; keep at least 15", n)
	}
}

func TestReferenceBrainSearchCases(t *testing.T) {
	runSuite(t, copyTree(t, compat.Dir(t), true))
}

// copyTree copies a brain into a temporary folder, so the test's cache never lands in the
// repository; bump rewrites format-7 version lines to 8.
func copyTree(t *testing.T, src string, bump bool) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "brain")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == ".bf" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bump && strings.HasSuffix(p, ".yaml") {
			data = []byte(strings.Replace(string(data), "version: 7", "version: 8", 1))
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
