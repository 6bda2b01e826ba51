package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/check"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/pages"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// maxExcerpt bounds the excerpt a hover shows, in characters.
const maxExcerpt = 240

// maxReferences bounds the items whose links a references answer places: a note that
// thousands link to would otherwise have each of them parsed.
const maxReferences = 500

// read runs bf read on the session's brain.
func (s *Server) read(ctx context.Context, r string, rel string, offset int64) (any, error) {
	return read.Run(ctx, read.Request{
		Ref: r, Rel: rel, Offset: offset, Brains: []*brain.Brain{s.theBrain()},
		Now: s.opts.Now(), Location: s.opts.Location,
	})
}

// readAt reads what the cursor is on: its reply (nil when nothing there can be read), the
// target and the ref read. err is the read's failure.
func (s *Server) readAt(ctx context.Context, p TextDocumentPositionParams) (out any, tg target, r string, err error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, tg, "", nil
	}
	tg, ok := s.targetAt(d, p.Position)
	if !ok {
		return nil, tg, "", nil
	}
	if r = s.readRef(d.rel, tg); r == "" {
		return nil, tg, "", nil
	}
	out, err = s.read(ctx, r, "", 0)
	return out, tg, r, err
}

func (s *Server) hover(ctx context.Context, p TextDocumentPositionParams) (any, *rpcError) {
	out, tg, r, err := s.readAt(ctx, p)
	if err != nil {
		return &hover{Contents: markupContent{Kind: "markdown", Value: "bf read " + r + ": " + err.Error()}, Range: &tg.rng}, nil
	}
	text := ""
	if out != nil {
		text = describe(out)
	}
	if text == "" {
		return nil, nil
	}
	return &hover{Contents: markupContent{Kind: "markdown", Value: text}, Range: &tg.rng}, nil
}

// describe words a read reply for a hover: title, type, status and date, review signal
// and excerpt of a note; source, time and excerpt of a record; the size of a tag page.
func describe(out any) string {
	var b strings.Builder
	switch r := out.(type) {
	case *read.NoteReply:
		path, frag, _ := strings.Cut(r.Ref, "#")
		// A whole note's read carries its text, a section's read its note's metadata.
		title, typ, status, date, excerpt := r.Title, r.Type, r.Status, r.Date, ""
		if n, err := note.Parse(path, []byte(r.Text), note.KindOf(path)); err == nil {
			if frag == "" {
				title, typ, status, date = n.Title, n.Type, n.Status, n.Updated
				excerpt = cmp.Or(n.Summary, n.Intro)
			} else if len(n.Sections) > 0 {
				title += " — " + n.Sections[0].Title
				excerpt = n.Sections[0].Text
			}
		}
		fmt.Fprintf(&b, "**%s**\n\n", title)
		b.WriteString(joinNonEmpty(" · ", typ, status, date, "`"+r.Ref+"`"))
		if r.Review {
			fmt.Fprintf(&b, "\n\nreview: %s", strings.Join(r.ReviewReasons, ", "))
			if r.ReviewDue != "" {
				fmt.Fprintf(&b, " · due %s", r.ReviewDue)
			}
			if r.ReviewSource != "" {
				fmt.Fprintf(&b, " (from %s)", r.ReviewSource)
			}
		}
		if ex := cut(excerpt); ex != "" {
			b.WriteString("\n\n" + ex)
		}
	case *read.RecordReply:
		var rec struct {
			Title string `json:"title"`
			Text  string `json:"text"`
			Time  string `json:"time"`
		}
		_ = json.Unmarshal(mustJSON(r.Record), &rec)
		source, _, _ := strings.Cut(r.Ref, ":")
		fmt.Fprintf(&b, "**%s**\n\n", rec.Title)
		b.WriteString(joinNonEmpty(" · ", "record", source, rec.Time, "`"+r.Ref+"`"))
		if ex := cut(rec.Text); ex != "" {
			b.WriteString("\n\n" + ex)
		}
	case *pages.Listing:
		fmt.Fprintf(&b, "**%s**\n\n%d %s", r.Page, r.Total, plural(r.Total, "item", "items"))
		for i, it := range r.Items {
			if i == 5 {
				break
			}
			fmt.Fprintf(&b, "\n- %s (`%s`)", it.Title, it.Ref)
		}
	case *read.IdentityReply:
		n := 0
		for _, g := range r.Backlinks {
			n += g.Total
		}
		fmt.Fprintf(&b, "**%s**\n\nno note or record owns it; %d %s", r.Page, n, plural(n, "link", "links"))
	}
	return b.String()
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" && p != "``" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// cut shortens s to maxExcerpt characters on one line.
func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxExcerpt {
		return s
	}
	r := []rune(s)
	return string(r[:maxExcerpt-1]) + "…"
}

