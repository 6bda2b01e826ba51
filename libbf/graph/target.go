package graph

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// MaxNames bounds the names one item answers to: its address, entity, resource and 1,000
// aliases. Graph targets and identity search expand an item's names only this far.
const MaxNames = 1003

// TooManyNames is the problem of an item holding more than MaxNames names.
var TooManyNames = fmt.Sprintf("identity expansion exceeds %d aliases", MaxNames)

// Problems of names other items claim too: one, or several (counted).
const (
	msgSharedOne  = "1 alias is also claimed elsewhere and was not expanded"
	msgSharedMany = "%d aliases are also claimed elsewhere and were not expanded"
)

// sharedProblem is the problem of n names other items claim too.
func sharedProblem(n int) string {
	if n == 1 {
		return msgSharedOne
	}
	return fmt.Sprintf(msgSharedMany, n)
}

// Target is what a graph question is about: one item of one brain, or an identity no item
// owns. Its identities say which edge targets count in each brain.
type Target struct {
	set *Set
	// Brain and Ref name the item; Brain is "" for an ownerless identity, whose Ref is the
	// identity.
	Brain, Ref string
	// Item is the item's id in its brain's cache (0 for an identity).
	Item int64
	// Kind is note or record ("" for an identity).
	Kind string
	// global are the identities that count in every brain; local adds those that count in
	// one brain only (by brain name).
	global map[string]bool
	local  map[string]map[string]bool
}

// Owner is an item an identity names.
type Owner struct {
	Brain string
	Ref   string
	Item  int64
	Kind  string
}

// Owners returns the items of set that identity names: by their ref (a note path or
// SOURCE:ID, in any brain) or by one of their names (own bf:// address, entity, alias,
// resource). A bf:// address is looked up only in its own brain. At most limit owners are
// returned.
func Owners(ctx context.Context, set *Set, identity string, limit int) ([]Owner, error) {
	only := addressBrain(identity)
	var out []Owner
	for _, p := range set.Parts {
		if only != "" && p.Name() != only {
			continue
		}
		found, err := brainOwners(ctx, p.DB, identity, limit)
		if err != nil {
			return nil, err
		}
		for _, o := range found {
			o.Brain = p.Name()
			out = append(out, o)
		}
		if len(out) >= limit {
			return out[:limit], nil
		}
	}
	return out, nil
}

// addressBrain is the brain a bf:// identity names, which alone can own it; "" for any
// other identity, which any brain may own.
func addressBrain(identity string) string {
	if ref.IsAddress(identity) {
		if a, err := ref.ParseAddress(identity); err == nil {
			return a.Brain
		}
	}
	return ""
}

