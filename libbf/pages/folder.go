package pages

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Listing is a page of items: a folder, a tag's members, or a source's records.
type Listing struct {
	Items []reply.Item `json:"items"`
	Paging
	// Sources is the coverage of the source of memories/SOURCE, its period and undated
	// pages, in each brain that knows it.
	Sources []reply.Coverage `json:"sources,omitempty"`
	Stale   []string         `json:"stale,omitempty"`
	// Total counts the items of every page.
	Total int `json:"total"`
}

// Paging is what a listing and a period page say of the page itself: its name, where its
// neighbours are, the notice and the problems met reading it. Its fields sit among the
// page's own in alphabetical order, as every reply's do.
type Paging struct {
	// Next and Previous name the adjacent periods of a period page (a source's, a day, a
	// month or a range).
	Next       string          `json:"next,omitempty"`
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Page       string          `json:"page"`
	Previous   string          `json:"previous,omitempty"`
	Problems   []reply.Problem `json:"problems,omitempty"`
}

// IsFolder reports whether path (brain-relative, below an authored root) is a folder of
// brain b, reached without following a symbolic link.
func IsFolder(b *brain.Brain, path string) bool {
	if !cleanPath(path) {
		return false
	}
	at := b.Root
	for _, seg := range strings.Split(path, "/") {
		at = filepath.Join(at, seg)
		st, err := os.Lstat(at)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// folder lists the notes below an authored folder: projects with deprecated notes last,
// then newest first; concepts by title; actions one ACTION.md each, newest first; other
// folders by path, descending. Notes that get reminders carry their review signals.
func folder(ctx context.Context, req Request, path string) (*Listing, error) {
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if !ref.IsAuthoredRoot(path) {
		found := false
		for _, p := range s.parts {
			found = found || IsFolder(p.brain, path)
		}
		if !found {
			return nil, s.notFound(msgNoFolder)
		}
	}
	top, _, _ := strings.Cut(path, "/")
	// The path range finds the folder's notes through the index on path; their kind is
	// checked row by row (+i.kind), or SQLite reads every note through the index on kind.
	where := `+i.kind = 'note' AND ` + below
	if path == "actions" {
		where = actionNote
	}
	var key, order string
	var less func(a, b *row) bool
	switch top {
	case "projects":
		key, order = `i.time`, `i.status = 'deprecated', i.time DESC, i.ref DESC`
		less = func(a, b *row) bool {
			ad, bd := a.status == "deprecated", b.status == "deprecated"
			switch {
			case ad != bd:
				return bd
			case a.key != b.key:
				return a.key > b.key
			}
			return a.ref > b.ref
		}
	case "concepts":
		key, order = `i.title`, `i.title, i.ref`
		less = func(a, b *row) bool {
			if a.key != b.key {
				return a.key < b.key
			}
			return a.ref < b.ref
		}
	default:
		key, order = `i.path`, `i.path DESC`
		less = func(a, b *row) bool { return a.ref > b.ref }
	}
	out := &Listing{Paging: Paging{Notice: reply.Notice, Page: path}}
	var all []*row
	for _, p := range s.parts {
		n, err := countRows(ctx, p, where, sql.Named("prefix", path))
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += n
		rows, err := queryRows(ctx, p, key, where, order, fetch(req.Offset, listingSize), sql.Named("prefix", path))
		if err != nil {
			return nil, cacheError(err)
		}
		all = append(all, rows...)
	}
	sort.SliceStable(all, func(i, j int) bool { return less(all[i], all[j]) })
	page := window(all, req.Offset, listingSize)
	if err := s.reviewRows(ctx, page); err != nil {
		return nil, err
	}
	return s.finishListing(out, page, req.Offset, 0)
}

// reviewRows sets the review signals of rows, brain by brain, with newer evidence from
// every brain.
func (s *session) reviewRows(ctx context.Context, rows []*row) error {
	sc := s.scope()
	for i, p := range s.parts {
		var mine []*row
		for _, r := range rows {
			if r.part == p {
				mine = append(mine, r)
			}
		}
		if err := review(ctx, sc, i, mine, s.now, s.loc); err != nil {
			return cacheError(err)
		}
	}
	return nil
}

// finishListing turns one page of rows into the listing's items, fitted in the budget
// less reserved bytes, with next_offset, problems and stale, in the reply's shape.
func (s *session) finishListing(out *Listing, page []*row, offset int64, reserved int) (*Listing, error) {
	items := make([]reply.Item, len(page))
	for i, r := range page {
		items[i] = s.item(r, true)
	}
	items, err := s.fit(items, reply.Budget-reserved)
	if err != nil {
		return nil, err
	}
	out.Items = emptyItems(s.shapeItems(items))
	out.NextOffset = reply.NextOffset(offset, len(items), offset+int64(len(items)) < int64(out.Total))
	out.Problems = s.probs.List()
	out.Stale = s.stale
	if s.single {
		for i := range out.Sources {
			out.Sources[i].Brain = ""
		}
	}
	return out, nil
}
