package search

import (
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Scope errors. None repeats the scope, except a period's, which names the period typed.
var (
	errScope = errors.New("scope takes a folder or a whole note (projects, projects/new-website.md), " +
		"a source with an optional period, undated records or a record file (memories/brief, memories/brief/7d, " +
		"memories/brief/undated, memories/brief/FILE), a period (today, 7d, 2026-09, 2026-09-21..2026-09-25), " +
		"an identity (repo:github.com/example/new-website) or a tag address (bf://NAME/tags/LABEL)")
	errScopeSection  = errors.New("scope takes a whole note without its #section; scope the note, then read the section")
	errScopeFragment = errors.New("a page has no sections; scope it without its #fragment")
	errScopePage     = errors.New("scope takes a page by its brain-relative form, such as projects or 7d, not its bf:// address")
)

// scope is one parsed search scope. The zero value searches everything.
type scope struct {
	// prefix limits items to a file or a folder (path = prefix or below prefix/).
	prefix string
	// source is the record source a memories/SOURCE… scope names.
	source string
	// period bounds event times to [since, until) (canonical UTC).
	period       bool
	since, until string
	// undated keeps only items without an event time.
	undated bool
	// target is an identity or, with tag, a tag address: items that are it or link to it,
	// or the tag's members.
	target string
	tag    bool
}

// collected reports whether the scope searches collected records, so replies describe
// source coverage: no scope, a period, an identity, a tag, or anything under memories.
func (s scope) collected() bool {
	return s.prefix == "" || s.memories()
}

// memories reports a scope under memories.
func (s scope) memories() bool {
	return s.prefix == "memories" || strings.HasPrefix(s.prefix, "memories/")
}

// parseScope reads one scope of bf search --scope.
func parseScope(value string, now time.Time, loc *time.Location) (scope, error) {
	value = strings.TrimFunc(value, unicode.IsSpace)
	if value == "" {
		return scope{}, nil
	}
	if identityShaped(value) || strings.HasPrefix(strings.ToLower(value), "bf:") {
		return identityScope(value)
	}
	path := value
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	if ref.IsPeriod(path) {
		p, err := ref.ParsePeriod(path, now, loc)
		if err != nil {
			return scope{}, err
		}
		return periodScope(scope{}, p), nil
	}
	if note, _, found := strings.Cut(path, "#"); found {
		if isNotePath(note) {
			return scope{}, errScopeSection
		}
		if _, ok, _ := ref.ParsePage(note); ok || ref.UnderAuthored(note) {
			return scope{}, errScopeFragment
		}
		return scope{}, errScope
	}
	if !cleanPath(path) {
		return scope{}, errScope
	}
	first, _, _ := strings.Cut(path, "/")
	switch {
	case ref.IsAuthoredRoot(first):
		return scope{prefix: path}, nil
	case first != "memories":
		return scope{}, errScope
	}
	page, ok, err := ref.ParsePage(path)
	if err != nil {
		if errors.Is(err, ref.ErrInvalidPeriod) {
			return scope{}, err
		}
		return scope{}, errScope
	}
	if !ok {
		return scope{}, errScope
	}
	sourcePrefix := "memories/" + page.Source
	switch page.Kind {
	case ref.PageMemories:
		return scope{prefix: "memories"}, nil
	case ref.PageSource:
		return scope{prefix: sourcePrefix, source: page.Source}, nil
	case ref.PageSourceUndated:
		return scope{prefix: sourcePrefix, source: page.Source, undated: true}, nil
	case ref.PageRecordFile:
		return scope{prefix: sourcePrefix + "/" + page.File, source: page.Source}, nil
	case ref.PageSourcePeriod:
		p, err := ref.ParsePeriod(page.Period, now, loc)
		if err != nil {
			return scope{}, err
		}
		return periodScope(scope{prefix: sourcePrefix, source: page.Source}, p), nil
	}
	return scope{}, errScope
}

func periodScope(s scope, p ref.Period) scope {
	s.period = true
	s.since = timestamp.Canonical(p.Start)
	s.until = timestamp.Canonical(p.End)
	return s
}

// identityScope reads an identity or a tag address. A page's address scopes nothing, so it
// is refused: its brain-relative form scopes every selected brain.
func identityScope(value string) (scope, error) {
	id, err := ref.CanonicalIdentity(value)
	if err != nil {
		return scope{}, err
	}
	if !ref.IsAddress(id) {
		return scope{target: id}, nil
	}
	a, err := ref.ParseAddress(id)
	if err != nil {
		return scope{}, err
	}
	if a.Kind() == ref.AddressHome || a.Kind() == ref.AddressPage {
		if page, ok, _ := ref.ParsePage(a.Path); ok && page.Kind == ref.PageTag {
			return scope{target: id, tag: true}, nil
		}
		if a.HasFragment {
			return scope{}, errScopeFragment
		}
		return scope{}, errScopePage
	}
	if a.Fragment != "" && a.Kind() == ref.AddressPath && isNotePath(a.Path) {
		return scope{}, errScopeSection
	}
	return scope{target: id}, nil
}

// isTagAddress reports a canonical identity that is a tag address, bf://NAME/tags/LABEL.
func isTagAddress(id string) bool {
	if !ref.IsAddress(id) {
		return false
	}
	a, err := ref.ParseAddress(id)
	if err != nil {
		return false
	}
	page, ok, _ := ref.ParsePage(a.Path)
	return ok && page.Kind == ref.PageTag && !a.HasFragment
}

// identityShaped reports a value that matches [a-z][a-z0-9+.-]*:\S+ in full.
func identityShaped(s string) bool {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || rest == "" || scheme[0] < 'a' || scheme[0] > 'z' {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	return strings.IndexFunc(rest, unicode.IsSpace) < 0
}

// isNotePath reports a path that names a note: a .md file below an authored root.
func isNotePath(p string) bool {
	return ref.UnderAuthored(p) && strings.HasSuffix(p, ".md")
}

// cleanPath reports a brain-relative path without empty, dot or dot-dot segments,
// backslashes or control characters.
func cleanPath(p string) bool {
	if p == "" || strings.ContainsAny(p, `\`) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// Scope is a parsed scope for other readers of the cache, such as bf export.
type Scope struct {
	Prefix, Source  string // path prefix (path = Prefix or below Prefix/) and record source
	Undated, Period bool   // only items without event time; only items placed in [Since, Until)
	Since, Until    string // canonical UTC bounds of Period
	Target          string // an identity, or with Tag a tag address
	Tag             bool
}

// ErrScopeSection is the reason a note scope with a #section is refused.
var ErrScopeSection = errScopeSection

// ParseScope reads one scope as bf search --scope does.
func ParseScope(value string, now time.Time, loc *time.Location) (Scope, error) {
	s, err := parseScope(value, now, loc)
	return Scope{Prefix: s.prefix, Source: s.source, Undated: s.undated, Period: s.period,
		Since: s.since, Until: s.until, Target: s.target, Tag: s.tag}, err
}
