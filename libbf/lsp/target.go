package lsp

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
)

// What the cursor can be on.
const (
	onLink     = iota + 1 // a Markdown link, image or autolink, or a front matter link
	onIdentity            // an identity or bf:// address written in the front matter
	onTag                 // a tag of the front matter
)

// target is the thing under the cursor: a link destination, an identity or a tag label,
// and where it is written.
type target struct {
	kind  int
	value string
	rng   Range
}

var (
	linkRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]*)(\s+"[^"]*")?\s*\)`)
	})
	autoLinkRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<([A-Za-z][A-Za-z0-9+.-]*:[^>\s]+)>`) })
)

// targetAt finds what the cursor at pos is on.
func (s *Server) targetAt(d *document, pos Position) (target, bool) {
	l := d.text.line(pos.Line)
	col := byteColumn(l, pos.Character)
	for _, m := range linkRE().FindAllStringSubmatchIndex(l, -1) {
		if col >= m[0] && col <= m[1] {
			from, to := m[2], m[3]
			if to > from && l[from] == '<' {
				from, to = from+1, to-1
			}
			return target{kind: onLink, value: l[from:to], rng: d.text.span(pos.Line, from, to)}, l[from:to] != ""
		}
	}
	for _, m := range autoLinkRE().FindAllStringSubmatchIndex(l, -1) {
		if col >= m[0] && col <= m[1] {
			return target{kind: onLink, value: l[m[2]:m[3]], rng: d.text.span(pos.Line, m[2], m[3])}, true
		}
	}
	end := frontMatterEnd(d.text)
	if pos.Line == 0 || pos.Line >= end {
		return s.bodyRef(d, pos.Line, l, col)
	}
	from, to := tokenAround(l, col)
	if from == to {
		return target{}, false
	}
	tok := l[from:to]
	rng := d.text.span(pos.Line, from, to)
	if frontMatterKey(d.text, pos.Line) == "tags" {
		return target{kind: onTag, value: tok, rng: rng}, true
	}
	if ref.IsIdentity(tok) || ref.IsAddress(tok) {
		return target{kind: onIdentity, value: tok, rng: rng}, true
	}
	if strings.HasSuffix(strings.SplitN(tok, "#", 2)[0], ".md") {
		return target{kind: onLink, value: tok, rng: rng}, true
	}
	return target{}, false
}

// bodyRef finds a ref written in the body outside a link, often as code: a bf:// address
// or SOURCE:ID of one of the brain's sources (so a URL in the text is none).
func (s *Server) bodyRef(d *document, n int, l string, col int) (target, bool) {
	stop := func(c byte) bool { return strings.IndexByte(" \t\"'[](){}<>`*,;", c) >= 0 }
	from, to := col, col
	for from > 0 && !stop(l[from-1]) {
		from--
	}
	for to < len(l) && !stop(l[to]) {
		to++
	}
	tok := strings.TrimRight(l[from:to], ".:!?")
	to = from + len(tok)
	if rr, ok := ref.ParseRecordRef(tok); ok && s.isSource(rr.Source) || ref.IsAddress(tok) {
		return target{kind: onIdentity, value: tok, rng: d.text.span(n, from, to)}, true
	}
	return target{}, false
}

// tokenAround is the byte range of the front matter value around col: a run of
// characters that are no YAML punctuation or blank.
func tokenAround(l string, col int) (int, int) {
	stop := func(c byte) bool { return strings.IndexByte(" \t\"'[],{}", c) >= 0 }
	from, to := col, col
	for from > 0 && !stop(l[from-1]) {
		from--
	}
	for to < len(l) && !stop(l[to]) {
		to++
	}
	// A key ("tags:", "- resource:") and a list dash are no values.
	if tok := l[from:to]; strings.HasSuffix(tok, ":") || tok == "-" {
		return from, from
	}
	return from, to
}

// frontMatterKey is the top-level key whose value holds line n of the front matter.
func frontMatterKey(t *text, n int) string {
	for ; n > 0; n-- {
		l := t.line(n)
		if l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '#' {
			continue
		}
		k, _, _ := strings.Cut(l, ":")
		return strings.TrimSpace(k)
	}
	return ""
}

// readRef is the ref bf read takes for a target written in the note at rel, or "" when
// the target names nothing to read (a web page, a bare #).
func (s *Server) readRef(rel string, tg target) string {
	b := s.theBrain()
	switch tg.kind {
	case onTag:
		return "bf://" + b.Name + "/tags/" + tg.value
	case onIdentity:
		return withoutRelation(tg.value)
	}
	t, err := note.Resolve(rel, tg.value)
	if err != nil {
		return ""
	}
	switch t.Kind {
	case note.File:
		if t.HasFragment {
			return t.Path + "#" + t.Fragment
		}
		return t.Path
	case note.URI:
		if ref.IsAddress(t.URI) {
			return withoutRelation(t.URI)
		}
		if ref.IsIdentity(t.URI) {
			return t.URI
		}
	}
	return ""
}

// withoutRelation drops ?rel= from a bf:// address: the link's target is the address.
func withoutRelation(s string) string {
	a, err := ref.ParseAddress(s)
	if err != nil || a.Rel == "" {
		return s
	}
	a.Rel = ""
	return a.String()
}

// isSource reports whether name is a record source of the brain: a folder under memories/
// or a declared sensor.
func (s *Server) isSource(name string) bool {
	b := s.theBrain()
	if _, ok := b.Config.Sensors[name]; ok {
		return true
	}
	st, err := os.Stat(filepath.Join(b.Root, "memories", name))
	return err == nil && st.IsDir()
}
