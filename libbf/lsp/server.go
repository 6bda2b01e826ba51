// Package lsp is bf lsp: a Language Server Protocol 3.17 server over stdio for one brain.
//
// It reads the brain the way every other command does: diagnostics are bf validate's
// findings for the open note's unsaved text (check.Note), completion and workspace
// symbols rank with search.Run, hover, definition and references read with read.Run and
// its backlinks. It writes nothing: a code action only proposes a workspace edit, which
// the editor applies when its user accepts it.
//
// The protocol layer (jsonrpc.go) is JSON-RPC 2.0 with Content-Length framing. Requests are
// answered one at a time in the order they arrive; diagnostics are computed on their own
// goroutine, a short while after the last change of a document. The server returns when
// its input ends (the client went away) or on exit; it starts no process and leaves no
// goroutine running.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/keeper"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/release"
)

// DefaultDebounce is how long diagnostics wait after a document's last change.
const DefaultDebounce = 150 * time.Millisecond

// errExitBeforeShutdown is returned when the client sent exit without shutdown first:
// the protocol asks for exit status 1 then.
var errExitBeforeShutdown = errors.New("the client sent exit before shutdown")

// Options configure a server.
type Options struct {
	// Brain is the --brain value, used when BrainGiven; otherwise the brain is the one
	// enclosing the workspace folder or the first file opened.
	Brain      string
	BrainGiven bool
	// Env is the machine seen by brain selection; nil is the process environment.
	Env *brain.Env
	// Location is the time zone of dates shown; nil is time.Local.
	Location *time.Location
	// Now is the current time for review signals; nil is time.Now.
	Now func() time.Time
	// Debounce is the wait before diagnostics; 0 is DefaultDebounce.
	Debounce time.Duration
	// Log receives one line per failure that has no response to carry it; nil discards.
	Log io.Writer
}

// Server is one LSP session.
type Server struct {
	opts Options
	w    *writer

	mu          sync.Mutex
	brain       *brain.Brain
	docs        map[string]*document
	timers      map[string]*time.Timer
	pending     map[string]bool
	initialized bool
	shutdown    bool

	// ctx ends the cache keeper when the server stops.
	ctx    context.Context
	cancel context.CancelFunc

	wake chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
}

// document is an open note: its brain-relative path (empty outside the brain) and the
// client's text of it.
type document struct {
	uri, path, rel string
	version        int
	text           *text
}

// New makes a server; Serve runs it.
func New(opts Options) *Server {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	return &Server{
		opts:    opts,
		docs:    map[string]*document{},
		timers:  map[string]*time.Timer{},
		pending: map[string]bool{},
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// Serve reads messages from in and writes responses and notifications to out until in
// ends or the client sends exit. It returns nil when the session ended in order or the
// client went away, and errExitBeforeShutdown for exit without shutdown.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.w = &writer{out: out}
	s.ctx, s.cancel = context.WithCancel(ctx)
	r := bufio.NewReaderSize(in, 64<<10)
	s.wg.Add(1)
	go s.diagnose()
	defer s.stop()
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		body, err := ReadMessage(r)
		switch {
		case errors.Is(err, errFraming):
			// The headers say nothing usable: answer without an id and read on.
			_ = s.w.respond(nil, nil, &rpcError{Code: codeParseError, Message: err.Error()})
			continue
		case err != nil:
			return nil // the client is gone
		}
		m, rerr := decode(body)
		if rerr != nil {
			if m == nil || m.Method == "" || len(m.ID) > 0 {
				var id json.RawMessage
				if m != nil {
					id = m.ID
				}
				_ = s.w.respond(id, nil, rerr)
			}
			continue
		}
		if m.Method == "exit" {
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if !down {
				return errExitBeforeShutdown
			}
			return nil
		}
		s.handle(ctx, m)
	}
}

// stop ends the timers and the diagnostics goroutine and waits for them.
func (s *Server) stop() {
	s.cancel()
	s.mu.Lock()
	for _, t := range s.timers {
		t.Stop()
	}
	s.mu.Unlock()
	close(s.done)
	s.wg.Wait()
}

