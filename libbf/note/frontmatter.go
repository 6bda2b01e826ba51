package note

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
	"github.com/bfgo/bf/libbf/yamlx"
)

// Limits on front matter values.
const (
	maxTitle    = 4096 // characters; a longer title gives way to the H1 or file name
	MaxWord     = 128  // characters of type and status
	MaxItems    = 1000 // tags, aliases and links each
	maxIdentity = 8192 // characters of entity and resource
)

// FrontMatter holds the keys of a note's YAML block, each checked for its type.
//
// A key whose value is invalid is left at its zero value and reported as a problem,
// so nothing downstream ever sees a half-valid value. For ordinary Markdown only
// title, type, status, updated, summary and description are read: a copied
// document cannot claim identities, tags or relations.
type FrontMatter struct {
	// Keys lists every top-level key written, sorted, including ignored and unknown ones:
	// index.md and log.md rules are about keys, not values.
	Keys []string

	Type, Status, Title  string
	Updated              string // YYYY-MM-DD, a real day
	StaleAfter           string // canonical UTC instant (timestamp.Canonical)
	Summary, Description string
	Tags                 []string // validated labels, first order kept, duplicates dropped
	Aliases              []string // canonical identities, sorted, duplicates dropped
	Entity               string   // canonical bf:// identity
	Resource             string   // as written
	Links                []string // as written, sorted, duplicates dropped
	Sources              []Source
	Verified             []map[string]any
	// Fields keeps declared field values raw: only bf.yaml knows their types.
	Fields     map[string]any
	OKFVersion string
	// Extra keeps keys the format does not define, so validation can spot a declared
	// field written at the top level instead of under fields:.
	Extra map[string]any
}

// Has reports whether key was written at the top level (whatever its value).
func (f *FrontMatter) Has(key string) bool {
	_, ok := slices.BinarySearch(f.Keys, key)
	return ok
}

// Source is one OKF provenance entry: a cites claim from the note to Resource.
type Source struct {
	Resource string
	Raw      map[string]any // the whole entry, for replies that show it
}

// Messages shared with bf validate; their wording is part of the contract.
const (
	msgSources  = "OKF sources require mappings with a nonempty resource string"
	msgVerified = "OKF verification events require by and at"
)

var knownKeys = map[string]bool{
	"type": true, "status": true, "title": true, "updated": true, "stale_after": true,
	"summary": true, "description": true, "tags": true, "aliases": true, "entity": true,
	"resource": true, "links": true, "sources": true, "verified": true, "fields": true,
	"okf_version": true,
}

// block is where the front matter sits in the file.
type block struct {
	found  bool // the first line is exactly ---
	closed bool // a later line is exactly ---
	end    int  // 1-based line of the closing --- (0 when not closed)
}

// findBlock locates the front matter block: the first line, without its ending, is
// exactly "---" and the block ends at the next line that is exactly "---". Nothing else
// opens or closes it, so "--- " or "----" leave the file without front matter.
func findBlock(lines []string) block {
	if len(lines) == 0 || lines[0] != "---" {
		return block{}
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == "---" {
			return block{found: true, closed: true, end: i + 1}
		}
	}
	return block{found: true}
}

// decoder collects the problems of one front matter block. invalid problems make the
// note unsearchable; soft ones leave it searchable (the value is just not used).
type decoder struct {
	kind    Kind
	invalid []Problem
	soft    []Problem
}

func (d *decoder) fail(field, format string, args ...any) {
	p := Problem{Field: field, Message: fmt.Sprintf(format, args...)}
	if d.kind == Markdown {
		// An ordinary document only loses the bad value: it was copied, not authored.
		d.soft = append(d.soft, p)
		return
	}
	d.invalid = append(d.invalid, p)
}

