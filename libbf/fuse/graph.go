package fuse

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// graphSeeds is the number of hits the graph strategy walks from. Each walk reads at most
// 200 edges per direction, so a hub linked by thousands of notes cannot flood the list.
const graphSeeds = 20

// maxOwners bounds the items one link target resolves to.
const maxOwners = 20

// seed is a hit the graph strategy walks from, with its rank in the fusion of lexical and
// dense lists.
type seed struct {
	id   int64
	ref  string
	rank int
}

// reach is an item one confirmed edge away from some seeds: its score sums 1/(K + rank)
// over the seeds reaching it; step is the edge from the best of them.
type reach struct {
	id    int64
	ref   string
	score float64
	best  float64
	step  reply.Step
}

// Statements of the graph walk. Edges stated by an item marked unreviewed are an agent's
// assertion no person confirmed: none of them is walked.
const (
	unconfirmed = cache.UnconfirmedSQL
	// outSQL lists the edges a seed states (tag membership excluded: a tag is no item).
	outSQL = `SELECT relation, target FROM edges
		WHERE item = ?1 AND relation != '` + config.RelTaggedWith + `' AND item NOT IN (` + unconfirmed + `)
		ORDER BY target, relation LIMIT 200`
	// ownersSQL resolves link targets (a JSON array) to the items each names: by ref or
	// by name. CROSS JOIN keeps the targets first: left free, SQLite scans every name
	// against a Bloom filter of the targets (50 ms on the large bench brain, not 1).
	//
	// A name an unconfirmed item answers to, beyond its own address, is a claim no person
	// confirmed: the third column flags it, and owners leaves it out.
	ownersSQL = `WITH t(v) AS (SELECT DISTINCT value FROM json_each(?1))
		SELECT t.v, i.id, i.ref, 0 FROM t CROSS JOIN items i ON i.ref = t.v
		UNION ALL SELECT t.v, i.id, i.ref, i.id IN (` + unconfirmed + `) FROM t CROSS JOIN names n ON n.name = t.v CROSS JOIN items i ON i.id = n.item`
	// inSQL lists the confirmed edges naming a seed (its ref ?2, its own address ?3 or,
	// for a confirmed seed, a name it claims; or a section of any), with their stating
	// items.
	inSQL = `WITH t(v) AS (SELECT ?2 UNION SELECT ?3
			UNION SELECT name FROM names WHERE item = ?1 AND ?1 NOT IN (` + unconfirmed + `))
		SELECT DISTINCT e.item, i.ref, e.relation FROM t
		JOIN edges e ON e.target = t.v OR (e.target > t.v || '#' AND e.target < t.v || '$')
		JOIN items i ON i.id = e.item
		WHERE e.relation != '` + config.RelTaggedWith + `' AND e.item != ?1 AND e.item NOT IN (` + unconfirmed + `)
		ORDER BY i.ref, e.relation LIMIT 200`
	// sharedSQL lists the items answering to one of a seed's identities.
	sharedSQL = `SELECT DISTINCT n2.item, i.ref FROM names n1
		JOIN names n2 ON n2.name = n1.name AND n2.item != n1.item
		JOIN items i ON i.id = n2.item
		WHERE n1.item = ?1 AND n1.item NOT IN (` + unconfirmed + `) AND n2.item NOT IN (` + unconfirmed + `)
		ORDER BY i.ref LIMIT 200`
)

// relationName is how a path shows an edge's relation: "links" for an untyped link.
func relationName(r string) string {
	if r == "" {
		return "links"
	}
	return r
}

