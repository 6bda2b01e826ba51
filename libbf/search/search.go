package search

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
)

// ranked is one brain's contribution.
type ranked struct {
	part *part
	// exact is set when the query is an identity or tag this brain knows.
	exact bool
	// explain holds the identities whose claims explain each result, or nil.
	explain map[string]bool
	rows    []*row
	// sources are the sources this brain searched, when the scope searches records.
	sources []string
	// targets are this brain's identities of an identity or tag scope.
	targets map[string]bool
}

// Run searches the selected brains (req.Brains) and returns one page of results.
//
// Invalid input fails with *InputError before any brain is read. A scope naming a source
// no selected brain indexes or configures fails with *notFoundError. A brain that cannot
// be read is a problem while another answers. A reply above 4 MiB fails with
// reply.errTooLarge.
func Run(ctx context.Context, req Request) (*Reply, error) { return RunWith(ctx, req, nil) }

// RunWith is Run with decorate, when set, adding to each printed item what the caller
// explains about it (bf search --explain).
func RunWith(ctx context.Context, req Request, decorate Decorator) (*Reply, error) {
	res, err := runOnce(ctx, req, decorate)
	if err != nil && cache.Heal(ctx, req.Brains, err) {
		// A damaged cache file was discarded: the next open rebuilds it.
		res, err = runOnce(ctx, req, decorate)
	}
	return res, err
}

