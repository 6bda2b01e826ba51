// Package record holds the model of a brain's records: the JSON files sensors collect into
// memories/SOURCE/<sha256 of id>.json.
//
// Parse reads one record strictly (unknown or duplicate keys, invalid Unicode and trailing
// data are refused), Validate checks every limit and normalises times, links and aliases,
// Canonical prints the one byte form bf writes, and FileName names the file that holds a
// record. Errors are *fieldError values that name the field and never quote its value.
package record

import (
	"time"

	"github.com/bfgo/bf/libbf/timestamp"
)

// Limits of the record format. Sizes are bytes; lengths are Unicode characters (code points).
const (
	MaxFileSize          = 16 << 20  // a record file, as stored
	MaxEntriesPerSource  = 100_000   // entries in one memories/SOURCE folder
	warnEntriesPerSource = 80_000    // entries in one source folder that deserve a warning
	maxEnvelopeSize      = 2 << 20   // UTF-8 bytes of every field but text (see Validate)
	maxIDLength          = 4096      // id characters
	maxIDEscapedLength   = 7988      // id characters once percent-encoded for a bf:// address
	maxTitleLength       = 4096      // title characters
	maxTextLength        = 4_194_304 // text characters
	maxURLLength         = 8192      // url characters
	maxLinks             = 1000      // links per record
	maxLinkLength        = 8192      // characters per link
	maxAliases           = 1000      // aliases per record
	maxFieldNames        = 1000      // names in fields
	maxDepth             = 1000      // JSON nesting, the record object being level 1
)

// Reserved attribute keys.
const (
	AttrUpdated  = "updated"  // upstream modification time: a timestamp string, or ""
	AttrObserved = "observed" // when bf first collected this revision: a timestamp string
	attrPartial  = "partial"  // true when text is deliberately incomplete
)

// Record is one stored record. Empty strings, empty lists and empty maps mean absent.
//
// Attributes and Fields hold JSON values as Parse decodes them: nil, bool, string,
// json.Number (kept exactly as written, so large numbers lose nothing), []any and
// map[string]any. Code that builds records may also use int, int64, float64 and []string.
type Record struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	Text       string         `json:"text,omitempty"`
	Time       string         `json:"time,omitempty"` // canonical UTC after Validate
	URL        string         `json:"url,omitempty"`
	Links      []string       `json:"links,omitempty"`   // sorted and unique after Validate
	Aliases    []string       `json:"aliases,omitempty"` // sorted and unique after Validate
	Attributes map[string]any `json:"attributes,omitempty"`
	Fields     map[string]any `json:"fields,omitempty"`
}

// fieldError says which field of a record is wrong and why, never quoting the value.
// Field is a dotted path such as "title", "links.3" or "attributes.updated"; it is empty
// when the error concerns the whole document.
type fieldError struct {
	Field  string
	Reason string
}

// Error prints "FIELD: REASON", or REASON alone when there is no field or when the reason
// already starts with the field's path ("attributes.partial requires a boolean").
func (e *fieldError) Error() string {
	if e.Field == "" || len(e.Reason) > len(e.Field) && e.Reason[:len(e.Field)+1] == e.Field+" " {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// EventTime returns the record's event time; false when it is undated.
func (r Record) EventTime() (time.Time, bool) { return instant(r.Time) }

// Updated returns attributes.updated, the upstream modification time, when set.
func (r Record) Updated() (time.Time, bool) { return r.attrTime(AttrUpdated) }

// Observed returns attributes.observed, when bf first collected this revision, when set.
func (r Record) Observed() (time.Time, bool) { return r.attrTime(AttrObserved) }

// Partial reports attributes.partial: the text is deliberately incomplete.
func (r Record) Partial() bool {
	p, _ := r.Attributes[attrPartial].(bool)
	return p
}

func (r Record) attrTime(key string) (time.Time, bool) {
	s, _ := r.Attributes[key].(string)
	return instant(s)
}

func instant(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := timestamp.Parse(s)
	return t, err == nil
}