// brainOwners returns the items of one brain's cache db that identity names, by their ref
// or one of their names, ordered by ref, at most limit; their Brain is left for the caller.
// Identity search (package search) asks the same question of each brain.
func brainOwners(ctx context.Context, db Querier, identity string, limit int) ([]Owner, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, ref, kind FROM items WHERE id IN
		(SELECT id FROM items WHERE ref = ?1 UNION SELECT item FROM names WHERE name = ?1) ORDER BY ref LIMIT ?2`,
		identity, limit)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []Owner
	for rows.Next() {
		var o Owner
		if err := rows.Scan(&o.Item, &o.Ref, &o.Kind); err != nil {
			return nil, dbError(err)
		}
		out = append(out, o)
	}
	return out, dbError(rows.Err())
}

// ClaimedElsewhere returns which of names some item of one brain's cache db claims too,
// other than item owner when this brain holds it (owner 0: it does not). A name two items
// claim identifies neither, so identity expansion leaves it out. withRefs also counts the
// items' refs as claims: identity search expands a record to its bare SOURCE:ID, which
// another item's ref may be; graph targets expand to names only.
func ClaimedElsewhere(ctx context.Context, db Querier, names []string, owner int64, withRefs bool) ([]string, error) {
	own := 0
	if owner != 0 {
		own = 1
	}
	query := `SELECT DISTINCT name FROM names WHERE name IN (SELECT value FROM json_each(?1))
			AND NOT (?2 = 1 AND item = ?3)`
	if withRefs {
		query = `SELECT name FROM names WHERE name IN (SELECT value FROM json_each(?1))
				AND NOT (?2 = 1 AND item = ?3)
			UNION SELECT ref FROM items WHERE ref IN (SELECT value FROM json_each(?1)) AND NOT (?2 = 1 AND id = ?3)`
	}
	return Strings(ctx, db, query, jsontext.Array(names), own, owner)
}

// Resolve returns the target of the item whose ref is in the brain called brainName, or,
// with brainName "", of an identity that is treated as owned by nothing.
func Resolve(ctx context.Context, set *Set, brainName, itemRef string) (*Target, error) {
	t := &Target{set: set, Brain: brainName, Ref: itemRef, local: map[string]map[string]bool{}}
	if brainName == "" {
		t.global = map[string]bool{itemRef: true}
		return t, nil
	}
	p, ok := set.part(brainName)
	if !ok {
		return nil, &reply.NotFoundError{Msg: errNoItem.Error()}
	}
	err := p.DB.QueryRowContext(ctx, `SELECT id, kind FROM items WHERE ref = ?`, itemRef).Scan(&t.Item, &t.Kind)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &reply.NotFoundError{Msg: errNoItem.Error()}
	}
	if err != nil {
		return nil, dbError(err)
	}
	names, err := Strings(ctx, p.DB, `SELECT name FROM names WHERE item = ? ORDER BY name LIMIT ?`, t.Item, MaxNames+1)
	if err != nil {
		return nil, err
	}
	if len(names) > MaxNames {
		set.problem(brainName, TooManyNames)
		names = names[:MaxNames]
	}
	// A name another item claims too identifies neither.
	shared := map[string]bool{}
	for _, q := range set.Parts {
		owner := int64(0)
		if q.Name() == brainName {
			owner = t.Item
		}
		found, err := ClaimedElsewhere(ctx, q.DB, names, owner, false)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			shared[f] = true
		}
	}
	t.global = map[string]bool{}
	for _, n := range names {
		if !shared[n] {
			t.global[n] = true
		}
	}
	if len(shared) > 0 {
		set.problem(brainName, sharedProblem(len(shared)))
	}
	t.local[brainName] = map[string]bool{itemRef: true}
	// A bare SOURCE:ID written in another brain names this record unless that brain holds
	// its own record of that ref, or a brain that did not answer might.
	if t.Kind == reply.KindRecord && !set.Missing {
		for _, q := range set.Parts {
			if q.Name() == brainName {
				continue
			}
			var n int
			if err := q.DB.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE ref = ?`, itemRef).Scan(&n); err != nil {
				return nil, dbError(err)
			}
			if n == 0 {
				t.local[q.Name()] = map[string]bool{itemRef: true}
			}
		}
	}
	return t, nil
}

// targets returns the identities that count in the brain called name, and those of them
// whose #sections count too.
func (t *Target) targets(name string) (exact, sections []string) {
	set := map[string]bool{}
	for v := range t.global {
		set[v] = true
	}
	for v := range t.local[name] {
		set[v] = true
	}
	for v := range set {
		exact = append(exact, v)
		if takesSections(v) {
			sections = append(sections, v)
		}
	}
	sort.Strings(exact)
	sort.Strings(sections)
	return exact, sections
}

// takesSections reports whether links to v#fragment are links to v: bf:// addresses without
// a fragment and note paths. A bare SOURCE:ID may hold '#' in its id, so it never does.
func takesSections(v string) bool {
	if ref.IsAddress(v) {
		a, err := ref.ParseAddress(v)
		return err == nil && !a.HasFragment
	}
	if _, ok := ref.ParseRecordRef(v); ok {
		return false
	}
	return ref.UnderAuthored(v) && strings.HasSuffix(v, ".md")
}

// Strings runs a query of one text column on one brain's cache db and returns the values
// in the query's order; a failure reads as the cache being unavailable.
func Strings(ctx context.Context, db Querier, query string, args ...any) ([]string, error) {
	out, err := cache.Strings(ctx, db, query, args...)
	return out, dbError(err)
}
