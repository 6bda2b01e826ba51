package fuse

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// maxChain bounds how many successors a chain is followed through.
const maxChain = 8

// successorSQL finds the confirmed item superseding one (by its ref or a name of it); of
// several, the first by ref.
//
// The item is named by its ref ?2, its own address ?3 or, when it is confirmed, a name it
// claims: an unconfirmed item's claims never make it someone's predecessor.
const successorSQL = `SELECT e.item, i.ref FROM edges e JOIN items i ON i.id = e.item
	WHERE e.relation = '` + config.RelSupersedes + `' AND e.item != ?1 AND e.item NOT IN (` + unconfirmed + `)
	AND (e.target IN (?2, ?3) OR ?1 NOT IN (` + unconfirmed + `) AND e.target IN (SELECT name FROM names WHERE item = ?1))
	ORDER BY i.ref, e.item LIMIT 1`

// supersedesSQL lists every confirmed supersedes edge of the brain (stating item,
// target). They are few, and the cache keeps an index of them alone (edges_supersedes):
// the statement reads neither every edge nor those of an often-named target (a person
// named by thousands of records), as a lookup per candidate by target would.
const supersedesSQL = `SELECT item, target FROM edges INDEXED BY edges_supersedes
	WHERE relation = '` + config.RelSupersedes + `' AND item NOT IN (` + unconfirmed + `) ORDER BY rowid`

// namedSQL lists the items answering to each name of a JSON array, with their refs and
// whether they are unconfirmed (whose claimed names name nothing).
const namedSQL = `SELECT n.name, n.item, i.ref, n.item IN (` + unconfirmed + `) FROM names n JOIN items i ON i.id = n.item
	WHERE n.name IN (SELECT value FROM json_each(?1))`

// supersede follows superseded chains in a brain's fused order. A superseded item is
// marked with the end of its chain: the last successor within the scope, passing through
// archived and deprecated ones. Without All a returnable end takes the superseded item's
// place (or stays where it ranked, if higher) and the superseded item leaves the order. A
// successor outside the scope is not followed. A superseded item keeps its own place
// when the end is not returnable (archived and not asked for) or the chain was cut (longer
// than maxChain, or a cycle): it is marked, so no superseded item passes for current.
func (r *run) supersede(ctx context.Context, i int, all []*fused, known map[int64]search.Hit, refs map[int64]string, unreviewed map[int64]bool) ([]int64, error) {
	has, err := superseded(ctx, r.s.DB(i), r.s.Brain(i).Name, all, refs)
	if err != nil {
		return nil, cacheError(err)
	}
	var out []int64
	placed := map[int64]bool{}
	place := func(id int64) {
		if !placed[id] {
			placed[id] = true
			out = append(out, id)
		}
	}
	for _, f := range all {
		if !has[f.id] {
			place(f.id)
			continue
		}
		c, err := r.chain(ctx, i, f.id, known, refs)
		if err != nil {
			return nil, err
		}
		if c.end == 0 {
			place(f.id)
			continue
		}
		r.superseded[key{i, f.id}] = succession{ref: refs[c.end], cut: c.cut}
		if r.req.All || c.cut || !r.eligible(known[c.end], unreviewed) {
			place(f.id)
			continue
		}
		k := key{i, c.end}
		ex := r.explain[k]
		if ex == nil {
			ex = &reply.Explanation{Strategies: []reply.Contribution{}, Score: reply.Round6(f.score)}
			r.explain[k] = ex
		}
		ex.Replaces = append(ex.Replaces, refs[f.id])
		place(c.end)
	}
	return out, nil
}

// succession is what a superseded item carries: its successor's ref and whether the
// chain was cut before its end.
type succession struct {
	ref string
	cut bool
}

// chainEnd is where a chain of successors from an item ends: its last successor within
// the scope (0 for none), and whether the walk was cut (the cap reached with successors
// left, or a cycle).
type chainEnd struct {
	end int64
	cut bool
}

// chain follows the confirmed successors of id through at most maxChain steps. Archived
// and deprecated successors pass the chain on; a successor outside the scope ends it.
func (r *run) chain(ctx context.Context, i int, id int64, known map[int64]search.Hit, refs map[int64]string) (chainEnd, error) {
	db := r.s.DB(i)
	brainName := r.s.Brain(i).Name
	next := func(cur int64) (int64, error) {
		var succ int64
		var ref string
		err := db.QueryRowContext(ctx, successorSQL, cur, refs[cur], ownAddress(brainName, refs[cur])).Scan(&succ, &ref)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, cacheError(err)
		}
		return succ, nil
	}
	seen := map[int64]bool{id: true}
	var c chainEnd
	cur := id
	for step := 0; ; step++ {
		succ, err := next(cur)
		if err != nil || succ == 0 {
			return c, err
		}
		if seen[succ] || step == maxChain {
			c.cut = true
			return c, nil
		}
		seen[succ] = true
		if err := r.load(ctx, i, []int64{succ}, known, refs); err != nil {
			return c, err
		}
		if _, inScope := known[succ]; !inScope {
			return c, nil
		}
		cur, c.end = succ, succ
	}
}

// errTrust is the reason a trust floor other than the two is invalid.
var errTrust = errors.New("expected reviewed or unreviewed")

// cacheError names the cache in a database failure.
func cacheError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errors.New("the search cache is unavailable; run bf build")
}

// superseded keeps, of the candidates, those some confirmed item supersedes: an edge
// supersedes targets the candidate's ref or one of its names, and its stating item is
// another. Two statements for the whole list, so chains are followed only from the few
// items that have a successor.
func superseded(ctx context.Context, db *sql.Tx, brainName string, all []*fused, refs map[int64]string) (map[int64]bool, error) {
	type edge struct {
		item   int64
		target string
	}
	var edges []edge
	err := each(ctx, db, supersedesSQL, func(rows *sql.Rows) error {
		var e edge
		if err := rows.Scan(&e.item, &e.target); err != nil {
			return err
		}
		edges = append(edges, e)
		return nil
	})
	has := map[int64]bool{}
	if err != nil || len(edges) == 0 {
		return has, err
	}
	// The items each target names, by ref or by name.
	byRef := make(map[string]int64, len(all))
	for _, f := range all {
		byRef[refs[f.id]] = f.id
	}
	names := map[string][]int64{}
	var targets []string
	for _, e := range edges {
		if _, seen := names[e.target]; !seen {
			names[e.target] = nil
			targets = append(targets, e.target)
		}
	}
	list, _ := json.Marshal(targets)
	err = each(ctx, db, namedSQL, func(rows *sql.Rows) error {
		var name, itemRef string
		var item int64
		var claimed bool
		if err := rows.Scan(&name, &item, &itemRef, &claimed); err != nil {
			return err
		}
		if !claimed || name == ownAddress(brainName, itemRef) {
			names[name] = append(names[name], item)
		}
		return nil
	}, string(list))
	if err != nil {
		return nil, err
	}
	candidate := make(map[int64]bool, len(all))
	for _, f := range all {
		candidate[f.id] = true
	}
	for _, e := range edges {
		if id, ok := byRef[e.target]; ok && id != e.item {
			has[id] = true
		}
		for _, id := range names[e.target] {
			if candidate[id] && id != e.item {
				has[id] = true
			}
		}
	}
	return has, nil
}
