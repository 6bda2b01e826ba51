package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/chunk"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// entry is everything one file adds to the cache.
type entry struct {
	item     itemRow
	passages []passageRow
	tasks    []taskRow
	names    []string
	links    []string
	tags     []string
	edges    []edgeRow
	// review is provenance.Unreviewed for an item no one confirmed, else "".
	review string
	// chunks are the item's chunks for the dense strategy, when embeddings are declared.
	chunks []chunk.Chunk
}

type itemRow struct {
	ref, path, kind, source, title, time, typ, status, lead, url, updated, observed string
	partial, tasksOpen, tasksDone                                                   int
	next                                                                            string
	weight                                                                          int
	staleAfter, fields                                                              string
}

// passageRow is one FTS row: display is passages.title; title, text, names and context are
// the FTS columns, before folding until foldPassages folds them (original then keeps the
// text column as written when folding changed it).
type passageRow struct {
	fragment, display           string
	title, text, names, context string
	original                    string
}

// foldPassages folds the FTS columns of e's passages, as the search table holds them: in
// the goroutine that parsed the file rather than in the one writing the cache.
func (e *entry) foldPassages() {
	for i := range e.passages {
		p := &e.passages[i]
		if text := foldText(p.text); text != p.text {
			p.original, p.text = p.text, text
		}
		p.title, p.names, p.context = foldText(p.title), foldText(p.names), foldText(p.context)
	}
}

type taskRow struct {
	line     int
	fragment string
	text     string
	done     bool
}

type edgeRow struct {
	subject, relation, target, origin string
}

// fileError is why a file was skipped; its text goes to files.error.
type fileError struct{ msg string }

func (e *fileError) Error() string { return e.msg }

func skip(format string, args ...any) error { return &fileError{fmt.Sprintf(format, args...)} }

// indexer turns file bytes into entries for one brain.
type indexer struct {
	name string
	cfg  *config.Config
	root string
	// ledgers holds each record source's ledger, read once per indexer: files are indexed
	// in parallel.
	mu      sync.Mutex
	ledgers map[string]provenance.Ledger
}

func newIndexer(b *brain.Brain) *indexer {
	cfg := b.Config
	if cfg == nil {
		cfg = &config.Config{Name: b.Name}
	}
	return &indexer{name: b.Name, cfg: cfg, root: b.Root, ledgers: map[string]provenance.Ledger{}}
}

// forgetLedgers drops the ledgers read so far.
func (ix *indexer) forgetLedgers() {
	ix.mu.Lock()
	clear(ix.ledgers)
	ix.mu.Unlock()
}

// ledger is the ledger of a record source folder. One that cannot be read confirms
// nothing: its records count as unconfirmed, never the other way round.
func (ix *indexer) ledger(source string) provenance.Ledger {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	l, ok := ix.ledgers[source]
	if !ok {
		var data []byte
		if ix.root != "" {
			data, _ = durable.ReadRegular(filepath.Join(ix.root, "memories", source, provenance.LedgerName), provenance.MaxLedgerBytes)
		}
		l = provenance.ParseLedger(data)
		ix.ledgers[source] = l
	}
	return l
}

// address is the canonical bf:// address of a brain path or record ref.
func (ix *indexer) address(p string) string {
	return ref.Address{Brain: ix.name, Path: p}.String()
}

// relation maps a ?rel= value to the relation stored in edges: cites, a declared relation,
// or ” (an undeclared or reserved relation stays an untyped link, so one wrong word never
// hides a note).
func (ix *indexer) relation(rel string) string {
	if rel == config.RelCites {
		return rel
	}
	if f := ix.cfg.Fields[rel]; f != nil && f.Relation {
		return rel
	}
	return ""
}

// uriTarget canonicalises a link written as a URI: a bf:// address without ?rel=, anything
// else as written. ok is false for a malformed bf:// link (validation reports it).
func uriTarget(s string) (target, rel string, ok bool) {
	if !ref.IsAddress(s) {
		return s, "", true
	}
	a, err := ref.ParseAddress(s)
	if err != nil {
		return "", "", false
	}
	return a.Identity(), a.Rel, true
}

// noteTarget canonicalises a note link: relative paths become brain-relative paths with their
// #fragment. ok is false for links that name nothing or leave the brain.
func noteTarget(notePath, dest string) (target, rel string, ok bool) {
	t, err := note.Resolve(notePath, dest)
	if err != nil {
		return "", "", false
	}
	switch t.Kind {
	case note.File:
		if t.HasFragment {
			return t.Path + "#" + t.Fragment, "", true
		}
		return t.Path, "", true
	case note.URI:
		return uriTarget(t.URI)
	}
	return "", "", false
}

