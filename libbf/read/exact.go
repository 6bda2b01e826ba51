package read

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// maxOwners is how many owners an identity lookup fetches: enough to list the choices of an
// ambiguous one.
const maxOwners = 10

// reader is one read over opened caches.
type reader struct {
	req   Request
	rt    *route
	set   *graph.Opened
	probs reply.Problems
	// readProbs are the problems of the read itself (selection and caches), which every
	// page of a paged text repeats.
	readProbs []reply.Problem
	// unavailable names the selected brains that did not answer; any is "" when selection
	// skipped something without naming a brain.
	unavailable map[string]bool
	// stale names the brains served from their previous cache generation, which may lack
	// what a writer is adding.
	stale map[string]bool
}

func (r *reader) run(ctx context.Context) (any, error) {
	r.unavailable, r.stale = map[string]bool{}, map[string]bool{}
	for _, p := range r.req.Problems {
		r.probs.Add(reply.Problem{Brain: p.Brain, Error: p.Error, File: p.File})
		if p.File == "" {
			r.unavailable[p.Brain] = true
		}
	}
	brains := r.req.Brains
	// A bf://NAME/ ref resolves in brain NAME only; backlinks still come from every brain.
	if r.rt.brain != "" && !slices.ContainsFunc(brains, func(b *brain.Brain) bool { return b.Name == r.rt.brain }) {
		if r.unavailable[r.rt.brain] || r.unavailable[""] {
			return nil, &reply.NotFoundError{Msg: msgIncomplete}
		}
		return nil, &reply.NotFoundError{Msg: "no selected brain is named " + r.rt.brain + "; select it with --brain"}
	}
	opened, err := graph.Open(ctx, brains, &r.probs)
	if err != nil {
		return nil, err
	}
	defer opened.Close()
	r.set = opened
	opened.Location = r.req.Location
	// One brain without selection problems prints the local shape.
	opened.Local = len(r.req.Brains) == 1 && len(r.req.Problems) == 0
	if opened.Missing {
		for _, b := range brains {
			if _, ok := partOf(&opened.Set, b.Name); !ok {
				r.unavailable[b.Name] = true
			}
		}
	}
	for _, name := range opened.Stale {
		r.stale[name] = true
	}
	r.readProbs = r.probs.List()
	return r.resolve(ctx)
}

// incomplete reports whether a brain that could hold the ref did not answer.
func (r *reader) incomplete() bool {
	if r.rt.brain != "" {
		return r.unavailable[r.rt.brain] || r.unavailable[""]
	}
	return len(r.unavailable) > 0
}

// behind reports whether a brain that could hold the ref answered from its previous cache
// generation, which may lack it.
func (r *reader) behind() bool {
	if r.rt.brain != "" {
		return r.stale[r.rt.brain]
	}
	return len(r.stale) > 0
}

// notFound is the failure of a ref that names nothing readable: incomplete when a brain
// that could hold it did not answer or answered stale, or when a cache skipped its file.
func (r *reader) notFound(ctx context.Context) error {
	if r.incomplete() || r.behind() || r.skipped() {
		return &reply.NotFoundError{Msg: msgIncomplete}
	}
	return &reply.NotFoundError{Msg: msgNotFound + r.hint(ctx)}
}

// skipped reports whether a cache skipped the file the ref names.
func (r *reader) skipped() bool {
	file := r.rt.path
	if rr, ok := ref.ParseRecordRef(r.rt.key); ok && r.rt.kind != routePath {
		file = "memories/" + rr.Source + "/" + record.FileName(rr.ID)
	}
	for _, p := range r.probs.List() {
		if p.File != "" && p.File == file {
			return true
		}
	}
	return false
}

// hint suggests up to three close page names or note refs for a plain path.
func (r *reader) hint(ctx context.Context) string {
	if r.rt.kind != routePath && r.rt.kind != routeUnknown {
		return ""
	}
	candidates := []string{"projects", "concepts", "actions", "tasks", "memories", "tags", "today", "yesterday"}
	for _, p := range r.set.Parts {
		refs, err := noteRefs(ctx, p)
		if err != nil {
			return ""
		}
		candidates = append(candidates, refs...)
	}
	close := fold.CloseMatches(r.rt.path, candidates, 3, 0.6)
	if len(close) == 0 {
		return ""
	}
	list := close[0]
	if len(close) > 1 {
		list = strings.Join(close[:len(close)-1], ", ") + " or " + close[len(close)-1]
	}
	return "; did you mean " + list + "?"
}

