package read

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Limits of exact reads.
const (
	// maxOutline is how many headings an outline lists.
	maxOutline = 200
	// maxFiles is how many files an ACTION.md read lists.
	maxFiles = 200
	// maxProjects is how many linked projects an ACTION.md read lists.
	maxProjects = 20
	// maxFileBytes bounds a file an exact read loads: larger than any valid note or record.
	maxFileBytes = 16 << 20
)

// file is a file an exact read returns: its bytes, digest and time.
type file struct {
	data     []byte
	sha256   string
	modified string
}

// readFile reads a regular file of the brain at root.
func readFile(root, path string, loc *time.Location) (*file, error) {
	full := filepath.Join(root, filepath.FromSlash(path))
	f, err := os.Open(full)
	if err != nil {
		return nil, errors.New("cannot read <brain>/" + path + "; run bf build")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("cannot read <brain>/" + path + ": not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, errors.New("cannot read <brain>/" + path)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("<brain>/%s exceeds %d MiB", path, maxFileBytes>>20)
	}
	sum := sha256.Sum256(data)
	return &file{data: data, sha256: hex.EncodeToString(sum[:]), modified: timestamp.Local(fi.ModTime(), loc)}, nil
}

// noteItem is what the cache holds about a note.
type noteItem struct {
	title, typ, status, stored, next string
	open, done                       int
}

// note reads a whole note or a section.
func (r *reader) note(ctx context.Context, t *graph.Target) (any, error) {
	p, _ := partOf(&r.set.Set, t.Brain)
	var it noteItem
	if err := p.DB.QueryRowContext(ctx, `SELECT title, type, status, time, next, tasks_open, tasks_done FROM items WHERE id = ?`,
		t.Item).Scan(&it.title, &it.typ, &it.status, &it.stored, &it.next, &it.open, &it.done); err != nil {
		return nil, cacheError(err)
	}
	f, err := readFile(p.Brain.Root, t.Ref, r.req.Location)
	if err != nil {
		return nil, err
	}
	n, perr := note.Parse(t.Ref, f.data, note.KindOf(t.Ref))
	out := &NoteReply{Brain: t.Brain, Notice: reply.Notice, Ref: t.Ref, SHA256: f.sha256, Modified: f.modified}
	text := string(f.data)
	var sections []note.Section
	outerStart, outerEnd := 0, len(f.data)
	if r.rt.hasFragment {
		if perr != nil {
			return nil, perr
		}
		s, ok := n.Section(r.rt.fragment)
		if !ok {
			return nil, &reply.NotFoundError{Msg: msgSection}
		}
		out.Ref = t.Ref + "#" + r.rt.fragment
		out.URI = r.uri(t.Brain, t.Ref, r.rt.fragment)
		out.Title, out.Type, out.Status = it.title, it.typ, it.status
		if it.stored != "" {
			out.Date = it.stored[:min(10, len(it.stored))]
		}
		text = string(f.data[s.Offset:s.EndOffset])
		outerStart, outerEnd = s.Offset, s.EndOffset
		for _, sub := range n.Sections {
			if sub.Offset > s.Offset && sub.EndOffset <= s.EndOffset {
				sections = append(sections, sub)
			}
		}
	} else {
		out.URI = r.uri(t.Brain, t.Ref, "")
		if perr == nil {
			for _, s := range n.Sections {
				if s.Passage { // not the H1 that opens the note
					sections = append(sections, s)
				}
			}
		}
		groups, omitted, err := t.Backlinks(ctx)
		if err != nil {
			return nil, err
		}
		out.Backlinks, out.BacklinksOmitted = &groups, omitted
		if out.Claims, out.ClaimsTruncated, err = t.Claims(ctx); err != nil {
			return nil, err
		}
		if err := r.reminders(ctx, p, t.Ref, out); err != nil {
			return nil, err
		}
		if isActionNote(t.Ref) {
			if err := r.action(ctx, p, t, out); err != nil {
				return nil, err
			}
		}
	}
	out.Text = text
	out.Problems, out.Stale = r.probs.List(), r.set.Stale
	outline, truncated := outlineOf(f.data, t.Ref, sections, outerStart, outerEnd)
	pg := pager{
		text:    text,
		opening: len(outline) > 0,
		whole:   out,
		offset:  r.req.Offset,
		setFirst: func(slice string, offset int64, next *int64, total int) any {
			first := *out
			first.Text, first.Offset, first.NextOffset, first.TotalCharacters = slice, &offset, next, &total
			first.Outline, first.OutlineTruncated = outline, truncated
			return &first
		},
		later: func(slice string, offset int64, next *int64, total int) any {
			return &textPage{
				Brain: out.Brain, Modified: out.Modified, NextOffset: next, Notice: reply.Notice, Offset: offset,
				Problems: r.readProbs, Ref: out.Ref, SHA256: out.SHA256, Stale: r.set.Stale, Text: slice,
				TotalCharacters: total, URI: out.URI,
			}
		},
	}
	return pg.page()
}

// isActionNote reports an action's ACTION.md.
func isActionNote(p string) bool {
	dir, name := filepath.Split(filepath.FromSlash(p))
	return name == "ACTION.md" && isActionFolder(filepath.ToSlash(filepath.Clean(dir)))
}

// outlineOf lists the given sections with their refs and lengths in characters.
func outlineOf(data []byte, path string, sections []note.Section, start, end int) ([]Heading, bool) {
	var out []Heading
	for _, s := range sections {
		if s.Offset < start || s.EndOffset > end {
			continue
		}
		if len(out) == maxOutline {
			return out, true
		}
		out = append(out, Heading{
			Characters: utf8.RuneCount(data[s.Offset:s.EndOffset]),
			Ref:        path + "#" + s.Slug,
			Title:      s.Title,
		})
	}
	return out, false
}

// action adds an ACTION.md's files and the projects it links to.
func (r *reader) action(ctx context.Context, p graph.Part, t *graph.Target, out *NoteReply) error {
	dir := strings.TrimSuffix(t.Ref, "/ACTION.md")
	root := filepath.Join(p.Brain.Root, filepath.FromSlash(dir))
	var files []string
	err := filepath.WalkDir(root, func(full string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && full != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(p.Brain.Root, full)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel != t.Ref {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	if len(files) > maxFiles {
		files = files[:maxFiles]
	}
	out.Files = files
	rows, err := p.DB.QueryContext(ctx, `SELECT DISTINCT i.ref, i.title, i.time, i.type, i.status, i.lead, i.path
		FROM links l JOIN items i ON i.kind = 'note' AND substr(i.ref, 1, 9) = 'projects/' AND (
			i.ref = l.target OR (substr(l.target, 1, length(i.ref) + 1) = i.ref || '#')
			OR i.id = (SELECT min(item) FROM names n WHERE n.name = l.target HAVING count(*) = 1))
		WHERE l.item = ? ORDER BY i.ref LIMIT ?`, t.Item, maxProjects)
	if err != nil {
		return cacheError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var it reply.Item
		var stored, lead, path string
		if err := rows.Scan(&it.Ref, &it.Title, &stored, &it.Type, &it.Status, &lead, &path); err != nil {
			return cacheError(err)
		}
		it.Kind, it.Title, it.Excerpt, it.Brain = reply.KindNote, reply.Title(it.Title), reply.Collapse(lead), t.Brain
		if stored != "" {
			it.Date = stored[:min(10, len(stored))]
		}
		it.URI = reply.Address(t.Brain, path)
		if r.set.Local {
			it = it.Local()
		}
		out.Projects = append(out.Projects, it)
	}
	return cacheError(rows.Err())
}

// cacheError names the cache in a database failure.
func cacheError(err error) error {
	return cache.Unavailable(err)
}
