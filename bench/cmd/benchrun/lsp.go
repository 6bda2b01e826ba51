package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/lsp"
)

// lspNoteBytes is the size of the note whose diagnostics are timed.
const lspNoteBytes = 200 << 10

// lspReps is how many completions, hovers and changes are timed, and starts of the server.
const (
	lspReps   = 20
	lspStarts = 5
)

// LSPResult is bf lsp serving the brain's copy: each figure is one request timed from the
// editor's side of the pipe, in a server that has already started.
type LSPResult struct {
	Note      string `json:"note"`
	NoteBytes int    `json:"note_bytes"`
	// Startup is from starting the process to its answer to initialize.
	Startup measure.Summary `json:"startup"`
	// FirstDiagnostics is from opening the note to its first diagnostics, the debounce
	// wait included: the first check opens the cache while the server's keeper starts.
	FirstDiagnostics measure.Summary `json:"first_diagnostics"`
	// Diagnostics is from a change of the whole note to its diagnostics, the debounce
	// wait (lsp.DefaultDebounce) taken off.
	Diagnostics measure.Summary `json:"diagnostics"`
	Findings    int             `json:"findings"`
	Completion  measure.Summary `json:"completion"`
	Hover       measure.Summary `json:"hover"`
}

// lspSession is bf lsp running on the brain's copy, driven over its stdio.
type lspSession struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	id    int
	start time.Time
}

