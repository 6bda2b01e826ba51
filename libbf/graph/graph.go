// Package graph answers what the cache's claims and links say about one note, record or
// identity across the selected brains: its backlinks grouped by relation, the claims an
// item makes, and relation pages that list every item linking through one relation.
//
// A question is asked of a Set: every selected brain that answered, each read in one
// snapshot of its cache. Open builds one from brains (opening and refreshing their caches
// as search does); callers that already hold caches build a Set from Parts themselves.
//
// Targets. The backlinks of an item X count every incoming edge whose target is X's ref in
// its own brain, one of X's names (its own bf:// address, entity, aliases, identity-shaped
// resource) in any brain, X's bare SOURCE:ID in a brain holding no record of that ref, or a
// #section of any of those. A name another item also claims, in any selected brain, counts
// for none (a problem says so); an identity no item owns counts only itself.
//
// Groups. cites first, then declared relations by name, then links (untyped). An item is
// listed once per typed relation it asserts towards X; it is listed under links only when
// it asserts no typed relation towards X (so an item both citing and linking is listed once,
// under cites). X's own links to itself are not backlinks.
package graph

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Limits of graph replies.
const (
	// preview is how many newest items a backlink group shows.
	preview = 5
	// maxGroups is how many relation groups a read previews; the others are counted in
	// backlinks_omitted.
	maxGroups = 64
	// glimpse is the longest backlink preview excerpt, in characters.
	glimpse = 160
	// claimsPerRelation and maxClaims bound the claims of an exact read.
	claimsPerRelation = 20
	maxClaims         = 50
	// pageSize is the number of items of a relation page (fewer above reply.Budget).
	pageSize = 50
)

// Querier is what graph reads a cache through: a *sql.DB or, better, a read-only *sql.Tx
// so that every question sees one snapshot.
type Querier = cache.Querier

// Part is one selected brain that answered.
type Part struct {
	Brain *brain.Brain
	DB    Querier
}

// Name is the brain's name.
func (p Part) Name() string { return p.Brain.Name }

// Set is the selected brains a graph question is asked of.
type Set struct {
	// Parts are the brains that answered, in selection order.
	Parts []Part
	// Missing is true when a selected brain did not answer: a bare record ref it might
	// hold then identifies nothing outside its own brain.
	Missing bool
	// Local is true when one brain is selected without selection problems: items then
	// omit brain and uri.
	Local bool
	// Location presents times; nil means time.Local.
	Location *time.Location
	// Problems receives what made an answer incomplete (shared names); may be nil.
	Problems *reply.Problems
}

func (s *Set) loc() *time.Location { return timestamp.Zone(s.Location) }

func (s *Set) part(name string) (Part, bool) {
	for _, p := range s.Parts {
		if p.Name() == name {
			return p, true
		}
	}
	return Part{}, false
}

func (s *Set) problem(brainName, msg string) {
	if s.Problems != nil {
		s.Problems.AddError(brainName, msg)
	}
}

// Group is one relation's backlinks: its total and a preview of its newest items.
type Group struct {
	Items    []reply.Item `json:"items"`
	Relation string       `json:"relation"`
	Total    int          `json:"total"`
}

// Backlinks returns the backlink groups of the item whose ref (a note path such as
// actions/2026-09-27_launch/ACTION.md, or SOURCE:ID) is in the brain called brainName, from
// every brain of set: cites, declared relations by name, then links, each with its total and
// its 5 newest items (ref, title, date or time, kind, excerpt up to 160 characters, source,
// status, type, single-value fields; brain and uri unless set.Local). At most 64 groups are
// returned; omitted counts the others. With brainName "", ref is an identity that no item
// owns (or is treated as such) and only that identity counts.
//
// Items are presented in set.Location already. An unknown item gives a *reply.NotFoundError.
func Backlinks(ctx context.Context, set *Set, brainName, ref string) (groups []Group, omitted int, err error) {
	t, err := Resolve(ctx, set, brainName, ref)
	if err != nil {
		return nil, 0, err
	}
	return t.Backlinks(ctx)
}

// errNoItem is returned by Resolve for an item not in its brain.
var errNoItem = errors.New("reference not found; use bf search to locate it, or bf read to browse pages")

// dbError names the cache in a database failure, keeping cancellation.
func dbError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var nf *reply.NotFoundError
	if errors.As(err, &nf) {
		return err
	}
	return cache.Unavailable(err)
}

// Open opens the caches of brains (refreshing them) and starts a read-only snapshot of each.
// A brain that fails is a problem while another answers (set.Missing); problems and stale
// brains of the caches are added to probs and stale. Close the set when done.
func Open(ctx context.Context, brains []*brain.Brain, probs *reply.Problems) (*Opened, error) {
	o := &Opened{Set: Set{Problems: probs}}
	for _, b := range brains {
		c, tx, err := cache.Snapshot(ctx, b)
		if err != nil {
			if ctx.Err() != nil {
				o.Close()
				return nil, ctx.Err()
			}
			if len(brains) == 1 {
				return nil, err
			}
			probs.AddError(b.Name, strings.ReplaceAll(err.Error(), b.Root, "<brain>"))
			o.Set.Missing = true
			continue
		}
		for _, pr := range c.Status.Problems {
			probs.Add(reply.Problem{Brain: b.Name, Error: pr.Error, File: pr.File})
		}
		if c.Status.Stale {
			o.Stale = append(o.Stale, b.Name)
		}
		o.caches = append(o.caches, c)
		o.txs = append(o.txs, tx)
		o.Set.Parts = append(o.Set.Parts, Part{Brain: b, DB: tx})
	}
	if len(o.Set.Parts) == 0 {
		return nil, errors.New("no selected brain could be read; run bf status with --brain for each brain")
	}
	return o, nil
}

// Opened is a Set over caches Open opened.
type Opened struct {
	Set
	// Stale names the brains served from a previous generation.
	Stale  []string
	caches []*cache.Cache
	txs    []*sql.Tx
}

// Close ends the snapshots and closes the caches.
func (o *Opened) Close() {
	for _, tx := range o.txs {
		tx.Rollback()
	}
	for _, c := range o.caches {
		c.Close()
	}
	o.txs, o.caches = nil, nil
}

// placed is the instant an item sorts by: a record's time, a note's day at local midnight.
func placed(kind, stored string, loc *time.Location) (time.Time, bool) {
	if stored == "" {
		return time.Time{}, false
	}
	if kind == reply.KindNote {
		t, err := timestamp.ParseDay(stored[:min(10, len(stored))], loc)
		return t, err == nil
	}
	t, err := timestamp.Parse(stored)
	return t, err == nil
}

// relationName is the group name of a stored edge relation.
func relationName(stored string) string {
	if stored == "" {
		return config.RelLinks
	}
	return stored
}