// handle answers one message; a panic in a handler becomes an internal error response.
func (s *Server) handle(ctx context.Context, m *message) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(s.opts.Log, "bf: lsp: %s failed: %v\n%s", m.Method, p, debug.Stack())
			if m.isRequest() {
				_ = s.w.respond(m.ID, nil, &rpcError{Code: codeInternalError, Message: fmt.Sprintf("%s failed inside bf lsp: %v", m.Method, p)})
			}
		}
	}()
	if m.Method == "" {
		return // a response to nothing we asked
	}
	result, rerr := s.dispatch(ctx, m)
	if !m.isRequest() {
		return
	}
	_ = s.w.respond(m.ID, result, rerr)
}

func (s *Server) dispatch(ctx context.Context, m *message) (any, *rpcError) {
	s.mu.Lock()
	initialized, down := s.initialized, s.shutdown
	s.mu.Unlock()
	if m.Method == "initialize" {
		if initialized {
			return nil, &rpcError{Code: codeInvalidRequest, Message: "initialize was already sent"}
		}
		return s.initialize(m.Params)
	}
	if !initialized {
		return nil, &rpcError{Code: codeNotInitialized, Message: "send initialize first"}
	}
	if down && m.isRequest() {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "the server is shutting down; send exit"}
	}
	switch m.Method {
	case "initialized":
		return nil, nil
	case "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	case "textDocument/didOpen":
		var p DidOpenParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		s.open(p.TextDocument)
		return nil, nil
	case "textDocument/didChange":
		var p DidChangeParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		s.change(p)
		return nil, nil
	case "textDocument/didClose":
		var p DidOpenParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		s.close(p.TextDocument.URI)
		return nil, nil
	case "textDocument/didSave":
		var p DidSaveParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		s.saved()
		return nil, nil
	case "textDocument/completion":
		var p TextDocumentPositionParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.complete(ctx, p)
	case "textDocument/hover":
		var p TextDocumentPositionParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.hover(ctx, p)
	case "textDocument/definition":
		var p TextDocumentPositionParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.definition(ctx, p)
	case "textDocument/references":
		var p ReferenceParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.references(ctx, p)
	case "textDocument/documentSymbol":
		var p DocumentSymbolParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.documentSymbols(p)
	case "workspace/symbol":
		var p WorkspaceSymbolParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.workspaceSymbols(ctx, p)
	case "textDocument/codeAction":
		var p CodeActionParams
		if err := params(m.Params, &p); err != nil {
			return nil, err
		}
		return s.codeActions(p)
	}
	if strings.HasPrefix(m.Method, "$/") || !m.isRequest() {
		return nil, nil // optional notifications may be ignored
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "bf lsp does not serve " + m.Method}
}

// params decodes a method's parameters, which must be a JSON object.
func params(raw json.RawMessage, v any) *rpcError {
	if len(raw) == 0 || raw[0] != '{' {
		return &rpcError{Code: codeInvalidParams, Message: "params must be a JSON object"}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}

func (s *Server) initialize(raw json.RawMessage) (any, *rpcError) {
	var p InitializeParams
	if err := params(raw, &p); err != nil {
		return nil, err
	}
	env := brain.EnvOrSystem(s.opts.Env)
	var b *brain.Brain
	if s.opts.BrainGiven {
		sel, err := env.Select(brain.Request{Purpose: brain.Checks, Brain: s.opts.Brain, BrainGiven: true})
		if err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "--brain: " + err.Error()}
		}
		b = sel.Brains[0]
	} else {
		for _, root := range workspaceRoots(p) {
			if found, ok, _ := env.Enclosing(root); ok {
				b = found
				break
			}
		}
	}
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	if b != nil {
		s.use(b)
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": "utf-16",
			"textDocumentSync": map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": false}},
			"completionProvider": map[string]any{
				"triggerCharacters": []string{"(", "#", "/", "=", ":", "[", " "},
			},
			"hoverProvider":           true,
			"definitionProvider":      true,
			"referencesProvider":      true,
			"documentSymbolProvider":  true,
			"workspaceSymbolProvider": true,
			"codeActionProvider":      map[string]any{"codeActionKinds": []string{"quickfix"}},
		},
		"serverInfo": map[string]any{"name": "bf lsp", "version": release.Version()},
	}, nil
}

