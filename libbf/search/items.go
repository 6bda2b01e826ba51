package search

// Reading the items of scored passages and building the page of the word ranking
// (words.go): partitions, sections, records sharing a URL and the rows shown.

import (
	"cmp"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/jsontext"
)

func (w *wordSearch) find(id int64) *entry {
	i, ok := slices.BinarySearchFunc(w.entries, id, func(e entry, id int64) int { return cmp.Compare(e.id, id) })
	if !ok {
		return nil
	}
	return &w.entries[i]
}

// itemInfo is what a passage's item contributes to ranking.
type itemInfo struct {
	item                             int64
	fragment, ref, url, source, time string
	closed                           int
	weight                           int64
}

// timeOf is where an item sits in time, as timeExpr places it: a note's day at local
// midnight (substr(time, 1, 10) looked up in the days), else the record's time, else the
// time it was first observed.
func (w *wordSearch) timeOf(kind, t, observed string) string {
	if kind == "note" {
		return w.p.days.At(t[:runeOffset(t, 10)])
	}
	if t != "" {
		return t
	}
	return observed
}

// accept records the item of a scored passage.
func (w *wordSearch) accept(e *entry, it *itemInfo) {
	e.state = joined
	if float64(it.weight) > w.weight {
		w.unbounded = true
	}
	if it.fragment != "" && !e.tt {
		return
	}
	h := &hit{e: e, item: it.item, fragment: it.fragment, ref: it.ref, url: it.url, source: it.source,
		time: it.time, closed: it.closed, weight: it.weight}
	h.score = w.scoreOf(e, it.weight, it.source)
	e.hit = h
	pt := w.parts[h.key()]
	if pt == nil {
		pt = &partition{}
		w.parts[h.key()] = pt
	}
	pt.hits = append(pt.hits, h)
	if pt.best == nil || h.score > pt.best.score {
		pt.best = h
	}
}

// read reads the items of pending passages, best bound first, while one can still reach
// the page.
func (w *wordSearch) read() error {
	batch := max(2*min(w.limit, 1<<20), readBatch)
	for len(w.pending) > 0 {
		theta := w.theta()
		n := 0
		for n < len(w.pending) && int64(n) < batch && w.pending[n].bound >= theta {
			n++
		}
		if n == 0 {
			return nil
		}
		if err := w.join(w.pending[:n]); err != nil {
			return err
		}
		w.pending = w.pending[n:]
		batch *= 2
	}
	return nil
}