// resolve finds what the ref names in the opened brains and reads it.
func (r *reader) resolve(ctx context.Context) (any, error) {
	rt := r.rt
	// A folder below an authored root is a page, before any entity of the same path.
	if (rt.kind == routePath || rt.kind == routeAddress) && !rt.hasFragment && ref.UnderAuthored(rt.path) && r.folder(rt.path) {
		if r.req.Rel != "" {
			return nil, &reply.InputError{Argument: "ref", Err: errRelRef}
		}
		rt.kind, rt.page = routePage, ref.Page{Kind: ref.PageFolder, Path: rt.path}
		return readPage(ctx, r.req, rt)
	}
	if rt.kind == routePage {
		// An action folder's relation page lists the backlinks of its ACTION.md.
		rt.kind, rt.path, rt.key = routePath, rt.page.Path+"/ACTION.md", rt.page.Path+"/ACTION.md"
	}
	if rt.kind == routeUnknown {
		return nil, r.notFound(ctx)
	}
	owners, err := graph.Owners(ctx, &r.set.Set, rt.key, maxOwners)
	if err != nil {
		return nil, err
	}
	switch {
	case len(owners) > 1:
		return nil, r.ambiguous(owners)
	case len(owners) == 0:
		if r.incomplete() {
			return nil, &reply.NotFoundError{Msg: msgIncomplete}
		}
		if ref.IsIdentity(rt.key) && rt.kind != routePath && !rt.hasFragment {
			return r.ownerless(ctx)
		}
		return nil, r.notFound(ctx)
	}
	o := owners[0]
	if rt.hasFragment && o.Kind != reply.KindNote {
		return nil, &reply.InputError{Argument: "ref", Err: errRecordFrag}
	}
	t, err := graph.Resolve(ctx, &r.set.Set, o.Brain, o.Ref)
	if err != nil {
		return nil, err
	}
	if r.req.Rel != "" {
		return r.relation(ctx, t)
	}
	if o.Kind == reply.KindRecord {
		return r.record(ctx, t)
	}
	return r.note(ctx, t)
}

// ambiguous is the failure of a ref several items answer to.
func (r *reader) ambiguous(owners []graph.Owner) error {
	brains := map[string]bool{}
	plain := true
	for _, o := range owners {
		brains[o.Brain] = true
		if o.Ref != r.rt.key {
			plain = false
		}
	}
	var choices []string
	for _, o := range owners {
		c := o.Ref
		if len(brains) > 1 || !r.set.Local {
			c = reply.Address(o.Brain, o.Ref)
		}
		choices = append(choices, c)
	}
	sort.Strings(choices)
	list := strings.Join(choices, " or ")
	if len(choices) > 2 {
		list = strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	}
	if plain {
		return errors.New("the reference exists in several selected brains; read " + list)
	}
	return errors.New("ambiguous identity; read an exact ref: " + list)
}

// folder reports whether path is a folder in a brain the read may look at.
func (r *reader) folder(path string) bool {
	for _, p := range r.set.Parts {
		if r.rt.brain != "" && p.Name() != r.rt.brain {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(p.Brain.Root, filepath.FromSlash(path))); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// ownerless answers an identity no item owns: the page of its backlinks, when anything
// links to it.
func (r *reader) ownerless(ctx context.Context) (any, error) {
	t, err := graph.Resolve(ctx, &r.set.Set, "", r.rt.key)
	if err != nil {
		return nil, err
	}
	if r.req.Rel != "" {
		return r.relation(ctx, t)
	}
	groups, omitted, err := t.Backlinks(ctx)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 && omitted == 0 {
		return nil, r.notFound(ctx)
	}
	if r.req.Offset != 0 {
		return nil, &reply.InputError{Argument: "offset", Err: errNotPaged}
	}
	return &IdentityReply{
		Backlinks: groups, BacklinksOmitted: omitted, Notice: reply.Notice, Page: r.rt.ref,
		Problems: r.probs.List(), Stale: r.set.Stale,
	}, nil
}

// relation answers a relation page.
func (r *reader) relation(ctx context.Context, t *graph.Target) (any, error) {
	items, total, next, err := t.RelationPage(ctx, r.req.Rel, r.req.Offset)
	if err != nil {
		return nil, err
	}
	return &RelationReply{
		Items: items, NextOffset: next, Notice: reply.Notice, Page: "relation", Problems: r.probs.List(),
		Ref: r.rt.ref, Relation: r.req.Rel, Stale: r.set.Stale, Total: total,
	}, nil
}

// uri is the address an exact read names, when the read was an address or several brains
// are selected.
func (r *reader) uri(brainName, path, fragment string) string {
	if r.rt.brain == "" && r.set.Local {
		return ""
	}
	return reply.SectionAddress(brainName, path, fragment)
}

func partOf(set *graph.Set, name string) (graph.Part, bool) {
	for _, p := range set.Parts {
		if p.Name() == name {
			return p, true
		}
	}
	return graph.Part{}, false
}

// noteRefs lists the note refs of a brain, for hints.
func noteRefs(ctx context.Context, p graph.Part) ([]string, error) {
	return graph.Strings(ctx, p.DB, `SELECT ref FROM items WHERE kind = 'note' ORDER BY ref LIMIT 100000`)
}
