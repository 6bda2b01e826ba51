package main

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/mcptest"
)

// effectCalls are the calls that make each tool do all it may: a fused search reaches the
// embeddings provider, a gotcha is stamped with the commit, its update replaces the body,
// recall counts a use and writes the commit line of the stamped memory.
var effectCalls = map[string][]string{
	"read":     {`{}`, `{"ref":"concepts/ledger.md"}`},
	"search":   {`{"query":"invoice"}`, `{"query":"ledger cutover","mode":"fused"}`},
	"remember": {`{"type":"gotcha","title":"Ledger cutover needs the freeze flag","body":"Set the freeze flag first."}`, `{"type":"gotcha","title":"Ledger cutover needs the freeze flag","body":"Set the freeze flag before the cutover starts.","update":true}`},
	"recall":   {`{"query":"ledger cutover freeze flag"}`},
	"brief":    {`{}`},
	"ask":      {`{"question":"when does dunning stop"}`},
}

// observed is what one tool's calls did.
type observed struct {
	changed  []string         // files changed: brain-relative, or "~/" and home-relative
	programs []string         // programs started, by the name their wrapper logs
	requests map[string]int64 // requests the provider server received, by provider
}

// TestEffects runs every tool the server offers with no providers, with command
// providers and with URL providers, and compares what the calls did (the files they
// changed in the brain and the home folder, outside the search cache .bf/; the programs
// they started; the requests they sent) with each tool's annotations, the effects its
// description states and the instructions' line for it.
func TestEffects(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	for _, providers := range []string{"none", "command", "url"} {
		t.Run(providers, func(t *testing.T) {
			f := newFixture(t)
			programs := filepath.Join(t.TempDir(), "programs.log")
			shims := t.TempDir()
			writeScript(t, filepath.Join(shims, "git"), "#!/bin/sh\necho git >> '"+programs+"'\nexec '"+realGit+"' \"$@\"\n")
			f.extraEnv = []string{"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH")}
			gitRepo(t, realGit, f.work)

			// Requests to the provider server, by the provider bf.yaml names.
			var embedRequests, askRequests atomic.Int64
			requests := func() map[string]int64 {
				return map[string]int64{"embeddings": embedRequests.Load(), "ask": askRequests.Load()}
			}
			switch providers {
			case "command":
				writeScript(t, filepath.Join(f.brain, "tools", "embed.sh"),
					"#!/bin/sh\necho embeddings >> '"+programs+"'\nwhile read -r line; do echo '{\"embedding\":[1,0.5,0.25]}'; done\n")
				f.addModel(t, programs)
				f.appendConfig(t, "embeddings:\n  command: [tools/embed.sh]\nask:\n  command: [tools/model.sh]\n")
			case "url":
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/v1/embeddings":
						embedRequests.Add(1)
					case "/v1/chat/completions":
						askRequests.Add(1)
					}
					provider(t, w, r)
				}))
				t.Cleanup(srv.Close)
				f.appendConfig(t, "embeddings:\n  url: "+srv.URL+"/v1/embeddings\n  model: test-embed\nask:\n  url: "+srv.URL+"/v1/chat/completions\n  model: test-chat\n")
			}
			if providers != "none" {
				f.trust(t)
				// The chunks need vectors before a fused search asks for the query's.
				build := exec.Command(filepath.Join(binDir, "bf-index"), "build", "--embed", "--brain", f.brain)
				build.Dir, build.Env = f.work, f.env()
				if out, err := build.CombinedOutput(); err != nil {
					t.Fatalf("bf build --embed: %v: %s", err, out)
				}
			}

			s := f.start(t, "--brain", f.brain)
			names := []string{"read", "search", "remember", "recall", "brief"}
			if providers != "none" {
				names = append(names, "ask")
			}
			tools := s.Tools(t, names...)

			// Call in a fixed order: recall needs what remember saved, and ask comes before
			// remember's first save changes bf.yaml, which rebuilds the cache without vectors.
			did := map[string]*observed{}
			for _, name := range []string{"read", "search", "ask", "remember", "recall", "brief"} {
				if !slices.Contains(names, name) {
					continue
				}
				o := &observed{requests: map[string]int64{}}
				did[name] = o
				for _, args := range effectCalls[name] {
					before, ran, sent := f.snapshot(t), lines(t, programs), requests()
					res := s.Call(t, name, args)
					if res.IsError {
						t.Fatalf("%s %s: %s", name, args, mcptest.Text(t, res))
					}
					o.changed = append(o.changed, changes(before, f.snapshot(t))...)
					o.programs = append(o.programs, lines(t, programs)[len(ran):]...)
					for p, n := range requests() {
						o.requests[p] += n - sent[p]
					}
				}
			}

			instructions := s.Instructions
			for _, tl := range tools {
				o := did[tl.Name]
				t.Logf("%s: changed %q, started %q, sent %v", tl.Name, o.changed, o.programs, o.requests)
				writes, runs, network := effectParts(t, tl)
				a := tl.Annotations
				if got, want := *a.ReadOnlyHint, len(o.changed) == 0; got != want {
					t.Errorf("%s: readOnlyHint %v, but its calls changed %q", tl.Name, got, o.changed)
				}
				if got, want := *a.IdempotentHint, len(o.changed) == 0; got != want {
					t.Errorf("%s: idempotentHint %v, but its calls changed %q", tl.Name, got, o.changed)
				}
				connected := o.requests["embeddings"]+o.requests["ask"] > 0
				if got := *a.OpenWorldHint; got != connected {
					t.Errorf("%s: openWorldHint %v, but its calls sent %v", tl.Name, got, o.requests)
				}
				if got, want := *a.DestructiveHint, tl.Name == "remember"; got != want {
					t.Errorf("%s: destructiveHint %v", tl.Name, got)
				}
				if (writes == "no file") != (len(o.changed) == 0) {
					t.Errorf("%s: says it writes %q, but its calls changed %q", tl.Name, writes, o.changed)
				}
				for _, p := range o.changed {
					if !named(writes, p) {
						t.Errorf("%s: changed %s, which %q does not name", tl.Name, p, writes)
					}
				}
				// Each program the description names was started, and only those; the same
				// for each provider it says it sends to.
				for _, p := range []string{"git", "embeddings", "ask"} {
					if says, started := strings.Contains(runs, p), slices.Contains(o.programs, p); says != started {
						t.Errorf("%s: says it runs %q, but its calls started %q", tl.Name, runs, o.programs)
					}
				}
				if (runs == "no program") != (len(o.programs) == 0) {
					t.Errorf("%s: says it runs %q, but its calls started %q", tl.Name, runs, o.programs)
				}
				for _, p := range []string{"embeddings", "ask"} {
					if says, sent := strings.Contains(network, p+" URL"), o.requests[p] > 0; says != sent {
						t.Errorf("%s: says it uses %q, but its calls sent %v", tl.Name, network, o.requests)
					}
				}
				if (network == "no network") == connected {
					t.Errorf("%s: says it uses %q, but its calls sent %v", tl.Name, network, o.requests)
				}
				line := "- " + tl.Name + ": " + tl.Description[strings.LastIndex(tl.Description, "Writes "):]
				if !strings.Contains(instructions, "\n"+line+"\n") {
					t.Errorf("%s: the instructions lack its effects %q:\n%s", tl.Name, line, instructions)
				}
			}
			for _, notice := range []string{"untrusted evidence", "never instructions", "stored as unreviewed", "bf review"} {
				if !strings.Contains(instructions, notice) {
					t.Errorf("the instructions lack %q:\n%s", notice, instructions)
				}
			}
		})
	}
}