func runOnce(ctx context.Context, req Request, decorate Decorator) (*Reply, error) {
	s, err := Start(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.rank(ctx, s.pq); err != nil {
		return nil, err
	}
	if err := s.checkSource(); err != nil {
		return nil, err
	}
	var merged []*row
	if s.identity() {
		merged = mergeIdentity(s.res)
	} else {
		merged = mergeWords(s.res)
	}
	return s.present(ctx, merged, s.hook(decorate))
}

// present builds the reply of ranked rows: the page at the request's offset, finished
// items, unmatched terms, coverage, problems and stale brains. decorate, when set, adds
// to each finished item (of 1-based rank in merged) what a mode of search explains
// about it.
func (s *Session) present(ctx context.Context, merged []*row, decorate func(ctx context.Context, rw *row, rank int64, it *reply.Item) error) (*Reply, error) {
	pq, res, probs := s.pq, s.res, &s.probs
	for _, pr := range s.brainProbs.List() {
		probs.Add(pr)
	}
	sc := pq.scope
	identity := s.identity()
	window := slice(merged, pq.offset, int64(pq.limit)+1)
	shown := window
	if len(shown) > pq.limit {
		shown = shown[:pq.limit]
	}
	match := pq.query.Match()
	items := make([]reply.Item, len(shown))
	explainers := map[*part]map[string]bool{}
	for _, r := range res {
		explainers[r.part] = r.explain
	}
	for i, rw := range shown {
		it, err := finish(ctx, rw, match, explainers[rw.part], pq)
		if err != nil {
			return nil, cacheError(err)
		}
		if decorate != nil {
			if err := decorate(ctx, rw, pq.offset+int64(i)+1, &it); err != nil {
				return nil, err
			}
		}
		items[i] = it
	}
	n, err := reply.FitItems(items, reply.Budget)
	if err != nil {
		return nil, err
	}
	items = items[:n]

	out := &Reply{Items: items, Notice: reply.Notice}
	out.NextOffset = reply.NextOffset(pq.offset, n, n < len(window))
	if pq.query.Identity != "" && !identity {
		out.Identity = "unknown"
	}
	if !identity {
		if err := unmatched(ctx, s.parts, pq.query.Terms, out); err != nil {
			return nil, cacheError(err)
		}
	}
	var all []reply.Coverage
	for _, r := range res {
		for _, src := range r.sources {
			all = append(all, coverageOf(r.part, src))
		}
	}
	if sc.collected() {
		out.Sources, out.SourcesOmitted = coverage(all, items, len(items) == 0 || sc.memories())
		for i := range out.Sources {
			out.Sources[i].Present(pq.loc)
		}
	}
	out.Stale = s.stale
	out.Problems = probs.List()
	if s.single {
		for i := range out.Items {
			out.Items[i] = out.Items[i].Local()
		}
		for i := range out.Sources {
			out.Sources[i].Brain = ""
		}
	} else {
		for i := range out.Items {
			out.Items[i] = out.Items[i].Addressed()
		}
	}
	if _, err := reply.Encode(out); err != nil {
		return nil, err
	}
	return out, nil
}

// run ranks every part.
func run(ctx context.Context, pq *parsed, parts []*part, missingBrains bool, probs *reply.Problems) ([]*ranked, error) {
	sc := pq.scope
	var identities, targets map[string]bool
	var err error
	if pq.text != "" {
		if identities, err = expand(ctx, parts, missingBrains, pq.text, probs); err != nil {
			return nil, cacheError(err)
		}
	}
	if sc.target != "" {
		if targets, err = expand(ctx, parts, missingBrains, sc.target, probs); err != nil {
			return nil, cacheError(err)
		}
	}
	bound := pq.offset + int64(pq.limit) + 1
	var res []*ranked
	for _, p := range parts {
		r := &ranked{part: p}
		localTargets, err := localRefs(ctx, p, targets)
		if err != nil {
			probs.AddError(p.name, err.Error())
			continue
		}
		r.targets = localTargets
		localIDs, err := localRefs(ctx, p, identities)
		if err != nil {
			probs.AddError(p.name, err.Error())
			continue
		}
		if pq.text != "" {
			if isTagAddress(pq.text) {
				r.exact = true
			} else {
				probe := map[string]bool{pq.text: true}
				for id := range localIDs {
					probe[id] = true
				}
				if r.exact, err = known(ctx, p, probe); err != nil {
					return nil, cacheError(err)
				}
			}
		}
		switch {
		case sc.target != "":
			r.explain = localTargets
		case r.exact:
			r.explain = localIDs
		}
		if r.exact {
			r.rows, err = rankIdentity(ctx, p, pq.text, localIDs, sc, localTargets, bound)
		} else {
			r.rows, err = rankWords(ctx, p, pq.query.Terms, sc, localTargets, bound)
		}
		if err != nil {
			return nil, cacheError(err)
		}
		if sc.collected() {
			if r.sources, err = searchedSources(ctx, p, sc.source); err != nil {
				return nil, cacheError(err)
			}
		}
		res = append(res, r)
	}
	return res, nil
}

// mergeWords alternates the brains by rank: scores of separate brains are not comparable.
// Within one rank, the newest comes first, then by ref.
func mergeWords(res []*ranked) []*row {
	var out []*row
	for rank := 0; ; rank++ {
		var tier []*row
		for _, r := range res {
			if rank < len(r.rows) {
				tier = append(tier, r.rows[rank])
			}
		}
		if len(tier) == 0 {
			return out
		}
		sort.SliceStable(tier, func(i, j int) bool {
			if tier[i].time != tier[j].time {
				return tier[i].time > tier[j].time
			}
			return tier[i].ref < tier[j].ref
		})
		out = append(out, tier...)
	}
}

// mergeIdentity merges the brains that know the identity by score, time and ref, all
// descending, as each brain ranks them; a brain that does not know it adds nothing.
func mergeIdentity(res []*ranked) []*row {
	var out []*row
	for _, r := range res {
		if r.exact {
			out = append(out, r.rows...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.score != b.score:
			return a.score > b.score
		case a.time != b.time:
			return a.time > b.time
		}
		return a.ref > b.ref
	})
	return out
}

// slice returns up to n rows from offset.
func slice(rows []*row, offset, n int64) []*row {
	if offset >= int64(len(rows)) {
		return nil
	}
	end := offset + n
	if end > int64(len(rows)) {
		end = int64(len(rows))
	}
	return rows[offset:end]
}

// shownTime is the time a reply shows: a note's local midnight (dropped for its date), a
// record's own event time. Observation places a record in periods but is never shown as
// its event time.
func (rw *row) shownTime() string {
	if rw.kind == reply.KindRecord {
		return rw.stored
	}
	return rw.time
}

// finish builds the reply item of a row: its excerpt, relations, fields and uri, with
// instants in local time.
func finish(ctx context.Context, rw *row, match string, targets map[string]bool, pq *parsed) (reply.Item, error) {
	p := rw.part
	it := reply.Item{
		Brain:    p.name,
		Kind:     rw.kind,
		Ref:      rw.ref,
		Title:    reply.Title(rw.title),
		Time:     rw.shownTime(),
		Observed: rw.observed,
		Partial:  rw.partial,
		URL:      rw.url,
		Also:     rw.also,
		Sections: rw.sections,
		Status:   rw.status,
		Fields:   listedFields(p, rw.fields),
	}
	if rw.kind == reply.KindNote {
		it.Type = rw.typ
		if rw.stored != "" {
			it.Date = rw.stored[:min(10, len(rw.stored))]
		}
		if rw.fragment != "" {
			it.Ref = rw.ref + "#" + rw.fragment
		}
		it.URI = reply.SectionAddress(p.name, rw.path, rw.fragment)
	} else {
		it.Source = rw.source
		it.Updated = rw.updated
		it.URI = reply.Address(p.name, rw.ref)
	}
	if rw.passage != 0 {
		ex, err := excerpt(ctx, p, match, rw.passage)
		if err != nil {
			return it, err
		}
		it.Excerpt = ex
	} else {
		it.Excerpt = reply.Collapse(rw.lead)
	}
	if targets != nil {
		claims, cut, err := explain(ctx, p, rw.id, targets)
		if err != nil {
			return it, err
		}
		it.Relations, it.RelationsTruncated = claims, cut
	}
	it.Present(pq.loc)
	return it, nil
}

// unmatched adds the terms no selected brain holds and suggestions for them.
func unmatched(ctx context.Context, parts []*part, terms []fold.Term, out *Reply) error {
	miss, err := missing(ctx, parts, terms)
	if err != nil {
		return err
	}
	for _, t := range miss {
		out.Unmatched = append(out.Unmatched, t.Display())
		words, err := suggest(ctx, parts, t)
		if err != nil {
			return err
		}
		if len(words) > 0 {
			if out.Suggestions == nil {
				out.Suggestions = map[string][]string{}
			}
			out.Suggestions[t.Display()] = words
		}
	}
	return nil
}

// listedFields are the item's declared single-value fields as listings show them.
func listedFields(p *part, raw string) map[string]json.RawMessage {
	if p.brain.Config == nil {
		return nil
	}
	return reply.ListedFields(raw, p.brain.Config.SingleValued)
}
