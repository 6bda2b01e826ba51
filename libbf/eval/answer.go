package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/cases"

	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
	"github.com/bfgo/bf/libbf/vector"
)

// Messages of case errors.
const (
	msgChanged = "exact reply changed during evaluation; rerun bf eval"
	// incompletePrefix starts the not-found error of a read that could not look in every
	// selected brain: it proves nothing, so it fails the case instead of reading as empty.
	incompletePrefix = "not found in the readable evidence"
)

// maxPages bounds the pages of one assembled exact read (4 Mi characters in pages of
// about 8 KiB need far fewer).
const maxPages = 4096

// answer is what a case's retrieval delivered.
type answer struct {
	// refs are the refs returned: a search's first limit items, or every ref of a read.
	refs []string
	// matches are the refs and bf:// addresses expectations match: the evaluated brain's
	// plain refs, and every returned item's address.
	matches []string
	// text is what text fragments must be found in.
	text string
	// ranking holds, for each of up to Depth search results, what an expected ref may
	// match: its plain ref (evaluated brain only) and its address.
	ranking [][]string
	// problems and stale are the reply's (a search's last page).
	problems []reply.Problem
	stale    []string
}

// searchAnswer runs a search case to Depth results, following next_offset like a client;
// the case's results are the first limit of them.
func searchAnswer(ctx context.Context, req Request, c Case) (*answer, error) {
	name := req.Brains[0].Name
	var found []reply.Item
	var last *search.Reply
	var offset int64
	for {
		sr := search.Request{
			Query: c.Query, Scope: c.Scope, Limit: depth - len(found), Offset: offset,
			Brains: req.Brains, Problems: req.Problems, Now: req.Now, Location: req.Location,
		}
		var r *search.Reply
		var err error
		if c.Mode == modeFused {
			r, err = fuse.Run(ctx, fuse.Request{Search: sr, Dense: vector.Dense})
		} else {
			r, err = search.Run(ctx, sr)
		}
		if err != nil {
			return nil, err
		}
		last = r
		found = append(found, r.Items...)
		if len(found) >= depth || r.NextOffset == nil || len(r.Problems) > 0 || len(r.Stale) > 0 {
			break
		}
		offset = *r.NextOffset
	}
	a := &answer{problems: last.Problems, stale: last.Stale}
	var text []string
	for i, it := range found {
		own := it.Brain == "" || it.Brain == name
		addr := it.URI
		if addr == "" {
			addr = addressOf(name, it.Ref)
		}
		pair := []string{addr}
		if own {
			pair = []string{it.Ref, addr}
		}
		a.ranking = append(a.ranking, pair)
		if i < c.Limit {
			a.refs = append(a.refs, it.Ref)
			a.matches = append(a.matches, pair...)
			text = append(text, it.Title+"\n"+it.Excerpt)
		}
	}
	a.text = fold(strings.Join(text, "\n"))
	return a, nil
}

// readAnswer reads a read case's ref whole.
func readAnswer(ctx context.Context, req Request, r string) (*answer, error) {
	doc, err := readWhole(ctx, req, r)
	if err != nil {
		var nf *reply.NotFoundError
		if !errors.As(err, &nf) || strings.HasPrefix(nf.Msg, incompletePrefix) {
			return nil, err
		}
		// Nothing to read answers "is anything there?".
		doc = map[string]any{}
	}
	name := req.Brains[0].Name
	a := &answer{}
	var entries []map[string]any
	collectEntries(doc, &entries)
	for _, e := range entries {
		r := e["ref"].(string)
		b, _ := e["brain"].(string)
		a.refs = append(a.refs, r)
		if b == "" || b == name {
			a.matches = append(a.matches, r)
		}
	}
	var text []string
	collectStrings(doc, "", func(key, value string) {
		if key == "notice" {
			return
		}
		text = append(text, value)
		if key == "uri" {
			a.matches = append(a.matches, value)
		}
	})
	for _, e := range entries {
		b, _ := e["brain"].(string)
		if b == "" {
			b = name
		}
		a.matches = append(a.matches, addressOf(b, e["ref"].(string)))
	}
	a.text = fold(strings.Join(text, "\n"))
	if v, ok := doc["problems"]; ok {
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &a.problems); err != nil {
			return nil, err
		}
	}
	if v, ok := doc["stale"].([]any); ok {
		for _, s := range v {
			if s, ok := s.(string); ok {
				a.stale = append(a.stale, s)
			}
		}
	}
	return a, nil
}

