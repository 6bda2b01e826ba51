package lsp

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/check"
)

// schedule (re)starts the wait before a document's diagnostics.
func (s *Server) schedule(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.timers[uri]; t != nil {
		t.Stop()
	}
	s.timers[uri] = time.AfterFunc(s.opts.Debounce, func() {
		s.mu.Lock()
		s.pending[uri] = true
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	})
}

// diagnose publishes the diagnostics of pending documents until the server stops.
func (s *Server) diagnose() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		s.mu.Lock()
		var uris []string
		for u := range s.pending {
			uris = append(uris, u)
		}
		clear(s.pending)
		s.mu.Unlock()
		slices.Sort(uris)
		for _, u := range uris {
			select {
			case <-s.done:
				return
			default:
			}
			s.publish(u)
		}
	}
}

// publish sends the diagnostics of one open note.
func (s *Server) publish(uri string) {
	d := s.doc(uri)
	if d == nil {
		return
	}
	diags, err := s.diagnostics(d)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "bf: lsp: cannot check %s: %v\n", d.rel, err)
		return
	}
	v := d.version
	_ = s.w.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: diags})
}

// diagnostics are bf validate's findings for the document's text, placed in it.
func (s *Server) diagnostics(d *document) ([]diagnostic, error) {
	findings, err := check.Note(s.ctx, s.theBrain(), d.rel, []byte(d.text.s))
	if err != nil {
		return nil, err
	}
	out := []diagnostic{}
	for _, f := range findings {
		sev := severityError
		if f.Warning {
			sev = severityWarning
		}
		out = append(out, diagnostic{Range: locate(d.text, f), Severity: sev, Source: "bf", Message: f.Message})
	}
	return out, nil
}

// locate places a finding: a link's destination, a front matter field's line, a line, or
// the first line when the check said nothing more.
func locate(t *text, f check.Finding) Range {
	if f.Link != "" {
		var from, to int
		if f.Line > 0 {
			from, to = f.Line-1, min(f.Line+3, t.lines())
		} else {
			to = frontMatterEnd(t)
		}
		if r, ok := findLink(t, f.Link, from, to); ok {
			return r
		}
	}
	if f.Field != "" {
		if n, ok := fieldLine(t, f.Field); ok {
			return t.lineRange(n)
		}
	}
	if f.Line > 0 {
		return t.lineRange(f.Line - 1)
	}
	return t.lineRange(0)
}

// findLink finds a link destination written on lines [from, to).
func findLink(t *text, dest string, from, to int) (Range, bool) {
	for n := from; n < to; n++ {
		l := t.line(n)
		for _, prefix := range []string{"](", "<", ""} {
			if i := strings.Index(l, prefix+dest); i >= 0 {
				start := i + len(prefix)
				return t.span(n, start, start+len(dest)), true
			}
		}
	}
	return Range{}, false
}

// frontMatterEnd is the 0-based line of the closing fence of the front matter, or 0.
func frontMatterEnd(t *text) int {
	if strings.TrimPrefix(t.line(0), "\ufeff") != "---" {
		return 0
	}
	for n := 1; n < t.lines(); n++ {
		if l := t.line(n); l == "---" || l == "..." {
			return n
		}
	}
	return 0
}

// fieldLine finds the front matter line of a key path such as "fields.owner": each key
// below the first is looked for among the more indented lines under its parent. An index
// ("aliases.2") or a key not found stops at the deepest key found.
func fieldLine(t *text, field string) (int, bool) {
	end := frontMatterEnd(t)
	if end == 0 {
		return 0, false
	}
	found, indent := -1, -1
	from := 1
	for _, key := range strings.Split(field, ".") {
		next := -1
		for n := from; n < end; n++ {
			l := t.line(n)
			trimmed := strings.TrimLeft(l, " ")
			in := len(l) - len(trimmed)
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			if in <= indent {
				break // past the parent's block
			}
			k, _, ok := strings.Cut(trimmed, ":")
			if ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
				next, indent = n, in
				break
			}
		}
		if next < 0 {
			break
		}
		found, from = next, next+1
	}
	return found, found >= 0
}