func (s *Server) definition(ctx context.Context, p TextDocumentPositionParams) (any, *rpcError) {
	out, tg, _, err := s.readAt(ctx, p)
	if err != nil || out == nil || tg.kind == onTag {
		return nil, nil
	}
	loc, ok := s.locationOf(out)
	if !ok {
		return nil, nil
	}
	return []location{loc}, nil
}

// locationOf is the file of a read note (at its section's heading) or record.
func (s *Server) locationOf(out any) (location, bool) {
	root := s.theBrain().Root
	switch r := out.(type) {
	case *read.NoteReply:
		path, frag, _ := strings.Cut(r.Ref, "#")
		return location{URI: uriOf(filepath.Join(root, filepath.FromSlash(path))), Range: s.sectionRange(path, frag)}, true
	case *read.RecordReply:
		return location{URI: uriOf(filepath.Join(root, filepath.FromSlash(r.Path)))}, r.Path != ""
	}
	return location{}, false
}

// noteText is the text of a note of the brain: the client's when it is open, else the file's.
func (s *Server) noteText(rel string) *text {
	s.mu.Lock()
	for _, d := range s.docs {
		if d.rel == rel {
			t := d.text
			s.mu.Unlock()
			return t
		}
	}
	s.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(s.theBrain().Root, filepath.FromSlash(rel)))
	if err != nil || len(data) > note.MaxBytes {
		return nil
	}
	return newText(string(data))
}

// parsed is the note at rel parsed from noteText, or nil.
func (s *Server) parsed(rel string) (*note.Note, *text) {
	t := s.noteText(rel)
	if t == nil {
		return nil, nil
	}
	n, err := note.Parse(rel, []byte(t.s), note.KindOf(rel))
	if err != nil {
		return nil, nil
	}
	return n, t
}

// sectionRange is the heading line of section frag of the note at rel, or the file's
// start.
func (s *Server) sectionRange(rel, frag string) Range {
	if frag == "" {
		return Range{}
	}
	if n, t := s.parsed(rel); n != nil {
		if sec, ok := n.Section(frag); ok {
			return t.lineRange(sec.Line - 1)
		}
	}
	return Range{}
}

// noteOf is the note a link destination written in the note at rel names, and the
// section slug it names: a relative path, a bare #fragment (the note itself) or a bf://
// address of this brain.
func (s *Server) noteOf(rel, dest string) (path, frag string, ok bool) {
	if a, err := ref.ParseAddress(withoutRelation(dest)); err == nil {
		return a.Path, a.Fragment, a.Brain == s.theBrain().Name
	}
	if dest == "" || dest == "#" {
		return rel, "", true
	}
	t, err := note.Resolve(rel, dest)
	if err != nil || t.Kind != note.File {
		return "", "", false
	}
	return t.Path, t.Fragment, true
}