// note indexes one Markdown note.
func (ix *indexer) note(path string, data []byte) (*entry, error) {
	kind := note.KindOf(path)
	n, err := note.Parse(path, data, kind)
	if err != nil {
		return nil, skip("%v", err)
	}
	if !n.Searchable() {
		msg := "invalid note: " + n.Problems[0].Error()
		if len(n.Problems) > 1 {
			msg += fmt.Sprintf(" (and %d more problems); run bf validate", len(n.Problems)-1)
		}
		return nil, skip("%s", msg)
	}
	own := ix.address(path)
	subject := own
	if n.Meta.Entity != "" {
		subject = n.Meta.Entity
	}
	e := &entry{}
	e.item = itemRow{
		ref: path, path: path, kind: KindNote, title: n.Title, typ: n.Type, status: n.Status,
		weight: 1, staleAfter: n.Meta.StaleAfter,
	}
	if kind == note.OKF {
		e.item.weight = 2
	}
	e.review = provenance.OfNote(n.Meta.Extra).State()
	if n.Updated != "" {
		e.item.time = n.Updated + "T00:00:00.000000Z"
	}

	// Links, sources and typed links, in the order written.
	var targets, linked []string
	seenTarget := map[string]bool{}
	addTarget := func(t string) {
		if !seenTarget[t] {
			seenTarget[t] = true
			targets = append(targets, t)
		}
	}
	for _, l := range n.Links {
		target, rel, ok := noteTarget(path, l.Target)
		if !ok {
			continue
		}
		relation := ix.relation(rel)
		if l.From == note.FromSources {
			relation = config.RelCites
		}
		if kind == note.Markdown && l.From != note.FromBody && l.From != note.FromFootnote {
			// Ordinary Markdown has no front matter links or sources; a typed link in its
			// body is a claim like any other, with the file as subject.
			relation = ""
		}
		origin := path
		if l.Section != "" {
			origin = path + "#" + l.Section
		}
		if !seenTarget[target] {
			linked = append(linked, target)
		}
		addTarget(target)
		e.edges = append(e.edges, edgeRow{subject, relation, target, origin})
	}

	// Declared fields: values for the names column, relation fields as typed claims.
	facts := map[string]any{}
	var fieldWords []string
	for _, name := range slices.Sorted(maps.Keys(n.Meta.Fields)) {
		f := ix.cfg.Fields[name]
		if f == nil {
			continue
		}
		v, err := f.Normalize(n.Meta.Fields[name])
		if err != nil {
			continue // validation reports it; an invalid value is no fact
		}
		facts[name] = v
		fieldWords = append(fieldWords, flatten(v)...)
		if f.Relation {
			for _, t := range flatten(v) {
				addTarget(t)
				e.edges = append(e.edges, edgeRow{subject, name, t, path})
			}
		}
	}
	e.item.fields = factsJSON(facts)

	// Tags: membership claims.
	for _, label := range n.Meta.Tags {
		tag := ix.address("tags/" + label)
		e.tags = append(e.tags, tag)
		e.edges = append(e.edges, edgeRow{subject, config.RelTaggedWith, tag, path})
	}

	e.names = append([]string{own}, n.Identities()...)
	e.links = targets

	// Passages: the whole note, then each section passage.
	whole := joinNonEmpty("\n\n", n.Summary, n.Intro)
	names := append([]string{n.Type}, n.Meta.Aliases...)
	names = append(names, linked...)
	names = append(names, fieldWords...)
	e.passages = append(e.passages, passageRow{
		display: n.Title, title: n.Title, text: whole,
		names: joinNonEmpty(" ", names...), context: strings.Join(n.Meta.Tags, " "),
	})
	var firstSection string
	for i := range n.Sections {
		s := &n.Sections[i]
		if !s.Passage {
			continue
		}
		if firstSection == "" {
			firstSection = s.Text
		}
		e.passages = append(e.passages, passageRow{
			fragment: s.Slug, display: n.DisplayTitle(s), title: s.Title, text: s.Text,
			context: joinNonEmpty(" ", append([]string{n.Title}, s.Parents...)...),
		})
	}

	if ix.cfg.Embeddings != nil {
		e.chunks = noteChunks(n, linked)
	}

	// Lead: summary, else introduction, else the first section.
	lead := plainText(n.Summary)
	if lead == "" {
		lead = plainText(n.Intro)
	}
	if lead == "" {
		lead = plainText(firstSection)
	}
	e.item.lead = clipRunes(lead, maxLead)

	// Tasks count only in entry notes that are not deprecated.
	if n.CountsTasks() {
		render := func(dest string) string {
			t, err := note.Resolve(path, dest)
			if err != nil || t.Kind != note.File {
				return dest
			}
			if t.HasFragment {
				return t.Path + "#" + t.Fragment
			}
			return t.Path
		}
		for _, t := range n.Tasks {
			e.tasks = append(e.tasks, taskRow{line: t.Line, fragment: t.Section, text: t.Render(render), done: t.Done})
			if t.Done {
				e.item.tasksDone++
				continue
			}
			if e.item.tasksOpen == 0 {
				e.item.next = t.Text
			}
			e.item.tasksOpen++
		}
	}
	return e, nil
}