// readWhole reads r and, when its text comes in pages, reads every page like a client:
// each page must name the first page's sha256. The assembled reply is the first page
// without its paging fields, holding the whole text.
func readWhole(ctx context.Context, req Request, r string) (map[string]any, error) {
	first, err := readPage(ctx, req, r, 0)
	if err != nil {
		return nil, err
	}
	if _, paged := first["total_characters"]; !paged {
		return first, nil
	}
	var text strings.Builder
	page := first
	for n := 0; ; n++ {
		text.WriteString(textOf(page))
		next, ok := page["next_offset"].(json.Number)
		if !ok {
			break
		}
		offset, err := next.Int64()
		if err != nil || n >= maxPages {
			return nil, errors.New(msgChanged)
		}
		if page, err = readPage(ctx, req, r, offset); err != nil {
			return nil, err
		}
		if page["sha256"] != first["sha256"] {
			return nil, errors.New(msgChanged)
		}
	}
	whole := map[string]any{}
	for k, v := range first {
		switch k {
		case "offset", "next_offset", "total_characters", "outline", "outline_truncated":
			continue
		}
		whole[k] = v
	}
	if rec, ok := whole["record"].(map[string]any); ok {
		copied := map[string]any{}
		for k, v := range rec {
			copied[k] = v
		}
		copied["text"] = text.String()
		whole["record"] = copied
	} else {
		whole["text"] = text.String()
	}
	return whole, nil
}

// textOf is a page's slice of text: a record's record.text, or text.
func textOf(page map[string]any) string {
	if rec, ok := page["record"].(map[string]any); ok {
		s, _ := rec["text"].(string)
		return s
	}
	s, _ := page["text"].(string)
	return s
}

// readPage reads one page of ref as bf read prints it, decoded into plain JSON values
// (numbers as json.Number). It is eval's only use of package read's answers.
func readPage(ctx context.Context, req Request, r string, offset int64) (map[string]any, error) {
	v, err := runRead(ctx, read.Request{
		Ref: r, Offset: offset, Brains: req.Brains, Problems: req.Problems,
		Now: req.Now, Location: req.Location,
	})
	if err != nil {
		return nil, err
	}
	return decode(v)
}

// decode turns a reply value into plain JSON values, keys as printed.
func decode(v any) (map[string]any, error) {
	b, err := reply.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return doc, nil
}

// collectEntries appends every object holding a string ref, the object itself before the
// objects it nests, keys in printed (sorted) order.
func collectEntries(v any, out *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["ref"].(string); ok {
			*out = append(*out, x)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			collectEntries(x[k], out)
		}
	case []any:
		for _, item := range x {
			collectEntries(item, out)
		}
	}
}

// collectStrings calls fn for every string value with the key holding it (list items
// inherit their list's key), in printed order.
func collectStrings(v any, key string, fn func(key, value string)) {
	switch x := v.(type) {
	case string:
		fn(key, x)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			collectStrings(x[k], k, fn)
		}
	case []any:
		for _, item := range x {
			collectStrings(item, key, fn)
		}
	}
}

// addressOf is the bf:// address of a ref of brain: a note section keeps its #section as
// the address's fragment, a record's id is escaped whole, and an address stays as it is.
func addressOf(brain, r string) string {
	if ref.IsAddress(r) {
		return canonical(r)
	}
	if _, ok := ref.ParseRecordRef(r); !ok {
		if i := strings.LastIndexByte(r, '#'); i >= 0 {
			return reply.SectionAddress(brain, r[:i], r[i+1:])
		}
	}
	return reply.Address(brain, r)
}

// canonical prints a bf:// address canonically, so two spellings of one address compare
// equal; other refs are compared as written.
func canonical(s string) string {
	if !ref.IsAddress(s) {
		return s
	}
	a, err := ref.ParseAddress(s)
	if err != nil {
		return s
	}
	return a.String()
}

// matchesAny reports whether an expected (or forbidden) ref matches one of candidates:
// the same ref or address, or, for a whole note (a note path or address without
// #section), one of its sections.
func matchesAny(expected string, candidates []string) bool {
	want := canonical(expected)
	whole := wholeNote(expected)
	for _, c := range candidates {
		c = canonical(c)
		if c == want {
			return true
		}
		if whole {
			if i := strings.LastIndexByte(c, '#'); i >= 0 && c[:i] == want {
				return true
			}
		}
	}
	return false
}

// wholeNote reports a ref naming a whole note: a Markdown path below an authored folder,
// plain or as a bf:// address, without a #section.
func wholeNote(s string) bool {
	if ref.IsAddress(s) {
		a, err := ref.ParseAddress(s)
		return err == nil && a.Fragment == "" && a.Kind() == ref.AddressPath && notePath(a.Path)
	}
	return !strings.Contains(s, "#") && notePath(s)
}

func notePath(p string) bool {
	return ref.UnderAuthored(p) && strings.HasSuffix(p, ".md")
}

var folder = sync.OnceValue(func() cases.Caser { return cases.Fold() })

// fold prepares text for case-insensitive literal matching (Unicode case folding).
func fold(s string) string { return folder().String(s) }

// containsFold reports whether folded text holds fragment, case-insensitively.
func containsFold(folded, fragment string) bool {
	return strings.Contains(folded, fold(fragment))
}

// runRead is read.Run; tests replace it to serve pages that change between reads.
var runRead = read.Run
