// Package e2e runs bf's binaries end to end: each testdata/script/*.txtar builds a small brain,
// runs bf commands and checks their stdout, stderr and exit codes.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// examplePrograms are the Go packages of the example sensors and channel adapter.
var examplePrograms = []string{"./examples/sensors/git-history", "./examples/sensors/local-documents", "./examples/channels/inbox"}

var (
	binDir string
	update = flag.Bool("update", false, "rewrite the expected files of failing cmp lines in the scripts")
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bf-e2e-bin-")
	if err != nil {
		panic(err)
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self))
	// Every command module is a folder bf or bf-NAME at the root, as the Makefile builds them.
	mods, err := filepath.Glob(filepath.Join(root, "bf*", "go.mod"))
	if err != nil || len(mods) == 0 {
		panic("no command modules under " + root)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, m := range mods {
		args = append(args, "./"+filepath.Base(filepath.Dir(m)))
	}
	// The example sensors and channel adapter, as make build builds them beside bf.
	args = append(args, examplePrograms...)
	// The scripted harness that stands in for a model in the assistant scenarios.
	args = append(args, "./e2e/fakeharness")
	// The embeddings provider of the dense scenarios, as a command and behind embedserver.
	args = append(args, "./e2e/fakeembed")
	build := exec.Command("go", args...)
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("building the binaries: " + err.Error())
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self))
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("XDG_STATE_HOME", "")
			env.Setenv("BF_BRAIN", "")
			env.Setenv("TZ", "UTC")
			env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
			env.Setenv("EXAMPLES_BIN", binDir)
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			return os.MkdirAll(home, 0o700)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":      cmdStatus,
			"fill":        cmdFill,
			"embedserver": cmdEmbedServer,
		},
	})
}

// cmdStatus runs a program and checks its exact exit code: `status 2 bf search ""`.
// Its stdout and stderr are then checked like those of exec.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad code %q", args[0])
	}
	code := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("status: %v", err)
		}
		code = exit.ExitCode()
	}
	if code != want {
		ts.Fatalf("exit code %d, want %d", code, want)
	}
}

// cmdFill writes FILE holding TEXT repeated N times, TEXT read with Go's escapes so it can
// hold any byte: `fill vault/big.md 4194305 a`, `fill vault/latin.md 1 'caf\xe9'`. It makes
// inputs a script cannot spell: files over a size limit, text that is not UTF-8.
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fill FILE N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 {
		ts.Fatalf("fill: bad count %q", args[1])
	}
	text, err := strconv.Unquote(`"` + args[2] + `"`)
	if err != nil {
		ts.Fatalf("fill: bad text %q: %v", args[2], err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), bytes.Repeat([]byte(text), n), 0o644))
}

// cmdEmbedServer serves an OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1 for the
// rest of the script, answering with fakeembed's vectors, and appends an embeddings
// provider naming it to the bf.yaml given: `embedserver b/bf.yaml [LOG]` (LOG, when given,
// gets one line per text embedded).
func cmdEmbedServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: embedserver BF_YAML [LOG]")
	}
	var fakeArgs []string
	if len(args) == 2 {
		fakeArgs = []string{"-log", ts.MkAbs(args[1])}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "expected POST /v1/embeddings with model and input", http.StatusBadRequest)
			return
		}
		var in bytes.Buffer
		for _, t := range req.Input {
			b, _ := json.Marshal(map[string]string{"text": t})
			in.Write(append(b, '\n'))
		}
		cmd := exec.Command(filepath.Join(binDir, "fakeembed"), fakeArgs...)
		cmd.Stdin = &in
		out, err := cmd.Output()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		reply := struct {
			Data  []datum `json:"data"`
			Model string  `json:"model"`
		}{Model: req.Model}
		for i, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			var v struct {
				Embedding []float32 `json:"embedding"`
			}
			if json.Unmarshal(line, &v) == nil {
				reply.Data = append(reply.Data, datum{i, v.Embedding})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(reply)
	})}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_WRONLY, 0)
	ts.Check(err)
	_, err = fmt.Fprintf(f, "embeddings:\n  url: http://%s/v1/embeddings\n  model: fake-embed\n", ln.Addr())
	ts.Check(err)
	ts.Check(f.Close())
}