// walk reaches the items one confirmed edge away from the seeds: links and declared
// relations either way, sources (cites) and shared identities. It returns them best
// first (score, then ref).
func walk(ctx context.Context, db *sql.Tx, brainName string, seeds []seed) ([]*reach, error) {
	got := map[int64]*reach{}
	add := func(s seed, id int64, ref string, step reply.Step) {
		if id == s.id {
			return
		}
		c := 1 / float64(K+s.rank)
		r := got[id]
		if r == nil {
			r = &reach{id: id, ref: ref}
			got[id] = r
		}
		r.score += c
		if c > r.best {
			r.best, r.step = c, step
		}
	}
	// Edges the seeds state, then the items their targets name, resolved for all seeds
	// in one statement.
	type edge struct{ relation, target string }
	outStmt, err := db.PrepareContext(ctx, outSQL)
	if err != nil {
		return nil, err
	}
	defer outStmt.Close()
	outs := make([][]edge, len(seeds))
	for n, s := range seeds {
		if err := eachStmt(ctx, outStmt, func(rows *sql.Rows) error {
			var e edge
			if err := rows.Scan(&e.relation, &e.target); err != nil {
				return err
			}
			outs[n] = append(outs[n], e)
			return nil
		}, s.id); err != nil {
			return nil, err
		}
	}
	var targets []string
	for _, out := range outs {
		for _, e := range out {
			targets = append(targets, e.target)
		}
	}
	own, err := owners(ctx, db, brainName, targets)
	if err != nil {
		return nil, err
	}
	inStmt, err := db.PrepareContext(ctx, inSQL)
	if err != nil {
		return nil, err
	}
	defer inStmt.Close()
	sharedStmt, err := db.PrepareContext(ctx, sharedSQL)
	if err != nil {
		return nil, err
	}
	defer sharedStmt.Close()
	for n, s := range seeds {
		for _, e := range outs[n] {
			for _, o := range own(e.target) {
				add(s, o.id, o.ref, reply.Step{From: s.ref, Relation: relationName(e.relation), To: o.ref})
			}
		}
		// Edges naming the seed.
		if err := eachStmt(ctx, inStmt, func(rows *sql.Rows) error {
			var id int64
			var ref, relation string
			if err := rows.Scan(&id, &ref, &relation); err != nil {
				return err
			}
			add(s, id, ref, reply.Step{From: ref, Relation: relationName(relation), To: s.ref})
			return nil
		}, s.id, s.ref, ownAddress(brainName, s.ref)); err != nil {
			return nil, err
		}
		// Items sharing an identity.
		if err := eachStmt(ctx, sharedStmt, func(rows *sql.Rows) error {
			var id int64
			var ref string
			if err := rows.Scan(&id, &ref); err != nil {
				return err
			}
			add(s, id, ref, reply.Step{From: s.ref, Relation: "same-identity", To: ref})
			return nil
		}, s.id); err != nil {
			return nil, err
		}
	}
	list := make([]*reach, 0, len(got))
	for _, r := range got {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b *reach) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.ref, b.ref)
	})
	return list, nil
}

type owner struct {
	id  int64
	ref string
}

// owners resolves link targets to the items they name, in one statement for them all.
// The returned function gives a target's items, by ref, at most 20: those the target
// names as written, else those it names without its #section.
func owners(ctx context.Context, db *sql.Tx, brainName string, targets []string) (func(string) []owner, error) {
	var try []string
	for _, t := range targets {
		try = append(try, t)
		if i := strings.LastIndexByte(t, '#'); i > 0 {
			try = append(try, t[:i])
		}
	}
	named := map[string][]owner{}
	if len(try) > 0 {
		list, _ := json.Marshal(try)
		seen := map[string]map[int64]bool{}
		if err := each(ctx, db, ownersSQL, func(rows *sql.Rows) error {
			var t string
			var o owner
			var claimed bool
			if err := rows.Scan(&t, &o.id, &o.ref, &claimed); err != nil {
				return err
			}
			if claimed && t != ownAddress(brainName, o.ref) {
				return nil
			}
			if seen[t] == nil {
				seen[t] = map[int64]bool{}
			}
			if !seen[t][o.id] {
				seen[t][o.id] = true
				named[t] = append(named[t], o)
			}
			return nil
		}, string(list)); err != nil {
			return nil, err
		}
		for t, os := range named {
			slices.SortFunc(os, func(a, b owner) int { return strings.Compare(a.ref, b.ref) })
			named[t] = os[:min(len(os), maxOwners)]
		}
	}
	return func(target string) []owner {
		if os := named[target]; len(os) > 0 {
			return os
		}
		if i := strings.LastIndexByte(target, '#'); i > 0 {
			return named[target[:i]]
		}
		return nil
	}, nil
}

// each runs a query and calls f for each row.
func each(ctx context.Context, db *sql.Tx, query string, f func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	return cache.EachRow(rows, err, f)
}

// eachStmt runs a prepared statement and calls f for each row.
func eachStmt(ctx context.Context, st *sql.Stmt, f func(*sql.Rows) error, args ...any) error {
	rows, err := st.QueryContext(ctx, args...)
	return cache.EachRow(rows, err, f)
}

// ownAddress is the bf:// address an item of the brain answers to by being itself, not by
// a claim: the one name of an unconfirmed item a walk may follow.
func ownAddress(brainName, itemRef string) string {
	return ref.Address{Brain: brainName, Path: itemRef}.String()
}