// yamlLineRE finds the YAML-relative line in a yamlx syntax message so it can be
// restated as a file line.
var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// parseFrontMatter parses the YAML between the fences. A syntax error or a document that
// is not a mapping makes the whole block ignored (the file is searched without it);
// that is reported as a soft problem.
func parseFrontMatter(yaml string, kind Kind) (FrontMatter, []Problem, []Problem) {
	var fm FrontMatter
	v, err := yamlx.Parse("", []byte(yaml))
	if err != nil {
		p := Problem{Field: "frontmatter", Message: err.Error()}
		var ye *yamlx.Error
		if errors.As(err, &ye) {
			// Lines are restated in file terms: the block starts on line 2.
			p.Message = yamlLineRE().ReplaceAllStringFunc(ye.Reason, func(m string) string {
				n, _ := strconv.Atoi(m[len("line "):])
				return "line " + strconv.Itoa(n+1)
			})
			if ye.Path != "" {
				p.Message = ye.Path + ": " + p.Message
			}
			if ye.Line > 0 {
				p.Line = ye.Line + 1
			}
		}
		return fm, nil, []Problem{p}
	}
	if v == nil {
		return fm, nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fm, nil, []Problem{{Field: "frontmatter", Message: "expected a YAML mapping"}}
	}
	d := decoder{kind: kind}
	fm.Keys = slices.Sorted(maps.Keys(m))
	for _, k := range fm.Keys {
		if !knownKeys[k] {
			if fm.Extra == nil {
				fm.Extra = map[string]any{}
			}
			fm.Extra[k] = m[k]
		}
	}
	fm.Type = d.word(m, "type")
	fm.Status = d.word(m, "status")
	fm.Title = d.str(m, "title")
	fm.Summary = d.str(m, "summary")
	fm.Description = d.str(m, "description")
	if s := d.str(m, "updated"); s != "" {
		if _, err := timestamp.ParseDay(s, time.UTC); err != nil {
			d.fail("updated", "%s", err)
		} else {
			fm.Updated = s
		}
	}
	if kind == Markdown {
		return fm, d.invalid, d.soft
	}
	if s := d.str(m, "stale_after"); s != "" {
		if c, err := timestamp.Normalize(s); err != nil {
			d.fail("stale_after", "%s", err)
		} else {
			fm.StaleAfter = c
		}
	}
	fm.Tags = d.tags(m)
	fm.Aliases = d.aliases(m)
	if s := d.str(m, "entity"); s != "" {
		fm.Entity = d.entity(s)
	}
	if s := d.str(m, "resource"); s != "" && d.resource(s) {
		fm.Resource = s
	}
	fm.Links = d.links(m)
	fm.Sources = d.sources(m)
	fm.Verified = d.verified(m)
	if v, ok := m["fields"]; ok && v != nil {
		if f, ok := v.(map[string]any); ok {
			fm.Fields = f
		} else {
			d.fail("fields", "expected a mapping")
		}
	}
	fm.OKFVersion = d.str(m, "okf_version")
	return fm, d.invalid, d.soft
}

// str reads an optional string. A YAML null counts as absent.
func (d *decoder) str(m map[string]any, key string) string {
	v, ok := m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(key, "expected a string")
		return ""
	}
	return s
}

func (d *decoder) word(m map[string]any, key string) string {
	s := d.str(m, key)
	if utf8.RuneCountInString(s) > MaxWord {
		d.fail(key, "expected at most %d characters", MaxWord)
		return ""
	}
	return s
}

// list reads an optional list of at most MaxItems items.
func (d *decoder) list(m map[string]any, key string) []any {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.fail(key, "expected a list")
		return nil
	}
	if len(l) > MaxItems {
		d.fail(key, "expected at most %d items", MaxItems)
		return nil
	}
	return l
}

