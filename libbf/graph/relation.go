package graph

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// Relations returns the relations a relation page may list in brains: links, cites and
// every relation a brain declares, sorted.
func Relations(brains []*brain.Brain) []string {
	set := map[string]bool{config.RelLinks: true, config.RelCites: true}
	for _, b := range brains {
		if b == nil || b.Config == nil {
			continue
		}
		for _, r := range b.Config.Relations() {
			set[r] = true
		}
	}
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// CheckRelation validates a relation page's relation against brains: an unknown one is a
// *reply.InputError for "rel" naming the valid relations.
func CheckRelation(brains []*brain.Brain, rel string) error {
	valid := Relations(brains)
	for _, r := range valid {
		if r == rel {
			return nil
		}
	}
	return &reply.InputError{Argument: "rel", Err: errors.New("unknown relation; use one of " + strings.Join(valid, ", "))}
}

// RelationPage lists the items linking to the target through rel, and through the
// relations each asserting brain declares narrower than rel (those items carry their own
// relation), newest first, from offset: at most pageSize items and fewer above
// reply.Budget. total counts the whole list; next is where the next page starts.
func (t *Target) RelationPage(ctx context.Context, rel string, offset int64) (items []reply.Item, total int, next *int64, err error) {
	only := map[string]bool{rel: true}
	narrower := map[string]map[string]bool{} // brain → narrower relations of rel
	for _, p := range t.set.Parts {
		if p.Brain == nil || p.Brain.Config == nil {
			continue
		}
		for _, n := range p.Brain.Config.Narrower(rel) {
			only[n] = true
			if narrower[p.Name()] == nil {
				narrower[p.Name()] = map[string]bool{}
			}
			narrower[p.Name()][n] = true
		}
	}
	all, err := t.links(ctx, only)
	if err != nil {
		return nil, 0, nil, err
	}
	var kept []*link
	for _, l := range all {
		if l.relation == rel || narrower[l.part.Name()][l.relation] {
			kept = append(kept, l)
		}
	}
	total = len(kept)
	if offset >= int64(total) {
		return []reply.Item{}, total, nil, nil
	}
	window := kept[offset:min(int64(total), offset+pageSize)]
	items = make([]reply.Item, 0, len(window))
	for _, l := range window {
		it, err := t.set.item(ctx, l, false)
		if err != nil {
			return nil, 0, nil, err
		}
		if l.relation != rel {
			it.Relation = l.relation
		}
		items = append(items, it)
	}
	n, err := reply.FitItems(items, reply.Budget)
	if err != nil {
		return nil, 0, nil, err
	}
	items = items[:n]
	for i := range items {
		items[i] = t.set.shape(items[i])
	}
	return items, total, reply.NextOffset(offset, n, offset+int64(n) < int64(total)), nil
}
