package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/search"
)

// documentSymbols is the heading outline of the note, nested by level.
func (s *Server) documentSymbols(p DocumentSymbolParams) (any, *rpcError) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	n, err := note.Parse(d.rel, []byte(d.text.s), note.KindOf(d.rel))
	if err != nil {
		return []documentSymbol{}, nil
	}
	var build func(parent int) []documentSymbol
	build = func(parent int) []documentSymbol {
		out := []documentSymbol{}
		for i, sec := range n.Sections {
			if sec.Parent != parent {
				continue
			}
			last := max(sec.Line-1, sec.End-2)
			full := Range{Start: Position{Line: sec.Line - 1}, End: Position{Line: last, Character: utf16Len(d.text.line(last))}}
			sym := documentSymbol{
				Name: sec.Title, Detail: "#" + sec.Slug, Kind: symbolString,
				Range: full, SelectionRange: d.text.lineRange(sec.Line - 1),
			}
			if kids := build(i); len(kids) > 0 {
				sym.Children = kids
			}
			out = append(out, sym)
		}
		return out
	}
	return build(-1), nil
}

// workspaceSymbols are bf search's hits for the query: notes, sections and records.
func (s *Server) workspaceSymbols(ctx context.Context, p WorkspaceSymbolParams) (any, *rpcError) {
	b := s.theBrain()
	out := []symbolInformation{}
	q := strings.TrimSpace(p.Query)
	if b == nil || q == "" {
		return out, nil
	}
	res, err := search.Run(ctx, search.Request{Query: q, Brains: []*brain.Brain{b}, Now: s.opts.Now(), Location: s.opts.Location})
	if err != nil {
		return out, nil
	}
	for _, it := range res.Items {
		path, frag, _ := strings.Cut(it.Ref, "#")
		kind := symbolFile
		var loc location
		if rr, ok := ref.ParseRecordRef(path); ok && it.Kind == "record" {
			kind = symbolObject
			loc = location{URI: uriOf(filepath.Join(b.Root, "memories", rr.Source, record.FileName(rr.ID)))}
		} else {
			loc = location{URI: uriOf(filepath.Join(b.Root, filepath.FromSlash(path))), Range: s.sectionRange(path, frag)}
			if frag != "" {
				kind = symbolString
			}
		}
		out = append(out, symbolInformation{Name: it.Title, Kind: kind, Location: loc, ContainerName: it.Ref})
	}
	return out, nil
}
