// Package read answers bf read: it routes a ref to a computed page (package pages), an
// exact read of a note, a section, a record or an identity, an identity's backlinks page,
// or a relation page (package graph), and pages the text of large exact reads.
//
// Routing looks at the ref's syntax first: an empty ref is home; bf://NAME/…
// reads in brain NAME only; page paths go to pages.Read; note paths, SOURCE:ID records,
// identities and bf:// note, record and entity addresses are exact reads. Invalid refs, a
// relation on a page or section, an unknown relation and offsets that cannot apply fail
// with *reply.InputError before the reply is built; refs that name nothing fail with
// *reply.NotFoundError, saying the answer is incomplete when a selected brain was
// unavailable or served stale.
//
// Choices made where the reference is silent:
//   - An identity read returns the owner's reply under the owner's own ref; uri names its
//     address whenever the read was a bf:// address or several brains are selected.
//   - A plain ref held by several selected brains, and an identity several items claim,
//     fail (exit 1) naming every choice by its bf:// address (or its ref within one brain).
//   - While a selected brain is unavailable, a ref no answering brain holds fails as
//     incomplete, even when other brains link to it as an identity: the missing brain
//     could own it.
//   - While a selected brain is stale (served from its previous cache generation because a
//     writer holds it), a ref that would otherwise fail as not found fails as incomplete:
//     the generation being written could hold it. An identity that items link to still
//     answers with its backlinks page, which names the brain in stale.
//   - An ownerless identity page names the identity as read in page; it carries no claims,
//     since only an owner states claims.
//   - A relation page's ref is the ref as read; an action folder lists the backlinks of its
//     ACTION.md.
//   - The tasks, next open task and review signals of a whole note read are those
//     pages.Review computes for listings; an ACTION.md read lists its files and linked
//     projects by the rules of the action page.
//   - A section read carries neither backlinks nor claims (the reference lists neither
//     for a section); the outline of a paged section lists its subsections only.
package read

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Request is one read.
type Request struct {
	// Ref is the ref as typed: "" for home, a page, a note, note#section, SOURCE:ID, an
	// identity or a bf:// address.
	Ref string
	// Rel asks for the relation page of Ref: links, cites or a declared relation.
	Rel string
	// Offset continues at a previous reply's next_offset.
	Offset int64
	// Brains are the selected brains, in selection order.
	Brains []*brain.Brain
	// Problems are the brains selection skipped.
	Problems []brain.Problem
	// Now is the time periods end at; zero means time.Now().
	Now time.Time
	// Location is the local time zone of replies; nil means time.Local.
	Location *time.Location
}

// Messages of failures and invalid input.
const (
	msgNotFound   = "reference not found; use bf search to locate it, or bf read to browse pages"
	msgIncomplete = "not found in the readable evidence; run bf status before concluding it is absent"
	msgSection    = "section not found; read the whole note to see its headings"
)

// Reasons of invalid refs, offsets and relations.
var (
	errLength     = fmt.Errorf("expected a ref of at most %d characters of UTF-8 text", ref.MaxLength)
	errPageFrag   = errors.New("pages have no sections; read the page without #section")
	errBareHash   = errors.New("a ref ending in # names no section; read the whole note or name a section")
	errRecordFrag = errors.New("records have no sections; write # in a record id as %23 inside a bf:// address")
	errRelRef     = errors.New("a relation page needs a whole note, a SOURCE:ID record, an identity or a bf:// address, not a page or a #section")
	errNotPaged   = errors.New("this exact reply is not paged; read it without an offset")
	errBeyond     = errors.New("offset is beyond this exact text; restart the read at offset 0")
)

// Check validates a request without reading any brain: the ref's syntax, the offset and
// the relation against the selected brains' declarations. Its errors are *reply.InputError.
func Check(req Request) error {
	_, err := check(req)
	return err
}

