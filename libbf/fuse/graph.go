package fuse

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// graphSeeds is the number of hits the graph strategy walks from. Each walk reads at most
// 200 edges per direction, so a hub linked by thousands of notes cannot flood the list.
const graphSeeds = 20

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
	unconfirmed = `SELECT item FROM reviews WHERE state = 'unreviewed'`
	// outSQL lists the edges a seed states (tag membership excluded: a tag is no item).
	outSQL = `SELECT relation, target FROM edges
		WHERE item = ?1 AND relation != '` + config.RelTaggedWith + `' AND item NOT IN (` + unconfirmed + `)
		ORDER BY target, relation LIMIT 200`
	// ownerSQL resolves a link target to the items it names: by ref or by name.
	ownerSQL = `SELECT id, ref FROM items WHERE ref = ?1
		UNION SELECT i.id, i.ref FROM names n JOIN items i ON i.id = n.item WHERE n.name = ?1
		ORDER BY 2 LIMIT 20`
	// inSQL lists the confirmed edges naming a seed (its ref or a name of it, or a section
	// of either), with their stating items.
	inSQL = `WITH t(v) AS (SELECT ?2 UNION SELECT name FROM names WHERE item = ?1)
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
func walk(ctx context.Context, db *sql.Tx, seeds []seed) ([]*reach, error) {
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
	for _, s := range seeds {
		// Edges the seed states.
		type edge struct{ relation, target string }
		var out []edge
		if err := each(ctx, db, outSQL, func(rows *sql.Rows) error {
			var e edge
			if err := rows.Scan(&e.relation, &e.target); err != nil {
				return err
			}
			out = append(out, e)
			return nil
		}, s.id); err != nil {
			return nil, err
		}
		for _, e := range out {
			owners, err := owners(ctx, db, e.target)
			if err != nil {
				return nil, err
			}
			for _, o := range owners {
				add(s, o.id, o.ref, reply.Step{From: s.ref, Relation: relationName(e.relation), To: o.ref})
			}
		}
		// Edges naming the seed.
		if err := each(ctx, db, inSQL, func(rows *sql.Rows) error {
			var id int64
			var ref, relation string
			if err := rows.Scan(&id, &ref, &relation); err != nil {
				return err
			}
			add(s, id, ref, reply.Step{From: ref, Relation: relationName(relation), To: s.ref})
			return nil
		}, s.id, s.ref); err != nil {
			return nil, err
		}
		// Items sharing an identity.
		if err := each(ctx, db, sharedSQL, func(rows *sql.Rows) error {
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

// owners resolves a link target: as written, else without its #section.
func owners(ctx context.Context, db *sql.Tx, target string) ([]owner, error) {
	try := []string{target}
	if i := strings.LastIndexByte(target, '#'); i > 0 {
		try = append(try, target[:i])
	}
	for _, t := range try {
		var out []owner
		if err := each(ctx, db, ownerSQL, func(rows *sql.Rows) error {
			var o owner
			if err := rows.Scan(&o.id, &o.ref); err != nil {
				return err
			}
			out = append(out, o)
			return nil
		}, t); err != nil {
			return nil, err
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, nil
}

// each runs a query and calls f for each row.
func each(ctx context.Context, db *sql.Tx, query string, f func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