// tags turns numbers into text, as YAML writes a year tag (2026) as a number, and
// refuses booleans, which are never what the author meant.
func (d *decoder) tags(m map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	for i, item := range d.list(m, "tags") {
		field := yamlx.Join("tags", i)
		s, ok := numberText(item)
		if !ok {
			d.fail(field, "expected text or a number")
			return nil
		}
		if err := ref.ValidTag(s); err != nil {
			d.fail(field, "%s", err)
			return nil
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (d *decoder) aliases(m map[string]any) []string {
	var out []string
	for i, item := range d.list(m, "aliases") {
		field := yamlx.Join("aliases", i)
		s, ok := item.(string)
		if !ok {
			d.fail(field, "expected a string")
			return nil
		}
		c, ok := d.canonical(field, s)
		if !ok {
			return nil
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonical checks an alias-like identity: the grammar, and for a bf:// address the shape
// rules that need no brain (no section, not a page, record or home address). Whether a
// bf:// identity is in the note's own brain is for the caller, who knows the brain.
func (d *decoder) canonical(field, s string) (string, bool) {
	c, err := ref.CanonicalIdentity(s)
	if err != nil {
		d.fail(field, "%s", err)
		return "", false
	}
	if ref.IsAddress(c) {
		a, _ := ref.ParseAddress(c)
		if a.HasFragment {
			d.fail(field, "an identity names a whole subject, not a #section")
			return "", false
		}
		if a.Kind() != ref.AddressPath {
			d.fail(field, "an identity cannot be a page, record or home address")
			return "", false
		}
	}
	return c, true
}

// entity must be a bf:// address: it names the subject in the brain's own namespace.
func (d *decoder) entity(s string) string {
	if utf8.RuneCountInString(s) > maxIdentity {
		d.fail("entity", "expected at most %d characters", maxIdentity)
		return ""
	}
	if !ref.IsAddress(s) {
		d.fail("entity", "expected a bf:// address")
		return ""
	}
	c, _ := d.canonical("entity", s)
	return c
}

// resource accepts any URI text up to maxIdentity characters, but a bf:// value must be a
// valid identity, since a malformed bf:// resource makes the note invalid.
func (d *decoder) resource(s string) bool {
	if utf8.RuneCountInString(s) > maxIdentity {
		d.fail("resource", "expected at most %d characters", maxIdentity)
		return false
	}
	if ref.IsAddress(s) {
		_, ok := d.canonical("resource", s)
		return ok
	}
	return true
}

func (d *decoder) links(m map[string]any) []string {
	var out []string
	for i, item := range d.list(m, "links") {
		s, ok := item.(string)
		if !ok || strings.TrimSpace(s) == "" {
			d.fail(yamlx.Join("links", i), "expected a nonempty string")
			return nil
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (d *decoder) sources(m map[string]any) []Source {
	v, ok := m["sources"]
	if !ok || v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.fail("sources", msgSources)
		return nil
	}
	var out []Source
	for i, item := range l {
		e, ok := item.(map[string]any)
		r, _ := e["resource"].(string)
		if !ok || strings.TrimSpace(r) == "" {
			d.fail(yamlx.Join("sources", i), msgSources)
			return nil
		}
		out = append(out, Source{Resource: r, Raw: e})
	}
	return out
}

func (d *decoder) verified(m map[string]any) []map[string]any {
	v, ok := m["verified"]
	if !ok || v == nil {
		return nil
	}
	var items []any
	switch t := v.(type) {
	case map[string]any:
		items = []any{t}
	case []any:
		items = t
	default:
		d.fail("verified", msgVerified)
		return nil
	}
	var out []map[string]any
	for _, item := range items {
		e, ok := item.(map[string]any)
		if !ok || !truthy(e["by"]) || !truthy(e["at"]) {
			d.fail("verified", msgVerified)
			return nil
		}
		out = append(out, e)
	}
	return out
}

// truthy reports whether a verified entry's `by` or `at` holds something: null, false,
// zero, an empty string, an empty list and an empty mapping do not; any other value does.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case int64:
		return t != 0
	case float64:
		return t != 0
	case *big.Int:
		return t.Sign() != 0
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// numberText gives text for a tag: strings as written, integers in decimal, floats as
// pyFloat prints them, nothing for booleans and containers.
func numberText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case int64:
		return strconv.FormatInt(t, 10), true
	case *big.Int:
		return t.String(), true
	case float64:
		return pyFloat(t), true
	}
	return "", false
}

// pyFloat prints f in its shortest round-trip digits: fixed notation, with a trailing .0
// for whole numbers, for decimal exponents in [-4, 16), otherwise scientific with a signed
// exponent of at least two digits (1e+16, 1e-05); nan, inf and -inf for the rest.
// A number tag thus gives the same label as in other tools that use this convention.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// canonicalResource is the identity a resource adds to its note, when it has the
// identity shape (scheme:value).
func canonicalResource(r string) (string, error) {
	return ref.CanonicalIdentity(r)
}
