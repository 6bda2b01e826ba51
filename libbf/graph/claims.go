package graph

import (
	"context"
	"strings"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Claims returns the typed claims the target item makes (declared relations, cites,
// tagged-with), ordered by relation, target, origin and subject: at most claimsPerRelation
// per relation and maxClaims in all, and whether any were left out. Each carries the date or
// time of its item and, when exactly one item of the item's brain is named by the target,
// target_ref and target_title. An identity without an owner makes no claims.
func (t *Target) Claims(ctx context.Context) ([]reply.Claim, bool, error) {
	if t.Brain == "" {
		return nil, false, nil
	}
	p, _ := t.set.part(t.Brain)
	var stored string
	if err := p.DB.QueryRowContext(ctx, `SELECT time FROM items WHERE id = ?`, t.Item).Scan(&stored); err != nil {
		return nil, false, dbError(err)
	}
	rows, err := p.DB.QueryContext(ctx, `SELECT DISTINCT subject, relation, target, origin FROM edges
		WHERE item = ? AND relation != '' ORDER BY relation, target, origin, subject`, t.Item)
	if err != nil {
		return nil, false, dbError(err)
	}
	var claims []reply.Claim
	truncated := false
	per := map[string]int{}
	for rows.Next() {
		var c reply.Claim
		if err := rows.Scan(&c.Subject, &c.Relation, &c.Target, &c.Origin); err != nil {
			rows.Close()
			return nil, false, dbError(err)
		}
		if per[c.Relation] >= claimsPerRelation || len(claims) >= maxClaims {
			truncated = true
			continue
		}
		per[c.Relation]++
		claims = append(claims, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, dbError(err)
	}
	for i := range claims {
		c := &claims[i]
		if t.Kind == reply.KindNote {
			if stored != "" {
				c.Date = stored[:min(10, len(stored))]
			}
		} else {
			c.Time = stored
		}
		c.TargetRef, c.TargetTitle, err = named(ctx, p, c.Target)
		if err != nil {
			return nil, false, err
		}
		c.Present(t.set.loc())
	}
	return claims, truncated, nil
}

// named returns the ref and title of the one item of p that target names (by ref or name),
// keeping a #section of a note; "" when none or several do.
func named(ctx context.Context, p Part, target string) (string, string, error) {
	look, frag := target, ""
	switch {
	case ref.IsAddress(target):
		if a, err := ref.ParseAddress(target); err == nil && a.HasFragment && a.Fragment != "" {
			frag = "#" + a.Fragment
			a.Fragment, a.HasFragment = "", false
			look = a.Identity()
		}
	case isRecordRef(target):
	default:
		if i := strings.IndexByte(target, '#'); i >= 0 {
			look, frag = target[:i], target[i:]
		}
	}
	rows, err := p.DB.QueryContext(ctx, `SELECT ref, kind, title FROM items WHERE id IN
		(SELECT id FROM items WHERE ref = ?1 UNION SELECT item FROM names WHERE name = ?1) LIMIT 2`, look)
	if err != nil {
		return "", "", dbError(err)
	}
	defer rows.Close()
	var refs, kinds, titles []string
	for rows.Next() {
		var r, k, ti string
		if err := rows.Scan(&r, &k, &ti); err != nil {
			return "", "", dbError(err)
		}
		refs, kinds, titles = append(refs, r), append(kinds, k), append(titles, ti)
	}
	if err := rows.Err(); err != nil {
		return "", "", dbError(err)
	}
	if len(refs) != 1 {
		return "", "", nil
	}
	if frag != "" && kinds[0] == reply.KindNote {
		return refs[0] + frag, reply.Title(titles[0]), nil
	}
	if frag != "" {
		return "", "", nil
	}
	return refs[0], reply.Title(titles[0]), nil
}

// isRecordRef reports a SOURCE:ID ref, whose id may hold '#'.
func isRecordRef(s string) bool {
	_, ok := ref.ParseRecordRef(s)
	return ok
}
