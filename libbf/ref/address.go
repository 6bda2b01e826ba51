package ref

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Address errors. ErrInvalidAddress states the whole rule, because a link author needs the
// fix, and quoting the link back would only repeat it.
var (
	ErrInvalidAddress = errors.New("invalid BF link; use bf://brain/path?rel=role#section, with rel as the only query, spaces and a literal % percent-encoded as %20 and %25, and without userinfo or traversal")
	errTagAddress     = errors.New("use a tag address without a section or relation: bf://brain/tags/label")
	ErrPercent        = errors.New("malformed percent encoding; write a literal % as %25")
)

// Address is a parsed bf://BRAIN/PATH[?rel=REL][#FRAGMENT]. Path and Fragment are
// percent-decoded and Path has no leading '/': the empty path is the brain's home page.
// HasFragment keeps a bare trailing '#' apart from no '#', so printing round-trips; an
// empty fragment still selects nothing (see Identity).
type Address struct {
	Brain, Path, Rel, Fragment string
	HasFragment                bool
}

// AddressKind says what a bf:// path can name without looking at the brain.
type AddressKind int

const (
	// AddressHome is bf://brain/, the brain's home page.
	AddressHome AddressKind = iota
	// AddressPage is a computed page: tasks, an authored root, tags/…, memories/… or a period.
	AddressPage
	// AddressRecord is SOURCE:ID in the first path segment.
	AddressRecord
	// AddressPath is any other path: a note, a folder or an entity. Only the brain can tell.
	AddressPath
)

// IsAddress reports whether s uses the bf scheme (in any letter case), and so must parse
// as an address: a malformed bf link is an error, never an opaque identity.
func IsAddress(s string) bool { return len(s) >= 3 && strings.EqualFold(s[:3], "bf:") }

// ParseAddress reads a bf:// address strictly. Everything that could make two spellings
// name different things, escape the brain or hide text is refused with ErrInvalidAddress;
// a tag page with a section or relation fails with errTagAddress.
//
// Record paths (SOURCE:ID) are opaque keys and skip the traversal checks. Any other path
// may end in one '/', as shell completion adds, and reads like the path without it.
// An empty query (a bare '?') is ignored.
func ParseAddress(s string) (Address, error) {
	if !IsAddress(s) || !utf8.ValidString(s) || tooLong(s) || !cleanRaw(s) {
		return Address{}, ErrInvalidAddress
	}
	rest, ok := strings.CutPrefix(s[3:], "//")
	if !ok {
		return Address{}, ErrInvalidAddress
	}
	var a Address
	var rawFragment string
	rest, rawFragment, a.HasFragment = strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	brain, rawPath, ok := strings.Cut(rest, "/")
	if !ok || !ValidName(brain) {
		return Address{}, ErrInvalidAddress
	}
	a.Brain = brain
	var err error
	if a.Path, err = unescape(rawPath); err != nil || hasControl(a.Path) {
		return Address{}, ErrInvalidAddress
	}
	if a.Fragment, err = unescape(rawFragment); err != nil || hasControl(a.Fragment) {
		return Address{}, ErrInvalidAddress
	}
	if query != "" {
		key, value, ok := strings.Cut(query, "=")
		if !ok || strings.Contains(value, "&") {
			return Address{}, ErrInvalidAddress
		}
		key, err1 := unescape(key)
		value, err2 := unescape(value)
		if err1 != nil || err2 != nil || key != "rel" || !ValidName(value) {
			return Address{}, ErrInvalidAddress
		}
		a.Rel = value
	}
	record := isRecordPath(a.Path)
	if !record && a.Path != "" {
		if len(a.Path) > 1 && strings.HasSuffix(a.Path, "/") {
			a.Path = a.Path[:len(a.Path)-1]
		}
		if !safePath(a.Path) {
			return Address{}, ErrInvalidAddress
		}
	}
	if !record {
		if strings.HasPrefix(a.Path, "tags/") && (a.Rel != "" || a.Fragment != "") {
			return Address{}, errTagAddress
		}
		if a.Fragment != "" && Reserved(a.Path) {
			return Address{}, ErrInvalidAddress
		}
	}
	// What bf prints must be readable again, and escaping can triple a path's length.
	if tooLong(a.String()) {
		return Address{}, ErrInvalidAddress
	}
	return a, nil
}

