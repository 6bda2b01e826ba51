package pages

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Page sizes (items per page) and section limits.
const (
	// sectionSize bounds home changed and upcoming, period changed, and is the page size of
	// a source page (memories/SOURCE).
	sectionSize = 20
	// pageSize is the page size of periods, tasks and source period, undated and file pages.
	pageSize = 50
	// listingSize is the page size of folder listings, tags and tag listings.
	listingSize = 200
	// homeActions is how many actions home lists.
	homeActions = 10
	// maxFiles is how many files an action page lists.
	maxFiles = 200
	// maxProjects is how many linked projects an action page lists.
	maxProjects = 20
)

// browse is the constant list of pages home offers.
var browse = []string{"projects", "concepts", "actions", "tasks", "memories", "tags", "today", "7d"}

// Messages of failures.
const (
	msgIncomplete    = "not found in the readable evidence; run bf status before concluding it is absent"
	msgUnknownSource = "unknown source; read memories to list sources"
	msgNoFolder      = "page not found; read projects, concepts, actions or memories to browse the brain"
	msgAmbiguous     = "the reference exists in several selected brains; read its bf://NAME/ address"
)

// Offset errors on pages that are never paged.
var (
	errHomeOffset     = errors.New("offset applies to listing pages; follow a home page's projects, actions or period link")
	errMemoriesOffset = errors.New("offset applies to a source's records; read memories/SOURCE")
	errExactOffset    = errors.New("this exact reply is not paged; read it without an offset")
)

// Request is one page read.
type Request struct {
	// Path is the brain-relative page path as normalised by ref.ParsePage ("" = home).
	Path string
	// Page is the classified page. A zero Kind is classified from Path; a folder below an
	// authored root is a PageFolder whose Path is that folder, and actions/FOLDER is the
	// action's page.
	Page ref.Page
	// Brain is set when the ref was a bf://NAME/ address: only that brain's page.
	Brain string
	// Brains are the selected brains, in selection order.
	Brains []*brain.Brain
	// Problems are the brains selection skipped.
	Problems []brain.Problem
	// Offset continues at a previous reply's next_offset.
	Offset int64
	// Now is the time periods end at; zero means time.Now().
	Now time.Time
	// Location is the local time zone of days and replies; nil means time.Local.
	Location *time.Location
}

// Read computes the page req names and returns its reply value, to marshal with
// reply.Encode: *Home, *Listing, *periodReply, *Memories, *tasksReply, *TagsReply or
// *actionReply.
//
// Invalid input (an offset out of range or on a page that is never paged, an invalid
// period) fails with *reply.InputError. A page that names nothing (an unknown source, a
// missing folder or action) fails with *reply.NotFoundError, whose message says the
// answer may be incomplete when a brain was skipped or stale.
func Read(ctx context.Context, req Request) (any, error) {
	if err := reply.CheckOffset(req.Offset); err != nil {
		return nil, &reply.InputError{Argument: "offset", Err: err}
	}
	page, err := classify(req)
	if err != nil {
		return nil, err
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if req.Location == nil {
		req.Location = time.Local
	}
	switch page.Kind {
	case ref.PageHome:
		if req.Offset != 0 {
			return nil, &reply.InputError{Argument: "offset", Err: errHomeOffset}
		}
		return result(home(ctx, req))
	case ref.PageMemories:
		if req.Offset != 0 {
			return nil, &reply.InputError{Argument: "offset", Err: errMemoriesOffset}
		}
		return result(memoriesOverview(ctx, req))
	case ref.PageTasks:
		return result(tasks(ctx, req))
	case ref.PageTags:
		return result(tagDirectory(ctx, req))
	case ref.PageTag:
		return result(tagged(ctx, req, page))
	case ref.PagePeriod:
		return result(period(ctx, req, page))
	case ref.PageSource, ref.PageSourcePeriod, ref.PageSourceUndated, ref.PageRecordFile:
		return result(source(ctx, req, page))
	case ref.PageFolder:
		if isActionFolder(page.Path) {
			return result(action(ctx, req, page.Path))
		}
		return result(folder(ctx, req, page.Path))
	}
	return nil, &reply.NotFoundError{Msg: msgNoFolder}
}

// result returns a page's reply, or only its error: never a typed nil in an interface.
func result[T any](v *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// classify returns the request's page, reading Path when Page is not set.
func classify(req Request) (ref.Page, error) {
	if req.Page.Kind != 0 {
		return req.Page, nil
	}
	path := req.Path
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	p, ok, err := ref.ParsePage(path)
	if err != nil {
		return ref.Page{}, &reply.InputError{Argument: "ref", Err: err}
	}
	if ok {
		return p, nil
	}
	if ref.UnderAuthored(path) && cleanPath(path) {
		return ref.Page{Kind: ref.PageFolder, Path: path}, nil
	}
	return ref.Page{}, &reply.NotFoundError{Msg: msgNoFolder}
}

// isActionFolder reports actions/FOLDER: one folder below actions, read as its ACTION.md.
func isActionFolder(path string) bool {
	rest, ok := strings.CutPrefix(path, "actions/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// cleanPath reports a brain-relative path without empty, dot or dot-dot segments,
// backslashes or control characters.
func cleanPath(p string) bool {
	if p == "" || strings.Contains(p, `\`) {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