func check(req Request) (*route, error) {
	if err := reply.CheckOffset(req.Offset); err != nil {
		return nil, &reply.InputError{Argument: "offset", Err: err}
	}
	rt, err := parse(req.Ref)
	if err != nil {
		return nil, &reply.InputError{Argument: "ref", Err: err}
	}
	if req.Rel != "" {
		if rt.kind == routePage && !rt.actionFolder() || rt.hasFragment {
			return nil, &reply.InputError{Argument: "ref", Err: errRelRef}
		}
		if err := graph.CheckRelation(req.Brains, req.Rel); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// Run answers one read. The reply is one of *NoteReply, *RecordReply, *IdentityReply,
// *RelationReply, *textPage or a reply of pages.Read; marshal it with reply.Encode.
func Run(ctx context.Context, req Request) (any, error) {
	if req.Location == nil {
		req.Location = time.Local
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	rt, err := check(req)
	if err != nil {
		return nil, err
	}
	out, err := runOnce(ctx, req, rt)
	if err != nil && cache.Heal(ctx, req.Brains, err) {
		// A damaged cache file was discarded: the next open rebuilds it.
		out, err = runOnce(ctx, req, rt)
	}
	return out, err
}

func runOnce(ctx context.Context, req Request, rt *route) (any, error) {
	if rt.kind == routePage && req.Rel == "" {
		return readPage(ctx, req, rt)
	}
	r := &reader{req: req, rt: rt}
	return r.run(ctx)
}

// routeKind says what a ref's syntax names.
type routeKind int

const (
	// routePage is a computed page (home, tasks, folders, periods, memories, tags, actions).
	routePage routeKind = iota + 1
	// routePath is a plain path under an authored root: a note, or a folder if one exists.
	routePath
	// routeIdentity is a SOURCE:ID record or an identity, as written.
	routeIdentity
	// routeAddress is a bf:// note, record or entity address, or a folder below an
	// authored root.
	routeAddress
	// routeUnknown is any other plain path: it names nothing.
	routeUnknown
)

// route is a ref classified by its syntax.
type route struct {
	kind  routeKind
	ref   string   // the ref as read, one trailing '/' dropped
	brain string   // bf://NAME: only that brain
	page  ref.Page // routePage
	// path is the brain-relative path (routePath, routeAddress) or the identity
	// (routeIdentity); key is what owners are looked up by.
	path, key   string
	fragment    string
	hasFragment bool
}

// actionFolder reports an action folder's page, actions/YYYY-MM-DD_topic.
func (rt *route) actionFolder() bool {
	return rt.kind == routePage && rt.page.Kind == ref.PageFolder && isActionFolder(rt.page.Path)
}

func isActionFolder(p string) bool {
	root, name, ok := strings.Cut(p, "/")
	return ok && root == "actions" && !strings.Contains(name, "/") && ref.ValidActionFolder(name)
}

// parse classifies a ref by its syntax alone.
func parse(s string) (*route, error) {
	if len(s) > ref.MaxLength*4 || utf8.RuneCountInString(s) > ref.MaxLength || !utf8.ValidString(s) {
		return nil, errLength
	}
	rt := &route{ref: s}
	if s == "" {
		rt.kind, rt.page = routePage, ref.Page{Kind: ref.PageHome}
		return rt, nil
	}
	if ref.IsAddress(s) {
		return parseAddress(s)
	}
	first, _, _ := strings.Cut(s, "/")
	if strings.Contains(first, ":") {
		// A record or an identity: its id may hold '#', which then is no fragment.
		if _, ok := ref.ParseRecordRef(s); !ok {
			if err := ref.CheckIdentity(s); err != nil {
				return nil, err
			}
		}
		rt.kind, rt.path, rt.key = routeIdentity, s, s
		return rt, nil
	}
	if base, _, hash := strings.Cut(s, "#"); hash {
		if _, ok, err := ref.ParsePage(base); ok || err != nil || ref.Reserved(strings.TrimSuffix(base, "/")) {
			return nil, errPageFrag
		}
		p, frag, has, err := ref.SplitFragment(s)
		if err != nil {
			return nil, err
		}
		if has && frag == "" {
			return nil, errBareHash
		}
		rt.path, rt.key, rt.fragment, rt.hasFragment = p, p, frag, has
		rt.kind = routeUnknown
		if ref.UnderAuthored(p) {
			rt.kind = routePath
		}
		return rt, nil
	}
	page, ok, err := ref.ParsePage(s)
	if err != nil {
		return nil, err
	}
	if ok {
		rt.kind, rt.page, rt.ref = routePage, page, strings.TrimSuffix(s, "/")
		return rt, nil
	}
	if len(s) > 1 {
		s = strings.TrimSuffix(s, "/")
	}
	rt.ref, rt.path, rt.key = s, s, s
	switch {
	case isActionFolder(s):
		rt.kind, rt.page = routePage, ref.Page{Kind: ref.PageFolder, Path: s}
	case ref.UnderAuthored(s):
		rt.kind = routePath
	default:
		rt.kind = routeUnknown
	}
	return rt, nil
}

func parseAddress(s string) (*route, error) {
	a, err := ref.ParseAddress(s)
	if err != nil {
		return nil, err
	}
	rt := &route{ref: s, brain: a.Brain, path: a.Path, fragment: a.Fragment, hasFragment: a.HasFragment && a.Fragment != ""}
	switch a.Kind() {
	case ref.AddressHome:
		rt.kind, rt.page = routePage, ref.Page{Kind: ref.PageHome}
		return rt, nil
	case ref.AddressPage:
		if a.HasFragment {
			return nil, errPageFrag
		}
		page, ok, err := ref.ParsePage(a.Path)
		if err != nil {
			return nil, err
		}
		if !ok {
			page = ref.Page{Kind: ref.PageFolder, Path: strings.TrimSuffix(a.Path, "/")}
		}
		rt.kind, rt.page = routePage, page
		return rt, nil
	case ref.AddressRecord:
		if a.HasFragment {
			return nil, errRecordFrag
		}
	}
	if isActionFolder(strings.TrimSuffix(a.Path, "/")) && !a.HasFragment {
		rt.kind, rt.page = routePage, ref.Page{Kind: ref.PageFolder, Path: strings.TrimSuffix(a.Path, "/")}
		return rt, nil
	}
	rt.kind = routeAddress
	rt.path = strings.TrimSuffix(a.Path, "/")
	whole := a
	whole.Fragment, whole.HasFragment, whole.Rel = "", false, ""
	rt.key = whole.Identity()
	return rt, nil
}