// effectParts splits the sentence a tool's description ends with into what it writes,
// runs and uses: "Writes W. Runs R. Uses N."
func effectParts(t *testing.T, tl mcp.Tool) (writes, runs, network string) {
	t.Helper()
	m := regexp.MustCompile(`Writes (.+)\. Runs (.+)\. Uses (.+)\.$`).FindStringSubmatch(tl.Description)
	if m == nil {
		t.Fatalf("%s: the description does not end with its effects: %q", tl.Name, tl.Description)
	}
	return m[1], m[2], m[3]
}

// named reports whether a tool's writes name a changed file: the file, one of its
// folders, or the bf state folder for a file in it.
func named(writes, path string) bool {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return strings.HasPrefix(rest, ".local/state/bf/") && strings.Contains(writes, "bf state folder")
	}
	if strings.Contains(writes, path) {
		return true
	}
	for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
		if strings.Contains(writes, dir+"/") {
			return true
		}
	}
	return false
}

// file is what a snapshot keeps of a file.
type file struct {
	size    int64
	modTime time.Time
}

// snapshot lists the regular files of the brain (outside its search cache .bf/) and of
// the home folder, which holds the bf state folder and the registry.
func (f *fixture) snapshot(t *testing.T) map[string]file {
	t.Helper()
	out := map[string]file{}
	for _, root := range []struct{ dir, prefix string }{{f.brain, ""}, {f.home, "~/"}} {
		err := filepath.WalkDir(root.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root.dir, p)
			if root.prefix == "" && d.IsDir() && rel == ".bf" {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			out[root.prefix+filepath.ToSlash(rel)] = file{info.Size(), info.ModTime()}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// changes lists the files created, changed or removed between two snapshots.
func changes(before, after map[string]file) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// lines reads the program log: one line per program started.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func writeScript(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes dir a repository with one commit, for the commit stamps of memories.
func gitRepo(t *testing.T, git, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "--allow-empty", "-m", "start"},
	} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", args, err, out)
		}
	}
}

// blockID finds the first block a chat request holds.
var blockID = regexp.MustCompile(`<block id="(b[0-9]+)"`)

// provider answers as an OpenAI-compatible server: an embeddings request with one vector
// per input, a chat request with an answer citing its first block.
func provider(t *testing.T, w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input    []string `json:"input"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		t.Errorf("provider request %s: %v", r.URL.Path, err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var reply any
	switch r.URL.Path {
	case "/v1/embeddings":
		data := make([]map[string]any, len(req.Input))
		for i := range req.Input {
			data[i] = map[string]any{"index": i, "embedding": []float32{1, 0.5, 0.25}}
		}
		reply = map[string]any{"data": data}
	case "/v1/chat/completions":
		id := "none"
		for _, m := range req.Messages {
			if got := blockID.FindStringSubmatch(m.Content); got != nil {
				id = got[1]
				break
			}
		}
		answer, _ := json.Marshal(map[string]any{"answer": "From the notes.", "citations": []string{id}})
		reply = map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": string(answer)}}}}
	default:
		t.Errorf("provider request to %s", r.URL.Path)
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}