// workspaceRoots lists the folders the client opened, in the order it gave them.
func workspaceRoots(p InitializeParams) []string {
	var out []string
	for _, f := range p.WorkspaceFolders {
		if d := pathOf(f.URI); d != "" {
			out = append(out, d)
		}
	}
	if d := pathOf(p.RootURI); d != "" {
		out = append(out, d)
	}
	if p.RootPath != "" && filepath.IsAbs(p.RootPath) {
		out = append(out, filepath.Clean(p.RootPath))
	}
	return out
}

// use makes b the session's brain, unless it has one, and keeps the brain's cache fresh
// from file-system notifications, as bf watch --cache does, so that each check, read and
// search need not list the brain (none is kept while bf watch keeps it).
func (s *Server) use(b *brain.Brain) {
	s.mu.Lock()
	if s.brain != nil {
		s.mu.Unlock()
		return
	}
	s.brain = b
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := keeper.Keep(s.ctx, b, keeper.Options{})
		if err != nil && !errors.Is(err, keeper.ErrKept) && !errors.Is(err, keeper.ErrNoKeeper) && s.ctx.Err() == nil {
			fmt.Fprintf(s.opts.Log, "bf: lsp: the cache is listed on every request: %v\n", err)
		}
	}()
}

// theBrain is the session's brain, or nil while none is known.
func (s *Server) theBrain() *brain.Brain {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.brain
}

// open records a document; a file in no brain yet selects the brain that encloses it.
func (s *Server) open(item TextDocumentItem) {
	path := pathOf(item.URI)
	if path != "" && s.theBrain() == nil && !s.opts.BrainGiven {
		if b, ok, _ := brain.EnvOrSystem(s.opts.Env).Enclosing(filepath.Dir(path)); ok {
			s.use(b)
		}
	}
	d := &document{uri: item.URI, path: path, version: item.Version, text: newText(item.Text)}
	d.rel = s.relOf(path)
	s.mu.Lock()
	s.docs[item.URI] = d
	s.mu.Unlock()
	if d.rel != "" {
		s.schedule(item.URI)
	}
}

// relOf is the brain-relative path of a note file of the brain, or "" for any other file.
func (s *Server) relOf(path string) string {
	b := s.theBrain()
	if b == nil || path == "" {
		return ""
	}
	roots := []string{b.Root}
	if real, err := filepath.EvalSymlinks(b.Root); err == nil && real != b.Root {
		roots = append(roots, real)
	}
	for _, root := range roots {
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(rel, ".md") && ref.UnderAuthored(rel) {
			return rel // a Markdown file under an authored root: bf reads it as a note
		}
	}
	return ""
}

func (s *Server) change(p DidChangeParams) {
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		s.mu.Unlock()
		return
	}
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			d.text = newText(c.Text)
			continue
		}
		// Incremental changes are not announced, but apply one correctly if sent.
		from, to := d.text.offset(c.Range.Start), d.text.offset(c.Range.End)
		if from > to {
			from, to = to, from
		}
		d.text = newText(d.text.s[:from] + c.Text + d.text.s[to:])
	}
	d.version = p.TextDocument.Version
	rel := d.rel
	s.mu.Unlock()
	if rel != "" {
		s.schedule(p.TextDocument.URI)
	}
}

func (s *Server) close(uri string) {
	s.mu.Lock()
	d, ok := s.docs[uri]
	delete(s.docs, uri)
	delete(s.pending, uri)
	if t := s.timers[uri]; t != nil {
		t.Stop()
		delete(s.timers, uri)
	}
	s.mu.Unlock()
	if ok && d.rel != "" {
		_ = s.w.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Diagnostics: []diagnostic{}})
	}
}

// saved checks every open note again: the brain on disk changed, and the cache follows.
func (s *Server) saved() {
	s.mu.Lock()
	var uris []string
	for uri, d := range s.docs {
		if d.rel != "" {
			uris = append(uris, uri)
		}
	}
	s.mu.Unlock()
	for _, u := range uris {
		s.schedule(u)
	}
}

// doc returns a snapshot of an open note of the brain, or nil.
func (s *Server) doc(uri string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok || d.rel == "" {
		return nil
	}
	c := *d
	return &c
}
