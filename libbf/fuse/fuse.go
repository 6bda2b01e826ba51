// Package fuse is fused retrieval, a mode of bf search: four strategies each rank a
// brain's items on their own (lexical: the word ranking; dense: chunk vectors against the
// query's; graph: what one confirmed edge joins to the first two's hits; recency: hits
// holding a query word, by when they changed), and their lists are combined by weighted
// reciprocal rank with weights chosen per query class by a fixed rule (Classify). Every
// hit carries its explanation; superseded notes give way to their successors; archived
// and deprecated notes, content outside the scope, unreviewed agent-written notes and
// anything reached only through an agent's unconfirmed edge stay out.
package fuse

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// DefaultDepth is how many items each strategy ranks per brain.
const DefaultDepth = 100

// Trust floors.
const (
	// trustReviewed (the default) leaves out notes marked review: unreviewed.
	trustReviewed = "reviewed"
	// trustUnreviewed also returns them.
	trustUnreviewed = "unreviewed"
)

// archivedPenalty multiplies the fused score of an archived or deprecated note returned
// with Archived.
const archivedPenalty = 0.5

// Scored is an item a dense strategy found, by id in the brain's cache, with its
// similarity to the query.
type Scored struct {
	ID    int64
	Score float64
}

// DenseFunc ranks a brain's items by meaning: at most depth items, best first. A
// non-empty note says the list is missing or incomplete (no provider, chunks not yet
// embedded), and the reply repeats it.
type DenseFunc func(ctx context.Context, db *sql.Tx, b *brain.Brain, query string, depth int) (list []Scored, note string, err error)

// Request is one fused search.
type Request struct {
	Search search.Request
	// Archived also returns archived and deprecated notes (their score halved).
	Archived bool
	// Trust is the trust floor: trustReviewed ("" too) or trustUnreviewed.
	Trust string
	// All keeps superseded notes at their own rank, marked superseded_by.
	All bool
	// Dense is the dense strategy; nil runs without it and says so.
	Dense DenseFunc
	// DenseMissing says why Dense is nil (the reply's unavailable.dense).
	DenseMissing string
	// Depth is each strategy's list length per brain; 0 means DefaultDepth.
	Depth int
}

// NoProvider is why the dense strategy is missing when no provider is declared.
const NoProvider = "no embeddings provider in bf.yaml; searched with lexical, graph and recency"

// key names an item of one brain.
type key struct {
	brain int
	id    int64
}

// run is one fused search in progress.
type run struct {
	req     Request
	s       *search.Session
	weights Weights
	now     time.Time
	// explain and superseded are what each shown item carries.
	explain    map[key]*reply.Explanation
	superseded map[key]succession
	// held finds the terms each shown item holds.
	held holdings
}

// Run answers a fused search. Invalid input fails with *search.InputError before any
// brain is read.
func Run(ctx context.Context, req Request) (*search.Reply, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	res, err := runOnce(ctx, req)
	if err != nil && cache.Heal(ctx, req.Search.Brains, err) {
		// A damaged cache file was discarded: the next open rebuilds it.
		res, err = runOnce(ctx, req)
	}
	return res, err
}

func runOnce(ctx context.Context, req Request) (*search.Reply, error) {
	s, err := search.Start(ctx, req.Search)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	depth := req.Depth
	if depth <= 0 {
		depth = DefaultDepth
	}
	class := Classify(req.Search.Query, s.Query())
	r := &run{req: req, s: s, weights: WeightsOf(class), now: req.Search.Now,
		explain: map[key]*reply.Explanation{}, superseded: map[key]succession{}}
	if r.now.IsZero() {
		r.now = time.Now()
	}
	lex, err := s.Words(ctx, depth)
	if err != nil {
		return nil, err
	}
	unavailable := map[string]string{}
	if req.Dense == nil {
		unavailable[Dense] = req.DenseMissing
		if unavailable[Dense] == "" {
			unavailable[Dense] = NoProvider
		}
	}
	lists := make([][]search.Hit, s.Brains())
	for i := range lists {
		note, err := r.brain(ctx, i, lex[i], depth, &lists[i])
		if err != nil {
			return nil, err
		}
		if note != "" {
			unavailable[Dense] = note
		}
	}
	defer r.held.close()
	out, err := s.Page(ctx, lists, r.decorate)
	if err != nil {
		return nil, err
	}
	out.Fused = &reply.Fused{Class: class, Weights: r.weights}
	if len(unavailable) > 0 {
		out.Fused.Unavailable = unavailable
	}
	// The reply grew: check its size again.
	if _, err := reply.Encode(out); err != nil {
		return nil, err
	}
	return out, nil
}

