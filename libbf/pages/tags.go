package pages

import (
	"context"
	"database/sql"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// TagsReply is the tag directory: every tag of the selected brains with its note count.
type TagsReply struct {
	Items      []Tag           `json:"items"`
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Page       string          `json:"page"`
	Problems   []reply.Problem `json:"problems,omitempty"`
	Stale      []string        `json:"stale,omitempty"`
	// Total counts the distinct tags of every brain.
	Total int `json:"total"`
}

// Tag is one tag: its address (bf://NAME/tags/LABEL, the ref to read), label and the
// number of notes carrying it.
type Tag struct {
	Brain string `json:"brain,omitempty"`
	Ref   string `json:"ref"`
	Tag   string `json:"tag"`
	Total int    `json:"total"`
	URI   string `json:"uri,omitempty"`
}

// tagDirectory lists the tags of every brain by address, 200 per page.
func tagDirectory(ctx context.Context, req Request) (*TagsReply, error) {
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := &TagsReply{Notice: reply.Notice, Page: "tags"}
	var all []Tag
	for _, p := range s.parts {
		n, err := count(ctx, p.tx, `SELECT count(DISTINCT target) FROM tags`)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += n
		rows, err := p.tx.QueryContext(ctx, `SELECT target, count(*) FROM tags GROUP BY target ORDER BY target LIMIT ?`,
			fetch(req.Offset, listingSize))
		if err != nil {
			return nil, cacheError(err)
		}
		for rows.Next() {
			var t Tag
			if err := rows.Scan(&t.Ref, &t.Total); err != nil {
				rows.Close()
				return nil, cacheError(err)
			}
			t.Brain, t.URI, t.Tag = p.name, t.Ref, tagLabel(t.Ref)
			all = append(all, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, cacheError(err)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].URI < all[j].URI })
	out.Items, out.NextOffset, err = fitEntries(s, window(all, req.Offset, listingSize), req.Offset, out.Total,
		func(t *Tag) { t.Brain, t.URI = "", "" })
	if err != nil {
		return nil, err
	}
	out.Problems = s.probs.List()
	out.Stale = s.stale
	return out, nil
}

// tagLabel is the label of a tag address bf://NAME/tags/LABEL.
func tagLabel(address string) string {
	a, err := ref.ParseAddress(address)
	if err != nil {
		return ""
	}
	label, _ := strings.CutPrefix(a.Path, "tags/")
	return label
}

// tagged lists a tag's members in every brain, newest first, 200 per page: notes whose
// front matter carries the label, and nothing else.
func tagged(ctx context.Context, req Request, page ref.Page) (*Listing, error) {
	if err := ref.ValidTag(page.Tag); err != nil {
		return nil, &reply.InputError{Argument: "ref", Err: err}
	}
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := &Listing{Paging: Paging{Notice: reply.Notice, Page: "tags/" + page.Tag}}
	where := `i.id IN (SELECT item FROM tags WHERE target = :tag)`
	var all []*row
	for _, p := range s.parts {
		tag := sql.Named("tag", reply.Address(p.name, "tags/"+page.Tag))
		n, err := countRows(ctx, p, where, tag)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += n
		rows, err := queryRows(ctx, p, eventExpr, where, `k DESC, i.ref DESC`, fetch(req.Offset, listingSize), tag)
		if err != nil {
			return nil, cacheError(err)
		}
		all = append(all, rows...)
	}
	newestFirst(all)
	return s.finishListing(out, window(all, req.Offset, listingSize), req.Offset, 0)
}
