package reply

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/timestamp"
)

// titleLimit is the longest title preview, in characters; exact reads keep the whole title.
const titleLimit = 200

// Title returns a title preview of at most titleLimit characters. A longer title is cut to
// titleLimit-1 characters, back to its last space when that space is at least halfway in,
// trimmed of trailing white space and ended with "…".
func Title(s string) string {
	if utf8.RuneCountInString(s) <= titleLimit {
		return s
	}
	cut := s
	n := 0
	for i := range s {
		if n == titleLimit-1 {
			cut = s[:i]
			break
		}
		n++
	}
	if space := strings.LastIndexByte(cut, ' '); space >= 0 && utf8.RuneCountInString(cut[:space]) >= titleLimit/2 {
		cut = cut[:space]
	}
	return strings.TrimRightFunc(cut, IsSpace) + "…"
}

// Escape makes text safe to show on one line: control and format characters (ESC, BEL,
// line breaks, bidi overrides such as U+202E) are written as Go escapes, so nothing in a
// file name, a title or a message can move the cursor, ring, or hide and reorder text.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == unicode.ReplacementChar:
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			q := fmt.Sprintf("%+q", string(r))
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Collapse turns every run of white space into one space and trims the ends: the one-line
// form of excerpts.
func Collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, IsSpace), " ")
}

// IsSpace is white space for collapsing excerpts: Go's, plus the information separators
// U+001C–U+001F, which text from other tools uses as breaks.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// canonical is the stored instant form, YYYY-MM-DDTHH:MM:SS.ffffffZ.
var canonical = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$`)
})

// Local presents a stored canonical UTC instant with loc's offset (nil: the machine's),
// to the second, such as 2026-09-29T09:00:00+02:00. Any other value is returned as is.
func Local(s string, loc *time.Location) string {
	if !canonical().MatchString(s) {
		return s
	}
	t, err := time.Parse("2006-01-02T15:04:05.000000Z", s)
	if err != nil {
		return s
	}
	if loc == nil {
		loc = time.Local
	}
	return timestamp.Local(t, loc)
}