func (b *bench) startLSP() (*lspSession, time.Duration, error) {
	cmd := exec.Command(b.bf, "lsp", "--brain", b.work)
	cmd.Dir = b.work
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	s := &lspSession{cmd: cmd, in: in, out: bufio.NewReader(out), start: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	if _, err := s.call("initialize", map[string]any{"rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		s.close()
		return nil, 0, err
	}
	up := time.Since(s.start)
	return s, up, s.notify("initialized", map[string]any{})
}

func (s *lspSession) send(m map[string]any) error {
	m["jsonrpc"] = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return lsp.WriteMessage(s.in, body)
}

func (s *lspSession) notify(method string, params any) error {
	return s.send(map[string]any{"method": method, "params": params})
}

type lspMessage struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (s *lspSession) next() (*lspMessage, error) {
	body, err := lsp.ReadMessage(s.out)
	if err != nil {
		return nil, err
	}
	var m lspMessage
	return &m, json.Unmarshal(body, &m)
}

// call sends a request and returns its result, skipping notifications.
func (s *lspSession) call(method string, params any) (json.RawMessage, error) {
	s.id++
	if err := s.send(map[string]any{"id": s.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		m, err := s.next()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != nil && *m.ID == s.id && m.Method == "" {
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return m.Result, nil
		}
	}
}

// diagnostics waits for the next diagnostics and returns how many findings they hold.
func (s *lspSession) diagnostics() (int, error) {
	for {
		m, err := s.next()
		if err != nil {
			return 0, err
		}
		if m.Method == "textDocument/publishDiagnostics" {
			var p struct {
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			return len(p.Diagnostics), json.Unmarshal(m.Params, &p)
		}
	}
}

func (s *lspSession) close() {
	if _, err := s.call("shutdown", nil); err == nil {
		_ = s.notify("exit", nil)
	}
	s.in.Close()
	_ = s.cmd.Wait()
}

// bigNote is the edited note's text with its body repeated until it holds n bytes: its
// links stay valid, and its headings get numbered slugs.
func bigNote(text string, n int) string {
	parts := strings.SplitN(text, "\n---\n", 2)
	body := text
	if len(parts) == 2 {
		body = parts[1]
	}
	var b strings.Builder
	b.WriteString(text)
	for b.Len() < n {
		b.WriteString("\n")
		b.WriteString(body)
	}
	return b.String()
}

var benchLinkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// lsp measures bf lsp: start-up, the diagnostics of a 200 KB note, completion and hover.
func (b *bench) lsp() error {
	r := &LSPResult{Note: b.editedNote()}
	var starts []time.Duration
	for range lspStarts {
		s, up, err := b.startLSP()
		if err != nil {
			return err
		}
		starts = append(starts, up)
		s.close()
	}
	r.Startup = measure.Summarize(starts)

	s, _, err := b.startLSP()
	if err != nil {
		return err
	}
	defer s.close()
	file := filepath.Join(b.work, filepath.FromSlash(r.Note))
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	text := bigNote(string(orig), lspNoteBytes)
	r.NoteBytes = len(text)
	uri := (&url.URL{Scheme: "file", Path: file}).String()
	opened := time.Now()
	if err := s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
		return err
	}
	if r.Findings, err = s.diagnostics(); err != nil {
		return err
	}
	r.FirstDiagnostics = measure.Summarize([]time.Duration{time.Since(opened)})
	var diags []time.Duration
	for i := range lspReps {
		// Each change edits one word, so every check sees new text.
		changed := text + fmt.Sprintf("\nedit %d\n", i)
		t0 := time.Now()
		err := s.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"text": changed}},
		})
		if err != nil {
			return err
		}
		if _, err := s.diagnostics(); err != nil {
			return err
		}
		diags = append(diags, max(0, time.Since(t0)-lsp.DefaultDebounce))
	}
	r.Diagnostics = measure.Summarize(diags)

	// Completion after "](" and the first letters of note titles; hover on the note's links.
	lines := strings.Split(text, "\n")
	last := len(lines) // the line the completions are typed on
	var comps, hovers []time.Duration
	for i := range lspReps {
		n := b.plan.Notes[(i*7919)%len(b.plan.Notes)]
		word := strings.ToLower(strings.Fields(n.Title)[0])
		typed := "See [x](" + word[:min(3, len(word))]
		body := text + "\n" + typed
		if err := s.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 100 + i},
			"contentChanges": []any{map[string]any{"text": body}},
		}); err != nil {
			return err
		}
		t0 := time.Now()
		if _, err := s.call("textDocument/completion", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": last, "character": len(typed)},
		}); err != nil {
			return err
		}
		comps = append(comps, time.Since(t0))
	}
	for n, l := range lines {
		if len(hovers) == lspReps {
			break
		}
		m := benchLinkRE.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		t0 := time.Now()
		if _, err := s.call("textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": n, "character": m[2] + 1},
		}); err != nil {
			return err
		}
		hovers = append(hovers, time.Since(t0))
	}
	r.Completion, r.Hover = measure.Summarize(comps), measure.Summarize(hovers)
	b.res.LSP = r
	logf("  start-up %s, first diagnostics %s, diagnostics %s, completion %s, hover %s",
		measure.Millis(r.Startup.Median), measure.Millis(r.FirstDiagnostics.Median), measure.Millis(r.Diagnostics.Median),
		measure.Millis(r.Completion.Median), measure.Millis(r.Hover.Median))
	return nil
}

// lspTable is the Markdown table of the bf lsp figures.
func lspTable(r *LSPResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### bf lsp (%s, %s)\n\n", r.Note, measure.Bytes(int64(r.NoteBytes)))
	b.WriteString("| request | median | p95 | target |\n| --- | --- | --- | --- |\n")
	row := func(name string, s measure.Summary, target string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, measure.Millis(s.Median), measure.Millis(s.P95), target)
	}
	row("start-up (process start to initialize answered)", r.Startup, "≤ 300 ms")
	row("first diagnostics after open (with the 150 ms wait)", r.FirstDiagnostics, "")
	row(fmt.Sprintf("diagnostics after a change (%d findings; the 150 ms wait taken off)", r.Findings), r.Diagnostics, "≤ 100 ms")
	row("completion", r.Completion, "≤ 50 ms")
	row("hover", r.Hover, "≤ 50 ms")
	return b.String()
}
