package lsp

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/pages"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/search"
)

// maxCompletions bounds one completion list.
const maxCompletions = 50

// minSearchHits is how many search hits make a completion list long enough: with fewer,
// the notes whose path or title holds what was typed are added.
const minSearchHits = 10

// destRE finds a link destination being typed: after "](" or "<bf://" up to the cursor.
var destRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\]\(<?|<)([^)\s>]*)$`) })

// completion is one candidate before it becomes a completionItem.
type completion struct {
	label, insert, detail string
	kind                  int
}

func (s *Server) complete(ctx context.Context, p TextDocumentPositionParams) (any, *rpcError) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	l := d.text.line(p.Position.Line)
	col := byteColumn(l, p.Position.Character)
	before := l[:col]
	var typed string
	var cands []completion
	if m := destRE().FindStringSubmatch(before); m != nil {
		typed = m[1]
		var replaced string
		replaced, cands = s.completeDest(ctx, d, typed)
		typed = replaced
	} else if end := frontMatterEnd(d.text); p.Position.Line > 0 && p.Position.Line < end {
		from, _ := tokenAround(l, col)
		typed = before[min(from, len(before)):]
		cands = s.completeValue(ctx, d, p.Position.Line, typed)
	} else {
		return nil, nil
	}
	start := Position{Line: p.Position.Line, Character: utf16Len(before[:len(before)-len(typed)])}
	rng := Range{Start: start, End: p.Position}
	items := []completionItem{}
	for i, c := range cands {
		if i == maxCompletions {
			break
		}
		items = append(items, completionItem{
			Label: c.label, Kind: c.kind, Detail: c.detail,
			SortText: fmt.Sprintf("%04d", i), FilterText: typed,
			TextEdit: &textEdit{Range: rng, NewText: c.insert},
		})
	}
	return &completionList{IsIncomplete: true, Items: items}, nil
}

// completeDest completes a link destination: a relation after ?rel=, a section after #,
// a bf:// address, or a note, record or identity. It returns the part of typed that the
// candidates replace.
func (s *Server) completeDest(ctx context.Context, d *document, typed string) (string, []completion) {
	b := s.theBrain()
	if i := strings.LastIndex(typed, "?rel="); i >= 0 && ref.IsAddress(typed) {
		part := typed[i+len("?rel="):]
		return part, relations(b, part)
	}
	if base, frag, ok := strings.Cut(typed, "#"); ok {
		return frag, s.sections(d, base, frag)
	}
	prefix := "bf://" + b.Name + "/"
	if strings.HasPrefix(typed, "bf:") || strings.HasPrefix(prefix, typed) && typed != "" {
		rest := strings.TrimPrefix(typed, prefix)
		if rest == typed && !strings.HasPrefix(typed, prefix) {
			rest = ""
		}
		var out []completion
		if rest != "" {
			// Entities first: the names that are neither a note's nor a record's own address.
			for _, c := range s.identities(ctx, typed, nil) {
				if p := strings.TrimPrefix(c.insert, prefix); !strings.HasSuffix(p, ".md") && !strings.Contains(p, ":") {
					out = append(out, c)
				}
			}
		}
		for _, c := range s.items(ctx, rest, rest) {
			c.insert = prefix + c.insert
			out = append(out, c)
		}
		return typed, out
	}
	var out []completion
	if strings.Contains(typed, ":") {
		out = s.identities(ctx, typed, nil)
	}
	brainPath := typed // a bare word is looked for in every folder
	if t, err := note.Resolve(d.rel, typed+"x"); err == nil && t.Kind == note.File && strings.Contains(typed, "/") {
		brainPath = strings.TrimSuffix(t.Path, "x") // resolved with a letter, so "../" keeps its folder
	}
	for _, c := range s.items(ctx, typed, brainPath) {
		if _, ok := ref.ParseRecordRef(c.insert); !ok {
			c.insert = relative(d.rel, c.insert)
		}
		out = append(out, c)
	}
	return typed, out
}

// relative is the link from the note at from to the brain path to.
func relative(from, to string) string {
	r, err := filepath.Rel(filepath.FromSlash(path.Dir(from)), filepath.FromSlash(to))
	if err != nil {
		return to
	}
	return filepath.ToSlash(r)
}

// relations are the relation names a typed link may take, starting with part.
func relations(b *brain.Brain, part string) []completion {
	var out []completion
	for _, r := range graph.Relations([]*brain.Brain{b}) {
		if r == config.RelLinks || !strings.HasPrefix(r, part) {
			continue
		}
		detail := "relation"
		if f, ok := b.Config.Relation(r); ok && f.Description != "" {
			detail = f.Description
		}
		out = append(out, completion{label: r, insert: r, detail: detail, kind: kindEnumValue})
	}
	return out
}

// sections are the sections of the note a destination names (this note for "#").
func (s *Server) sections(d *document, base, frag string) []completion {
	target, _, ok := s.noteOf(d.rel, base)
	if !ok {
		return nil
	}
	n, _ := s.parsed(target)
	if n == nil {
		return nil
	}
	var out []completion
	for _, sec := range n.Sections {
		if strings.HasPrefix(sec.Slug, frag) {
			out = append(out, completion{label: sec.Slug, insert: sec.Slug, detail: sec.Title, kind: kindReference})
		}
	}
	return out
}

// items are the notes, sections and records matching what was typed: for a SOURCE:ID
// being typed the records whose ref starts with it, then bf search's hits over its
// words, then, when search found few, the notes in the folder typed (brainPath is what
// was typed as a brain path) whose path or title holds its last part. insert is a brain path,
// path#slug or SOURCE:ID.
func (s *Server) items(ctx context.Context, typed, brainPath string) []completion {
	b := s.theBrain()
	var out []completion
	seen := map[string]bool{}
	add := func(c completion) {
		if !seen[c.insert] && len(out) < maxCompletions {
			seen[c.insert] = true
			out = append(out, c)
		}
	}
	rr, recordShaped := ref.ParseRecordRef(typed)
	recordShaped = recordShaped || strings.HasSuffix(typed, ":")
	if recordShaped {
		if rr.Source == "" {
			rr.Source = strings.TrimSuffix(typed, ":")
		}
		// Record ids are often upper case; what is typed often is not.
		for _, prefix := range []string{typed, rr.Source + ":" + strings.ToUpper(rr.ID)} {
			_ = s.query(ctx, `SELECT ref, title FROM items WHERE kind = 'record' AND ref >= ? AND ref < ? ORDER BY ref LIMIT ?`,
				[]any{prefix, prefix + "\U0010FFFF", maxCompletions}, func(rows *sql.Rows) error {
					var r, title string
					if err := rows.Scan(&r, &title); err != nil {
						return err
					}
					add(completion{label: title, insert: r, detail: r, kind: kindReference})
					return nil
				})
		}
	}
	if q := searchWords(typed); q != "" {
		res, err := search.Run(ctx, search.Request{Query: q, Brains: []*brain.Brain{b}, Limit: 20, Now: s.opts.Now(), Location: s.opts.Location})
		if err == nil {
			for _, it := range res.Items {
				kind := kindFile
				if it.Kind == "record" {
					kind = kindReference
				}
				add(completion{label: it.Title, insert: it.Ref, detail: it.Ref, kind: kind})
			}
		}
	}
	if recordShaped || len(out) >= minSearchHits {
		return out
	}
	part := strings.TrimSuffix(typed[strings.LastIndex(typed, "/")+1:], ".md")
	_ = s.query(ctx, `SELECT ref, title FROM items WHERE kind = 'note' AND instr(lower(ref), lower(?)) > 0
		AND (instr(lower(ref), lower(?)) > 0 OR instr(lower(title), lower(?)) > 0) ORDER BY ref LIMIT ?`,
		[]any{strings.TrimSuffix(brainPath, part), part, part, maxCompletions}, func(rows *sql.Rows) error {
			var r, title string
			if err := rows.Scan(&r, &title); err != nil {
				return err
			}
			add(completion{label: title, insert: r, detail: r, kind: kindFile})
			return nil
		})
	return out
}

// searchWords turns a typed destination into a search: the words of its last path
// segment, the last one as a prefix.
func searchWords(typed string) string {
	last := typed[strings.LastIndex(typed, "/")+1:]
	last = strings.TrimSuffix(last, ".md")
	words := strings.FieldsFunc(last, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return ""
	}
	words[len(words)-1] += "*"
	return strings.Join(words, " ")
}

// query runs one read-only statement on the brain's cache, refreshed as every read does.
func (s *Server) query(ctx context.Context, q string, args []any, row func(*sql.Rows) error) error {
	c, tx, err := cache.Snapshot(ctx, s.theBrain())
	if err != nil {
		return err
	}
	defer c.Close()
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, q, args...)
	return cache.EachRow(rows, err, row)
}

// identities are the names items answer to (entities, aliases, addresses) starting with
// typed, within targets when the field declares any.
func (s *Server) identities(ctx context.Context, typed string, targets []string) []completion {
	var out []completion
	err := s.query(ctx, `SELECT n.name, i.title FROM names n JOIN items i ON i.id = n.item
		WHERE n.name >= ? AND n.name < ? ORDER BY n.name LIMIT ?`, []any{typed, typed + "\U0010FFFF", 200}, func(rows *sql.Rows) error {
		var name, title string
		if err := rows.Scan(&name, &title); err != nil {
			return err
		}
		if len(targets) > 0 && !slices.ContainsFunc(targets, func(t string) bool { return strings.HasPrefix(name, t) }) {
			return nil
		}
		out = append(out, completion{label: name, insert: name, detail: title, kind: kindReference})
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

// completeValue completes a front matter value: a tag, or an identity in a relation field.
func (s *Server) completeValue(ctx context.Context, d *document, line int, typed string) []completion {
	b := s.theBrain()
	key := frontMatterKey(d.text, line)
	switch key {
	case "tags":
		out, err := s.read(ctx, "bf://"+b.Name+"/tags", "", 0)
		page, ok := out.(*pages.TagsReply)
		if err != nil || !ok {
			return nil
		}
		var cands []completion
		for _, t := range page.Items {
			if strings.HasPrefix(t.Tag, typed) {
				cands = append(cands, completion{label: t.Tag, insert: t.Tag, detail: fmt.Sprintf("%d %s", t.Total, plural(t.Total, "note", "notes")), kind: kindKeyword})
			}
		}
		return cands
	case "fields":
		name := fieldKey(d.text, line)
		f, ok := b.Config.Fields[name]
		if !ok || f == nil || !f.Relation {
			return nil
		}
		return s.identities(ctx, typed, f.Targets)
	}
	return nil
}

// fieldKey is the key under fields: whose value holds line n.
func fieldKey(t *text, n int) string {
	for ; n > 0; n-- {
		l := t.line(n)
		trimmed := strings.TrimLeft(l, " ")
		if len(trimmed) == len(l) {
			return "" // back at the top level
		}
		if strings.HasPrefix(trimmed, "-") || trimmed == "" {
			continue
		}
		k, _, _ := strings.Cut(trimmed, ":")
		return strings.TrimSpace(k)
	}
	return ""
}