// record indexes one record file of source.
func (ix *indexer) record(source, path string, data []byte) (*entry, error) {
	r, err := record.Parse(data)
	if err != nil {
		return nil, skip("invalid record: %v", err)
	}
	if record.CheckFileName(r, path) != nil {
		return nil, skip("record id does not match its SHA-256 filename; run bf validate and reconcile it")
	}
	rref := source + ":" + r.ID
	own := ix.address(rref)
	e := &entry{review: ix.ledger(source).OfRecord(record.FileName(r.ID), data).State()}
	e.item = itemRow{
		ref: rref, path: path, kind: KindRecord, source: source, title: r.Title, time: r.Time,
		url: r.URL, weight: 1, lead: collapseClip(r.Text, maxLead),
	}
	if t, ok := r.Updated(); ok {
		e.item.updated = timestamp.Canonical(t)
	}
	if t, ok := r.Observed(); ok {
		e.item.observed = timestamp.Canonical(t)
	}
	if r.Partial() {
		e.item.partial = 1
	}
	e.item.fields = factsJSON(r.Fields)

	var targets []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			targets = append(targets, t)
		}
	}
	for _, l := range r.Links {
		target, rel, ok := uriTarget(l)
		if !ok {
			continue
		}
		add(target)
		e.edges = append(e.edges, edgeRow{own, ix.relation(rel), target, rref})
	}
	var fieldWords []string
	for _, name := range slices.Sorted(maps.Keys(r.Fields)) {
		values := flatten(r.Fields[name])
		fieldWords = append(fieldWords, values...)
		if f := ix.cfg.Fields[name]; f != nil && f.Relation {
			for _, v := range values {
				t, err := ref.CanonicalIdentity(v)
				if err != nil {
					continue
				}
				add(t)
				e.edges = append(e.edges, edgeRow{own, name, t, rref})
			}
		}
	}
	e.names = append([]string{own}, r.Aliases...)
	e.links = targets

	names := append([]string{source}, r.Aliases...)
	names = append(names, r.Links...)
	names = append(names, r.URL)
	names = append(names, fieldWords...)
	e.passages = []passageRow{{display: r.Title, title: r.Title, text: r.Text, names: joinNonEmpty(" ", names...)}}
	if ix.cfg.Embeddings != nil {
		e.chunks = chunk.Cut(chunk.Where{Source: source, Title: r.Title, Date: r.Time}, "", r.Text)
	}
	return e, nil
}

// flatten prints a field value as the words it holds: lists flattened, nulls dropped.
func flatten(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return []string{v}
	case json.Number:
		return []string{v.String()}
	case bool:
		return []string{strconv.FormatBool(v)}
	case int:
		return []string{strconv.Itoa(v)}
	case int64:
		return []string{strconv.FormatInt(v, 10)}
	case float64:
		return []string{strconv.FormatFloat(v, 'g', -1, 64)}
	case *big.Int:
		return []string{v.String()}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, flatten(x)...)
		}
		return out
	case []string:
		return v
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, flatten(v[k])...)
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}

// factsJSON is the compact JSON of field values (keys sorted, no HTML escaping), or ”.
func factsJSON(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// clipError bounds a file error to 1 KiB of UTF-8, cut with "…".
func clipError(s string) string {
	const max = 1024
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// maxLinked bounds the linked entities a chunk's prefix names.
const maxLinked = 8

// noteChunks cuts a note into chunks: its summary and introduction, then each section
// passage, every chunk prefixed with the note's title, the heading path, type, linked
// entities and updated day.
func noteChunks(n *note.Note, linked []string) []chunk.Chunk {
	entities := append([]string{}, n.Meta.Aliases...)
	if n.Meta.Entity != "" {
		entities = append([]string{n.Meta.Entity}, entities...)
	}
	entities = append(entities, linked...)
	if len(entities) > maxLinked {
		entities = entities[:maxLinked]
	}
	w := chunk.Where{Title: n.Title, Type: n.Type, Entities: entities, Date: n.Updated}
	out := chunk.Cut(w, "", joinNonEmpty("\n\n", n.Summary, n.Intro))
	for i := range n.Sections {
		s := &n.Sections[i]
		if !s.Passage {
			continue
		}
		sw := w
		sw.Headings = append(append([]string{}, s.Parents...), s.Title)
		out = append(out, chunk.Cut(sw, s.Slug, s.Text)...)
	}
	return out
}