// join reads the items of scored passages.
func (w *wordSearch) join(list []*entry) error {
	defer w.timed(2)()
	w.stats.read += len(list)
	if w.joins == nil {
		st, err := w.p.tx.PrepareContext(w.ctx, joinSQL)
		if err != nil {
			return err
		}
		w.joins = st
	}
	rows, err := w.joins.QueryContext(w.ctx, idList(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var it itemInfo
		var kind, t, observed string
		if err := rows.Scan(&id, &it.item, &it.fragment, &it.ref, &it.url, &it.source, &it.closed, &kind, &t,
			&observed, &it.weight); err != nil {
			return err
		}
		it.time = w.timeOf(kind, t, observed)
		if e := w.find(id); e != nil && e.state == scored {
			w.accept(e, &it)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range list {
		if e.state == scored {
			e.state = rejected
		}
	}
	return nil
}

// page builds the rows of the page from the partitions that reach it.
func (w *wordSearch) page() ([]*row, error) {
	defer w.timed(3)()
	var all []*partition
	for _, pt := range w.parts {
		slices.SortFunc(pt.hits, byRank)
		all = append(all, pt)
	}
	// The partitions whose best passage reaches the limit-th best, ties kept.
	slices.SortFunc(all, func(a, b *partition) int {
		if c := cmp.Compare(a.hits[0].closed, b.hits[0].closed); c != 0 {
			return c
		}
		return cmp.Compare(b.hits[0].score, a.hits[0].score)
	})
	chosen := all
	if int64(len(all)) > w.limit {
		cut := all[w.limit-1].hits[0]
		n := int(w.limit)
		for n < len(all) && all[n].hits[0].closed == cut.closed && all[n].hits[0].score >= cut.score {
			n++
		}
		chosen = all[:n]
	}
	// A partition's best passage is listed, and for a URL every record of the best
	// passage's source.
	var top []*hit
	for _, pt := range chosen {
		lead := pt.hits[0]
		for i, h := range pt.hits {
			if i == 0 || (h.url != "" && h.source == lead.source) {
				top = append(top, h)
			}
		}
	}
	slices.SortFunc(top, byPage)
	if int64(len(top)) > w.limit {
		top = top[:w.limit]
	}
	sections, err := w.sections(top)
	if err != nil {
		return nil, err
	}
	also, err := w.also(top)
	if err != nil {
		return nil, err
	}
	return w.rows(top, also, sections)
}

// sections lists, for each note of the page, up to 3 other matching sections, best first.
// Its passages not scored yet are scored first: a section need not score well to be listed.
func (w *wordSearch) sections(top []*hit) (map[int64][]string, error) {
	notes := map[int64]*hit{}
	var items []string
	for _, h := range top {
		if h.url == "" {
			notes[h.item] = h
			items = append(items, strconv.FormatInt(h.item, 10))
		}
	}
	if len(notes) == 0 {
		return nil, nil
	}
	rows, err := w.p.tx.QueryContext(w.ctx, siblingsSQL, sql.Named("items", "["+strings.Join(items, ",")+"]"))
	if err != nil {
		return nil, err
	}
	type sibling struct {
		e        *entry
		item     int64
		fragment string
	}
	var siblings []sibling
	var unscoredList []*entry
	for rows.Next() {
		var s sibling
		var id int64
		if err := rows.Scan(&id, &s.item, &s.fragment); err != nil {
			rows.Close()
			return nil, err
		}
		if s.e = w.find(id); s.e == nil {
			continue // not a match
		}
		siblings = append(siblings, s)
		if s.e.state == unscored {
			unscoredList = append(unscoredList, s.e)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(unscoredList) > 0 {
		if err := w.scoreOnly(unscoredList); err != nil {
			return nil, err
		}
	}
	out := map[int64][]string{}
	for _, s := range siblings {
		if s.e.state != scored {
			continue // read already, or still unscored (not a match by BM25)
		}
		// The note's item is within the scope: its passages are.
		n := notes[s.item]
		w.accept(s.e, &itemInfo{item: n.item, fragment: s.fragment, ref: n.ref, url: n.url, source: n.source,
			time: n.time, closed: n.closed, weight: n.weight})
	}
	for item, n := range notes {
		pt := w.parts[partKey{item: item}]
		slices.SortFunc(pt.hits, byRank)
		var list []string
		for _, h := range pt.hits[1:] {
			if h.fragment != "" && len(list) < 3 {
				list = append(list, n.ref+"#"+h.fragment)
			}
		}
		if len(list) > 0 {
			out[item] = list
		}
	}
	return out, nil
}

// also lists, for each URL of the page, up to 5 refs of other sources' records sharing
// it, by ref.
func (w *wordSearch) also(top []*hit) (map[string][]string, error) {
	lead := map[string]string{}
	var urls, words, scans []string
	for _, h := range top {
		if h.url == "" || w.parts[h.key()].hits[0] != h {
			continue
		}
		lead[h.url] = h.source
		if word := urlWord(h.url); word != "" {
			urls = append(urls, h.url)
			words = append(words, `"`+word+`"`)
		} else {
			scans = append(scans, h.url)
		}
	}
	if len(lead) == 0 {
		return nil, nil
	}
	found := map[string]map[string]bool{}
	// unsure are records sharing a URL that are not entries: while the entries are only
	// some of the matches, they may match still.
	type shared struct{ url, ref string }
	unsure := map[int64]shared{}
	read := func(query string, args ...any) error {
		rows, err := w.p.tx.QueryContext(w.ctx, strings.NewReplacer(filters, scopeFilter(w.sc)).Replace(query),
			append(args, w.args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var url, ref, source string
			if err := rows.Scan(&url, &id, &ref, &source); err != nil {
				return err
			}
			if source == lead[url] {
				continue
			}
			if w.find(id) == nil {
				if w.partial {
					unsure[id] = shared{url, ref}
				}
				continue
			}
			if found[url] == nil {
				found[url] = map[string]bool{}
			}
			found[url][ref] = true
		}
		return rows.Err()
	}
	if len(urls) > 0 {
		if err := read(sharedSQL, sql.Named("words", "{names} : ("+strings.Join(words, " OR ")+")"),
			sql.Named("urls", jsontext.Array(urls))); err != nil {
			return nil, err
		}
	}
	for _, url := range scans {
		if err := read(sharedScanSQL, sql.Named("url", url)); err != nil {
			return nil, err
		}
	}
	if len(unsure) > 0 {
		ids := make([]int64, 0, len(unsure))
		for id := range unsure {
			ids = append(ids, id)
		}
		match, err := w.matching(ids)
		if err != nil {
			return nil, err
		}
		for id := range match {
			s := unsure[id]
			if found[s.url] == nil {
				found[s.url] = map[string]bool{}
			}
			found[s.url][s.ref] = true
		}
	}
	out := map[string][]string{}
	for url, refs := range found {
		list := make([]string, 0, len(refs))
		for ref := range refs {
			list = append(list, ref)
		}
		slices.Sort(list)
		out[url] = list[:min(len(list), 5)]
	}
	return out, nil
}

// urlWord is a word of an ASCII URL as the index holds it, or "" for a URL of other
// characters or without a word: its last word with a digit, else its last word, which
// usually names few records. The index holds ASCII words exactly as written (NFKC leaves
// ASCII alone); the tokenizer lowercases and stems both sides alike.
func urlWord(url string) string {
	var last, lastDigit string
	for i := 0; i < len(url); {
		if url[i] >= 0x80 {
			return ""
		}
		if !isASCIIWord(url[i]) {
			i++
			continue
		}
		j, digit := i, false
		for j < len(url) && isASCIIWord(url[j]) {
			digit = digit || ('0' <= url[j] && url[j] <= '9')
			j++
		}
		if j < len(url) && url[j] >= 0x80 {
			return ""
		}
		last = url[i:j]
		if digit {
			lastDigit = last
		}
		i = j
	}
	if lastDigit != "" {
		return lastDigit
	}
	return last
}

func isASCIIWord(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// rows reads what the page shows.
func (w *wordSearch) rows(top []*hit, also map[string][]string, sections map[int64][]string) ([]*row, error) {
	if len(top) == 0 {
		return nil, nil
	}
	list := make([]*entry, len(top))
	for i, h := range top {
		list[i] = h.e
	}
	rows, err := w.p.tx.QueryContext(w.ctx, pageSQL, sql.Named("ids", idList(list)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[int64]*row{}
	for rows.Next() {
		r := &row{part: w.p}
		var id int64
		var partial int
		var itemTitle string
		if err := rows.Scan(&id, &r.id, &r.ref, &r.path, &r.kind, &r.source, &r.stored, &r.typ, &r.status, &r.url,
			&r.updated, &r.observed, &partial, &r.fields, &itemTitle, &r.lead, &r.title); err != nil {
			return nil, err
		}
		r.partial = partial != 0
		byID[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*row, 0, len(top))
	for _, h := range top {
		r := byID[h.e.id]
		if r == nil {
			return nil, errors.New("a ranked passage vanished")
		}
		r.time, r.fragment, r.passage, r.score = h.time, h.fragment, h.e.id, h.score
		if h.url != "" && w.parts[h.key()].hits[0] == h {
			r.also = also[h.url]
		}
		if h.url == "" {
			r.sections = sections[h.item]
		}
		out = append(out, r)
	}
	return out, nil
}