// check validates what a fused request adds to a search: the trust floor ("" is the
// default).
func check(req Request) error {
	if req.Trust == "" {
		return nil
	}
	return CheckTrust(req.Trust)
}

// CheckTrust validates a trust floor someone gave: reviewed or unreviewed, never empty
// (an empty --trust is a mistake, not the default).
func CheckTrust(floor string) error {
	if floor != trustReviewed && floor != trustUnreviewed {
		return &search.InputError{Argument: "trust", Err: errTrust}
	}
	return nil
}

// brain fuses one brain's lists into its order.
func (r *run) brain(ctx context.Context, i int, lex []search.Hit, depth int, order *[]search.Hit) (string, error) {
	db := r.s.DB(i)
	known := map[int64]search.Hit{}
	refs := map[int64]string{}
	for _, h := range lex {
		known[h.ID], refs[h.ID] = h, h.Ref
	}
	// Dense: its items not yet known are read within the scope.
	var dense []Scored
	var note string
	if r.req.Dense != nil {
		var err error
		if dense, note, err = r.req.Dense(ctx, db, r.s.Brain(i), r.req.Search.Query, depth); err != nil {
			return "", err
		}
		if err := r.load(ctx, i, idsOf(dense), known, refs); err != nil {
			return "", err
		}
	}
	trust, err := r.trust(ctx, db)
	if err != nil {
		return "", err
	}
	ok := func(id int64) bool {
		h, found := known[id]
		return found && r.eligible(h, trust)
	}
	var lexical, denseList []scored
	var lexHits []search.Hit
	for _, h := range lex {
		if ok(h.ID) {
			lexical = append(lexical, scored{h.ID, h.Score})
			lexHits = append(lexHits, h)
		}
	}
	// Strength sees the word ranking's own items by score; the bigram items below are
	// scored on another scale.
	strengthList := strength(lexical)
	// Words inside unspaced runs (記録 in 果樹園の記録) extend the lexical list, after
	// the items the word ranking found.
	if bq := fold.BigramQuery(r.s.Query().Terms); bq != "" && len(lexical) < depth {
		extra, err := bigramHits(ctx, db, bq, depth)
		if err != nil {
			return "", cacheError(err)
		}
		if err := r.load(ctx, i, scoredIDs(extra), known, refs); err != nil {
			return "", err
		}
		inLex := map[int64]bool{}
		for _, h := range lexHits {
			inLex[h.ID] = true
		}
		for _, e := range extra {
			if !inLex[e.id] && ok(e.id) && len(lexical) < depth {
				lexical = append(lexical, e)
				lexHits = append(lexHits, known[e.id])
			}
		}
	}
	for _, d := range dense {
		if ok(d.ID) {
			denseList = append(denseList, scored{d.ID, d.Score})
		}
	}
	lists := []ranking{{Lexical, lexical}, {Strength, strengthList}, {Dense, denseList}}

	// Graph: from the best hits of the first two.
	var seeds []seed
	for n, f := range fuseRanks(lists, r.weights, refs) {
		if n == graphSeeds {
			break
		}
		seeds = append(seeds, seed{id: f.id, ref: f.ref, rank: n + 1})
	}
	reached, err := walk(ctx, db, r.s.Brain(i).Name, seeds)
	if err != nil {
		return "", cacheError(err)
	}
	ids := make([]int64, len(reached))
	for n, rc := range reached {
		ids[n] = rc.id
	}
	if err := r.load(ctx, i, ids, known, refs); err != nil {
		return "", err
	}
	var graph []scored
	steps := map[int64]reply.Step{}
	for _, rc := range reached {
		if ok(rc.id) && len(graph) < depth {
			graph = append(graph, scored{rc.id, rc.score})
			steps[rc.id] = rc.step
		}
	}
	lists = append(lists, ranking{Graph, graph}, ranking{Recency, recency(lexHits, r.now)})

	all := fuseRanks(lists, r.weights, refs)
	for _, f := range all {
		h := known[f.id]
		ex := &reply.Explanation{Strategies: f.contributors}
		if archived(h.Status) {
			f.score *= archivedPenalty
			ex.Penalties = append(ex.Penalties, reply.Penalty{Factor: archivedPenalty, Reason: h.Status})
		}
		if r.s.Low(i, h.Source) && h.Kind == reply.KindRecord {
			ex.Penalties = append(ex.Penalties, reply.Penalty{Factor: 0.5, Reason: "low-priority source (in the lexical score)"})
		}
		if st, found := steps[f.id]; found && contributed(f, Graph) {
			ex.Path = []reply.Step{st}
		}
		r.explain[key{i, f.id}] = ex
	}
	sortFused(all)
	for _, f := range all {
		r.explain[key{i, f.id}].Score = reply.Round6(f.score)
	}
	final, err := r.supersede(ctx, i, all, known, refs, trust)
	if err != nil {
		return "", err
	}
	for _, id := range final {
		*order = append(*order, known[id])
	}
	return note, nil
}

