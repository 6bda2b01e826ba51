package search

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Identity limits.
const (
	// maxOwners bounds the local refs one identity expands to in a brain.
	maxOwners = 1001
	// maxRelations is how many claims explain one identity-search result.
	maxRelations = 50
)

// Identity problems.
const (
	msgAmbiguous = "ambiguous identity across selected evidence; read the owning note's bf://NAME/path.md"
	msgShared    = "%d aliases are also claimed elsewhere and were not expanded"
)

// expand returns the identities that stand for value across the selected brains: value
// itself, and when exactly one item (by its ref or a name) owns it, that item's other
// names and, for a record, its bare SOURCE:ID ref. A name another item also claims, in any
// brain, identifies neither and is not expanded. A tag address stands for itself.
// A brain that did not answer may hold the record's ref too (missing), so the bare ref
// is then not added.
func expand(ctx context.Context, parts []*part, missing bool, value string, probs *reply.Problems) (map[string]bool, error) {
	ids := map[string]bool{value: true}
	if isTagAddress(value) {
		return ids, nil
	}
	only := ""
	if ref.IsAddress(value) {
		if a, err := ref.ParseAddress(value); err == nil {
			only = a.Brain
		}
	}
	type match struct {
		part  *part
		item  int64
		names map[string]bool
		bare  string
	}
	var matches []match
	for _, p := range parts {
		if only != "" && p.name != only {
			continue
		}
		rows, err := p.tx.QueryContext(ctx, `SELECT id, ref, kind FROM items WHERE id IN
			(SELECT id FROM items WHERE ref = ?1 UNION SELECT item FROM names WHERE name = ?1) LIMIT 3`, value)
		if err != nil {
			return nil, err
		}
		type owner struct {
			id        int64
			ref, kind string
		}
		var owners []owner
		for rows.Next() {
			var o owner
			if err := rows.Scan(&o.id, &o.ref, &o.kind); err != nil {
				rows.Close()
				return nil, err
			}
			owners = append(owners, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, o := range owners {
			names, err := itemNames(ctx, p, o.id)
			if err != nil {
				return nil, err
			}
			if len(names) > graph.MaxNames {
				probs.AddError(p.name, graph.TooManyNames)
				continue
			}
			m := match{part: p, item: o.id, names: names}
			if o.kind == reply.KindRecord {
				m.bare = o.ref
			}
			matches = append(matches, m)
		}
	}
	switch {
	case len(matches) > 1:
		probs.AddError("", msgAmbiguous)
		return ids, nil
	case len(matches) == 0:
		return ids, nil
	}
	owner := matches[0]
	namespace := "bf://" + owner.part.name + "/"
	shared := map[string]bool{}
	bare := owner.bare
	if missing {
		bare = ""
	}
	for _, p := range parts {
		own := p == owner.part
		var candidates []string
		for n := range owner.names {
			if n != value && (own || !strings.HasPrefix(n, namespace)) {
				candidates = append(candidates, n)
			}
		}
		if bare != "" && bare != value {
			candidates = append(candidates, bare)
		}
		sort.Strings(candidates)
		if len(candidates) == 0 {
			continue
		}
		var self int64 // the owner, when this brain holds it
		if own {
			self = owner.item
		}
		// The bare SOURCE:ID may be another item's ref: refs count as claims here.
		found, err := graph.ClaimedElsewhere(ctx, p.tx, candidates, self, true)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			if f == bare {
				// Another brain holding the same record ref is its own copy: no conflict.
				bare = ""
				continue
			}
			shared[f] = true
		}
	}
	if len(shared) > 0 {
		probs.AddError("", fmt.Sprintf(msgShared, len(shared)))
	}
	for n := range owner.names {
		if !shared[n] {
			ids[n] = true
		}
	}
	if bare != "" {
		ids[bare] = true
	}
	return ids, nil
}

func itemNames(ctx context.Context, p *part, item int64) (map[string]bool, error) {
	list, err := cache.Strings(ctx, p.tx, `SELECT name FROM names WHERE item = ? LIMIT `+strconv.Itoa(graph.MaxNames+1), item)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(list))
	for _, n := range list {
		names[n] = true
	}
	return names, nil
}