// references are the backlinks of the target under the cursor, or of the note itself:
// every item linking to it, by relation, each at the links that name it.
func (s *Server) references(ctx context.Context, p ReferenceParams) (any, *rpcError) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	r := d.rel
	if tg, ok := s.targetAt(d, p.Position); ok && tg.kind != onTag {
		if rr := s.readRef(d.rel, tg); rr != "" {
			r = rr
		}
	}
	r, _, _ = strings.Cut(r, "#")
	out, err := s.read(ctx, r, "", 0)
	if err != nil {
		return []location{}, nil
	}
	var groups []graph.Group
	var owner string
	switch t := out.(type) {
	case *read.NoteReply:
		owner = t.Ref
		if t.Backlinks != nil {
			groups = *t.Backlinks
		}
	case *read.RecordReply:
		owner = t.Ref
		if t.Backlinks != nil {
			groups = *t.Backlinks
		}
	case *read.IdentityReply:
		groups = t.Backlinks
	}
	seen := map[string]bool{}
	locs := []location{}
	for _, g := range groups {
		for _, it := range s.groupItems(ctx, r, g) {
			if seen[it.Ref] || len(seen) == maxReferences {
				continue
			}
			seen[it.Ref] = true
			locs = append(locs, s.linksTo(it, owner, r)...)
		}
	}
	if p.Context.IncludeDeclaration {
		if loc, ok := s.locationOf(out); ok {
			locs = append([]location{loc}, locs...)
		}
	}
	return locs, nil
}

// groupItems lists every item of a backlink group, reading its relation page when the
// group shows only its newest items.
func (s *Server) groupItems(ctx context.Context, r string, g graph.Group) []reply.Item {
	if g.Total <= len(g.Items) {
		return g.Items
	}
	var items []reply.Item
	var offset int64
	for len(items) < maxReferences {
		out, err := s.read(ctx, r, g.Relation, offset)
		page, ok := out.(*read.RelationReply)
		if err != nil || !ok {
			return g.Items
		}
		items = append(items, page.Items...)
		if page.NextOffset == nil {
			return items
		}
		offset = *page.NextOffset
	}
	return items
}

// linksTo locates in the item it the links naming the note or record owner (a brain ref)
// or the identity id; a record, or a note whose links cannot be placed, is its file.
func (s *Server) linksTo(it reply.Item, owner, id string) []location {
	b := s.theBrain()
	if it.Kind == "record" {
		rr, ok := ref.ParseRecordRef(it.Ref)
		if !ok {
			return nil
		}
		file := filepath.Join(b.Root, "memories", rr.Source, record.FileName(rr.ID))
		loc := location{URI: uriOf(file)}
		// A record writes its links as JSON strings: find the first one naming the target.
		if data, err := os.ReadFile(file); err == nil {
			t := newText(string(data))
			for _, name := range []string{"bf://" + b.Name + "/" + owner, id} {
				if r, ok := findLink(t, `"`+name, 0, t.lines()); ok && name != "" {
					r.Start.Character++
					loc.Range = r
					break
				}
			}
		}
		return []location{loc}
	}
	uri := uriOf(filepath.Join(b.Root, filepath.FromSlash(it.Ref)))
	n, t := s.parsed(it.Ref)
	if n == nil {
		return []location{{URI: uri}}
	}
	var out []location
	names := func(dest string) bool {
		if dest == id || dest == owner {
			return true
		}
		if tt, err := note.Resolve(it.Ref, dest); err == nil && tt.Kind == note.File {
			return tt.Path == owner
		}
		if a, err := ref.ParseAddress(dest); err == nil && a.Brain == b.Name {
			return a.Path == owner || withoutRelation(dest) == id
		}
		return false
	}
	for _, l := range n.Links {
		if names(l.Target) {
			out = append(out, location{URI: uri, Range: locate(t, check.Finding{Line: l.Line, Link: l.Target})})
		}
	}
	for _, f := range declaredValues(n) {
		if names(f) {
			out = append(out, location{URI: uri, Range: locate(t, check.Finding{Link: f})})
		}
	}
	if len(out) == 0 {
		out = []location{{URI: uri}}
	}
	return out
}

// declaredValues are the identity values of a note's declared fields, as written.
func declaredValues(n *note.Note) []string {
	var out []string
	for _, v := range n.Meta.Fields {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