// load reads the items of ids not yet known, within the scope.
func (r *run) load(ctx context.Context, i int, ids []int64, known map[int64]search.Hit, refs map[int64]string) error {
	var missing []int64
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			missing = append(missing, id)
		}
	}
	got, err := r.s.Load(ctx, i, missing)
	if err != nil {
		return err
	}
	for id, h := range got {
		known[id], refs[id] = h, h.Ref
	}
	return nil
}

// trust reads which items are marked unreviewed.
func (r *run) trust(ctx context.Context, db *sql.Tx) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := each(ctx, db, unconfirmed, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	if err != nil {
		return nil, cacheError(err)
	}
	return out, nil
}

// eligible applies the exclusion rules: archived and deprecated notes unless asked for,
// unreviewed notes below the trust floor.
func (r *run) eligible(h search.Hit, unreviewed map[int64]bool) bool {
	if archived(h.Status) && !r.req.Archived {
		return false
	}
	return !unreviewed[h.ID] || r.req.Trust == trustUnreviewed
}

// archived reports a closed note's status.
func archived(status string) bool { return status == "deprecated" || status == "archived" }

// contributed reports whether a strategy ranked a fused item.
func contributed(f *fused, name string) bool {
	return slices.ContainsFunc(f.contributors, func(c reply.Contribution) bool { return c.Name == name })
}

func scoredIDs(list []scored) []int64 {
	out := make([]int64, len(list))
	for i, d := range list {
		out[i] = d.id
	}
	return out
}

func idsOf(list []Scored) []int64 {
	out := make([]int64, len(list))
	for i, d := range list {
		out[i] = d.ID
	}
	return out
}

// decorate adds a fused item's explanation, matched terms and successor.
func (r *run) decorate(ctx context.Context, s *search.Session, h search.Hit, rank int64, it *reply.Item) error {
	k := key{h.Brain, h.ID}
	ex := r.explain[k]
	if ex == nil {
		ex = &reply.Explanation{Strategies: []reply.Contribution{}}
	}
	terms, err := r.held.matched(ctx, s, h)
	if err != nil {
		return cacheError(err)
	}
	ex.Terms = terms
	it.Explain = ex
	it.SupersededBy, it.SupersededChainCut = r.superseded[k].ref, r.superseded[k].cut
	return nil
}

// Explain is word search with an explanation on every hit (bf search --explain): its
// rank and score, the terms it holds and the penalties of the word ranking. The items
// and their order are word search's own.
func Explain(ctx context.Context, req search.Request) (*search.Reply, error) {
	var held holdings
	defer held.close()
	return search.RunWith(ctx, req, func(ctx context.Context, s *search.Session, h search.Hit, rank int64, it *reply.Item) error {
		terms, err := held.matched(ctx, s, h)
		if err != nil {
			return cacheError(err)
		}
		ex := &reply.Explanation{Score: reply.Round6(h.Score), Terms: terms,
			Strategies: []reply.Contribution{{Name: Lexical, Rank: int(rank), Score: reply.Round6(h.Score)}}}
		if archived(h.Status) {
			ex.Penalties = append(ex.Penalties, reply.Penalty{Reason: h.Status + ": ranked after every open item"})
		}
		if h.Kind == reply.KindRecord && s.Low(h.Brain, h.Source) {
			ex.Penalties = append(ex.Penalties, reply.Penalty{Factor: 0.5, Reason: "low-priority source"})
		}
		it.Explain = ex
		return nil
	})
}
