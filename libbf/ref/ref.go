// Package ref parses and prints the ways bf names things: names, record refs, identities,
// bf:// addresses, note refs with fragments, periods and computed page paths.
//
// Everything here is a pure function of its input. Whether a ref names something that
// exists (a file, a folder, a source, an entity) is for callers that can look at a brain.
// Error texts name what was expected, never the rejected value, except for periods, whose
// text is a short ref the user typed.
package ref

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/timestamp"
)

// MaxLength bounds identities and bf:// addresses, in characters, so a hostile note or
// record cannot make every later comparison and index entry arbitrarily large.
const MaxLength = 8192

// ValidName reports whether s can name a brain, source, field or relation: a lowercase
// letter, then up to 63 lowercase letters, digits or hyphens. Names appear in paths and
// addresses, so they stay portable across file systems and need no escaping.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !isLower(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLower(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// ValidRoutineName reports whether s can name a routine: lowercase words of letters and
// digits joined by single hyphens, starting with a letter, at most 64 characters. Routine
// names become command-like words, so doubled or trailing hyphens are refused.
func ValidRoutineName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !isLower(s[0]) || s[len(s)-1] == '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '-' {
			if s[i-1] == '-' {
				return false
			}
			continue
		}
		if !isLower(c) && !isDigit(c) {
			return false
		}
	}
	return true
}

// RecordRef names one record: the source folder under memories/ and the record's id.
// Refs are case-sensitive and the id is an opaque key: it may hold '/', ':', '#' or a URL.
type RecordRef struct {
	Source, ID string
}

// ParseRecordRef reads the shape SOURCE:ID, splitting at the first ':'. It only checks the
// shape: a string like repo:github.com/x has it too, and only the caller, knowing the
// brain's sources, can tell a record ref from an opaque identity.
func ParseRecordRef(s string) (RecordRef, bool) {
	source, id, ok := strings.Cut(s, ":")
	if !ok || id == "" || !ValidName(source) {
		return RecordRef{}, false
	}
	return RecordRef{Source: source, ID: id}, true
}

// String prints the ref as bf read and replies show it, with the id as stored.
func (r RecordRef) String() string { return r.Source + ":" + r.ID }

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

// hasControl reports a C0 or C1 control character or DEL, which would let text rewrite a
// terminal line or a log entry.
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) {
			return true
		}
	}
	return false
}

// hasFormat reports an invisible Unicode format character (zero-width space and joiners,
// bidi overrides, byte order mark, soft hyphen): two identities that look equal must be equal.
func hasFormat(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

func tooLong(s string) bool {
	return len(s) > MaxLength && utf8.RuneCountInString(s) > MaxLength
}

// ValidActionFolder reports whether name fits an action folder, YYYY-MM-DD_topic: a real
// calendar date, then a topic of lowercase letters and digits in hyphen-joined words
// (routines write actions/YYYY-MM-DD_NAME/, and a random suffix such as -3f9a1c2e is fine).
func ValidActionFolder(name string) bool {
	day, topic, ok := strings.Cut(name, "_")
	if !ok || topic == "" || topic[0] == '-' || topic[len(topic)-1] == '-' || strings.Contains(topic, "--") {
		return false
	}
	if _, err := timestamp.ParseDay(day, time.UTC); err != nil {
		return false
	}
	for i := 0; i < len(topic); i++ {
		if c := topic[i]; c != '-' && !isLower(c) && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