// String prints the canonical form: the path escaped keeping '/', '@' and ':', the
// fragment escaping everything but unreserved characters.
func (a Address) String() string {
	var b strings.Builder
	b.WriteString("bf://")
	b.WriteString(a.Brain)
	b.WriteByte('/')
	b.WriteString(EscapePath(a.Path))
	if a.Rel != "" {
		b.WriteString("?rel=")
		b.WriteString(a.Rel)
	}
	if a.HasFragment {
		b.WriteByte('#')
		b.WriteString(EscapeFragment(a.Fragment))
	}
	return b.String()
}

// Identity is the address as an identity and a link target: canonical, without the
// relation (which describes the link) and without an empty fragment (which selects nothing).
func (a Address) Identity() string {
	return Address{Brain: a.Brain, Path: a.Path, Fragment: a.Fragment, HasFragment: a.Fragment != ""}.String()
}

// Kind classifies the path by its shape.
func (a Address) Kind() AddressKind {
	switch {
	case a.Path == "":
		return AddressHome
	case isRecordPath(a.Path):
		return AddressRecord
	case Reserved(a.Path):
		return AddressPage
	}
	return AddressPath
}

// Record returns the record a record address names.
func (a Address) Record() (RecordRef, bool) { return ParseRecordRef(a.Path) }

// SplitFragment splits a note ref or relative link at its first '#', then percent-decodes
// both sides, so data%231.csv names the file data#1.csv. A bare trailing '#' gives
// hasFragment with an empty fragment: bf read refuses it, links ignore it.
func SplitFragment(s string) (path, fragment string, hasFragment bool, err error) {
	rawPath, rawFragment, hasFragment := strings.Cut(s, "#")
	if path, err = unescape(rawPath); err != nil {
		return "", "", false, err
	}
	if fragment, err = unescape(rawFragment); err != nil {
		return "", "", false, err
	}
	return path, fragment, hasFragment, nil
}

// EscapePath percent-encodes a brain path for an address, keeping '/', '@', ':' and the
// unreserved characters, so record ids stay readable while '#', '?', '%' and spaces are
// escaped.
func EscapePath(p string) string { return escape(p, "/@:") }

// EscapeFragment percent-encodes a section slug, keeping only unreserved characters.
func EscapeFragment(f string) string { return escape(f, "") }

func escape(s, keep string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !kept(s[i], keep) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if kept(c, keep) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

func kept(c byte, keep string) bool {
	return isLower(c) || isDigit(c) || (c >= 'A' && c <= 'Z') ||
		c == '-' || c == '.' || c == '_' || c == '~' || strings.IndexByte(keep, c) >= 0
}

// unescape decodes %XX strictly: every '%' starts two hex digits and the result is UTF-8.
// '+' stays '+'.
func unescape(s string) (string, error) {
	n := strings.Count(s, "%")
	if n == 0 {
		if !utf8.ValidString(s) {
			return "", ErrPercent
		}
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", ErrPercent
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	if !utf8.Valid(b) {
		return "", ErrPercent
	}
	return string(b), nil
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// cleanRaw refuses whitespace, control characters and a '%' that starts no escape.
func cleanRaw(s string) bool {
	for i, r := range s {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) {
			return false
		}
		if r == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return false
		}
	}
	return true
}

// isRecordPath reports a path whose first segment is SOURCE:ID.
func isRecordPath(p string) bool {
	_, ok := ParseRecordRef(p)
	return ok
}

// safePath refuses empty, '.' and '..' segments and backslashes, so a path never leaves
// the brain or names one file two ways.
func safePath(p string) bool {
	if strings.IndexByte(p, '\\') >= 0 {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
