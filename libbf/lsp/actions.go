package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/check"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/starter"
)

// maxAnchorFixes bounds the headings offered in place of a missing one.
const maxAnchorFixes = 3

// codeActions are the fixes of the findings in the range: a missing note created from
// the starter template, a missing heading replaced by the nearest existing ones. Nothing
// is written here: the editor applies an edit its user accepts.
func (s *Server) codeActions(p CodeActionParams) (any, *rpcError) {
	d := s.doc(p.TextDocument.URI)
	out := []codeAction{}
	if d == nil {
		return out, nil
	}
	findings, err := check.Note(s.ctx, s.theBrain(), d.rel, []byte(d.text.s))
	if err != nil {
		return out, nil
	}
	for _, f := range findings {
		if f.Link == "" {
			continue
		}
		rng := locate(d.text, f)
		if !overlaps(rng, p.Range) {
			continue
		}
		diag := diagnostic{Range: rng, Severity: severityError, Source: "bf", Message: f.Message}
		switch {
		case strings.HasPrefix(f.Message, check.BrokenLinkPrefix):
			if a, ok := s.createNote(d, f.Link); ok {
				a.Diagnostics = []diagnostic{diag}
				out = append(out, a)
			}
		case strings.HasPrefix(f.Message, check.MissingHeadingPrefix):
			for _, a := range s.fixAnchor(d, f.Link, rng) {
				a.Diagnostics = []diagnostic{diag}
				out = append(out, a)
			}
		}
	}
	return out, nil
}

func overlaps(a, b Range) bool {
	before := func(x, y Position) bool { return x.Line < y.Line || x.Line == y.Line && x.Character < y.Character }
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

// createNote proposes the missing note a relative link names, from the starter template.
func (s *Server) createNote(d *document, dest string) (codeAction, bool) {
	t, err := note.Resolve(d.rel, dest)
	if err != nil || t.Kind != note.File || !strings.HasSuffix(t.Path, ".md") || !ref.UnderAuthored(t.Path) {
		return codeAction{}, false
	}
	uri := uriOf(filepath.Join(s.theBrain().Root, filepath.FromSlash(t.Path)))
	create, _ := json.Marshal(createFile{Kind: "create", URI: uri, Options: &createFileOptions{IgnoreIfExists: true}})
	var fill textDocumentEdit
	fill.TextDocument.URI = uri
	fill.Edits = []textEdit{{NewText: string(starter.Note(t.Path, starter.TitleOf(t.Path)))}}
	edit, _ := json.Marshal(fill)
	return codeAction{
		Title: "Create " + t.Path + " from the starter template", Kind: "quickfix", IsPreferred: true,
		Edit: &workspaceEdit{DocumentChanges: []json.RawMessage{create, edit}},
	}, true
}

// fixAnchor proposes the headings of the target note nearest to a missing one.
func (s *Server) fixAnchor(d *document, dest string, rng Range) []codeAction {
	if !strings.Contains(dest, "#") {
		return nil
	}
	target, frag, ok := s.noteOf(d.rel, dest)
	if !ok {
		return nil
	}
	n, _ := s.parsed(target)
	if n == nil {
		return nil
	}
	secs := slices.Clone(n.Sections)
	slices.SortStableFunc(secs, func(a, b note.Section) int { return distance(frag, a.Slug) - distance(frag, b.Slug) })
	// The fragment is the part of the written link after its first '#'.
	hash := strings.IndexByte(dest, '#')
	from := Position{Line: rng.Start.Line, Character: rng.Start.Character + utf16Len(dest[:hash+1])}
	var out []codeAction
	for i, sec := range secs {
		if i == maxAnchorFixes {
			break
		}
		edit := textEdit{Range: Range{Start: from, End: rng.End}, NewText: sec.Slug}
		out = append(out, codeAction{
			Title: fmt.Sprintf("Link to section #%s (%s)", sec.Slug, sec.Title), Kind: "quickfix", IsPreferred: i == 0,
			Edit: &workspaceEdit{Changes: map[string][]textEdit{d.uri: {edit}}},
		})
	}
	return out
}

// distance is the edit distance between two slugs, in characters.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