// localRefs adds, for the bf:// addresses of this brain among ids, the refs of the items
// that alone hold them, so links by relative path count like links by address.
func localRefs(ctx context.Context, p *part, ids map[string]bool) (map[string]bool, error) {
	var qualified []string
	for id := range ids {
		if !ref.IsAddress(id) {
			continue
		}
		if a, err := ref.ParseAddress(id); err == nil && a.Brain == p.name {
			qualified = append(qualified, id)
		}
	}
	out := make(map[string]bool, len(ids))
	for id := range ids {
		out[id] = true
	}
	if len(qualified) == 0 {
		return out, nil
	}
	sort.Strings(qualified)
	refs, err := cache.Strings(ctx, p.tx, `SELECT DISTINCT i.ref FROM items i JOIN (SELECT name, min(item) AS item FROM names
		WHERE name IN (SELECT value FROM json_each(?)) GROUP BY name HAVING count(*) = 1) o ON o.item = i.id LIMIT `+
		strconv.Itoa(maxOwners+1), jsontext.Array(qualified))
	if err != nil {
		return nil, err
	}
	if len(refs) > maxOwners {
		return nil, fmt.Errorf("local identity expansion exceeds %d owners", maxOwners)
	}
	for _, r := range refs {
		out[r] = true
	}
	return out, nil
}

// known reports whether an item of this brain is, names or links to one of ids, whatever
// the scope.
func known(ctx context.Context, p *part, ids map[string]bool) (bool, error) {
	list := sortedSet(ids)
	var ok bool
	err := p.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM items WHERE ref IN (SELECT value FROM json_each(:v)))
		OR EXISTS (SELECT 1 FROM names WHERE name IN (SELECT value FROM json_each(:v)))
		OR EXISTS (SELECT 1 FROM links WHERE target IN (SELECT value FROM json_each(:v)))
		OR EXISTS (SELECT 1 FROM json_each(:s) s CROSS JOIN links l ON l.target > s.value || '#' AND l.target < s.value || '$')`,
		sql.Named("v", jsontext.Array(list)), sql.Named("s", jsontext.Array(sectionTargets(list)))).Scan(&ok)
	return ok, err
}

// explain returns the claims an item makes about the targets (or sections of them),
// ordered by relation, target, origin and subject, at most maxRelations, and whether more
// were cut. An untyped link repeating a typed one from the same origin to the same target
// is listed once, under its relation.
func explain(ctx context.Context, p *part, item int64, targets map[string]bool) ([]reply.Claim, bool, error) {
	if p.claims == nil {
		// The bound is written as a number: as a parameter, SQLite would compile the
		// statement again on its first run.
		st, err := p.tx.PrepareContext(ctx, `SELECT subject, relation, target, origin FROM (
			SELECT subject, relation, target, origin,
				max(relation != '') OVER (PARTITION BY target, origin) AS typed
			FROM edges WHERE item = ?1 AND (target IN (SELECT value FROM json_each(?2))
				OR EXISTS (SELECT 1 FROM json_each(?3) s WHERE target > s.value || '#' AND target < s.value || '$')))
		WHERE relation != '' OR NOT typed
		ORDER BY relation, target, origin, subject LIMIT `+strconv.Itoa(maxRelations+1))
		if err != nil {
			return nil, false, err
		}
		p.claims = st
	}
	list := sortedSet(targets)
	rows, err := p.claims.QueryContext(ctx, item, jsontext.Array(list), jsontext.Array(sectionTargets(list)))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var claims []reply.Claim
	for rows.Next() {
		var c reply.Claim
		if err := rows.Scan(&c.Subject, &c.Relation, &c.Target, &c.Origin); err != nil {
			return nil, false, err
		}
		claims = append(claims, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(claims) > maxRelations {
		return claims[:maxRelations], true, nil
	}
	return claims, false, nil
}

// sectionTargets are the identities whose #section links also count as links to them:
// bf:// addresses without a fragment and note paths. A bare SOURCE:ID may hold '#' in its
// id, so it never takes a section.
func sectionTargets(ids []string) []string {
	var out []string
	for _, id := range ids {
		if ref.IsAddress(id) {
			if a, err := ref.ParseAddress(id); err == nil && !a.HasFragment {
				out = append(out, id)
			}
			continue
		}
		if isNotePath(id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
