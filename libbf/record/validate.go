package record

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Reasons given by Validate.
const (
	reasonString         = "must be a string"
	reasonControl        = "must not contain control characters"
	reasonBlank          = "must not be blank"
	reasonIDLength       = "must be 1-4,096 characters"
	reasonIDEscaped      = "must fit 7,988 characters once percent-encoded for a bf:// address"
	reasonTitleLength    = "must be 1-4,096 characters"
	reasonTextLength     = "must be at most 4,194,304 characters"
	reasonURLLength      = "must be at most 8,192 characters"
	reasonLinks          = "must hold at most 1,000 links"
	reasonLinkLength     = "must be at most 8,192 characters"
	reasonAliases        = "must hold at most 1,000 aliases"
	reasonAlias          = "aliases must be namespaced identities"
	reasonFieldNames     = "must hold at most 1,000 names"
	reasonFieldName      = "field names must start with a lowercase letter and hold at most 64 lowercase letters, digits and hyphens"
	reasonUpdated        = "attributes.updated requires a timestamp string"
	reasonObserved       = "attributes.observed requires a timestamp string"
	reasonPartial        = "attributes.partial requires a boolean"
	reasonEnvelope       = "fields other than text exceed 2 MiB; keep bulky content in text"
	reasonNotJSON        = "holds a value that JSON cannot represent"
	reasonNumber         = "holds a number that is not a finite JSON number"
	reasonNestedUnicode  = "holds a string or key that is not valid Unicode"
	reasonEncodedTooLong = "record file would exceed 16 MiB"
)

// Validate checks r against every rule of the record format and normalises it in place:
// Time and attributes.updated/observed become canonical UTC, bf:// aliases take their
// canonical spelling, and Links and Aliases are sorted and deduplicated into new slices.
// The first broken rule is returned as a *fieldError.
//
// Validate replaces values in r.Attributes (the reserved times), so a caller sharing that
// map sees them normalised. It is idempotent.
func (r *Record) Validate() error {
	if err := checkID(r.ID); err != nil {
		return err
	}
	if err := checkLine("title", r.Title, maxTitleLength, reasonTitleLength); err != nil {
		return err
	}
	if !utf8.ValidString(r.Text) {
		return &fieldError{"text", reasonUnicode}
	}
	if utf8.RuneCountInString(r.Text) > maxTextLength {
		return &fieldError{"text", reasonTextLength}
	}
	if r.Time != "" {
		t, err := timestamp.Normalize(r.Time)
		if err != nil {
			return &fieldError{"time", err.Error()}
		}
		r.Time = t
	}
	if r.URL != "" {
		switch {
		case !utf8.ValidString(r.URL):
			return &fieldError{"url", reasonUnicode}
		case utf8.RuneCountInString(r.URL) > maxURLLength:
			return &fieldError{"url", reasonURLLength}
		case hasControl(r.URL):
			return &fieldError{"url", reasonControl}
		}
	}
	if err := r.checkLinks(); err != nil {
		return err
	}
	if err := r.checkAliases(); err != nil {
		return err
	}
	if err := r.checkAttributes(); err != nil {
		return err
	}
	if err := r.checkFields(); err != nil {
		return err
	}
	if r.envelopeSize() > maxEnvelopeSize {
		return &fieldError{Reason: reasonEnvelope}
	}
	return nil
}

func checkID(id string) error {
	if err := checkLine("id", id, maxIDLength, reasonIDLength); err != nil {
		return err
	}
	if len(ref.EscapePath(id)) > maxIDEscapedLength { // the escaped form is ASCII
		return &fieldError{"id", reasonIDEscaped}
	}
	return nil
}

// checkLine applies the rules of id and title: 1-maxLength characters, not blank, no controls.
func checkLine(field, s string, maxLength int, lengthReason string) error {
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return &fieldError{field, reasonUnicode}
	case n < 1 || n > maxLength:
		return &fieldError{field, lengthReason}
	case blank(s):
		return &fieldError{field, reasonBlank}
	case hasControl(s):
		return &fieldError{field, reasonControl}
	}
	return nil
}

func (r *Record) checkLinks() error {
	if len(r.Links) > maxLinks {
		return &fieldError{"links", reasonLinks}
	}
	for i, l := range r.Links {
		field := "links." + strconv.Itoa(i)
		switch {
		case !utf8.ValidString(l):
			return &fieldError{field, reasonUnicode}
		case utf8.RuneCountInString(l) > maxLinkLength:
			return &fieldError{field, reasonLinkLength}
		case blank(l):
			return &fieldError{field, reasonBlank}
		case hasControl(l):
			return &fieldError{field, reasonControl}
		}
	}
	r.Links = sortedUnique(r.Links)
	return nil
}

func (r *Record) checkAliases() error {
	if len(r.Aliases) > maxAliases {
		return &fieldError{"aliases", reasonAliases}
	}
	out := make([]string, len(r.Aliases))
	for i, a := range r.Aliases {
		field := "aliases." + strconv.Itoa(i)
		if !utf8.ValidString(a) {
			return &fieldError{field, reasonUnicode}
		}
		c, err := ref.CanonicalIdentity(a)
		if err != nil {
			return &fieldError{field, reasonAlias}
		}
		out[i] = c
	}
	r.Aliases = sortedUnique(out)
	return nil
}

func (r *Record) checkAttributes() error {
	for _, k := range slices.Sorted(maps.Keys(r.Attributes)) {
		if !utf8.ValidString(k) {
			return &fieldError{"attributes", reasonNestedUnicode}
		}
		if reason := checkValue(r.Attributes[k], 3); reason != "" {
			return &fieldError{"attributes", reason}
		}
	}
	for _, k := range []string{AttrUpdated, AttrObserved} {
		v, ok := r.Attributes[k]
		if !ok {
			continue
		}
		field, reason := "attributes."+k, reasonUpdated
		if k == AttrObserved {
			reason = reasonObserved
		}
		s, isStr := v.(string)
		if !isStr {
			return &fieldError{field, reason}
		}
		if s == "" && k == AttrUpdated {
			continue // an explicitly unknown modification time
		}
		t, err := timestamp.Normalize(s)
		if err != nil {
			return &fieldError{field, err.Error()}
		}
		if t != s {
			r.Attributes[k] = t
		}
	}
	if v, ok := r.Attributes[attrPartial]; ok {
		if _, isBool := v.(bool); !isBool {
			return &fieldError{"attributes." + attrPartial, reasonPartial}
		}
	}
	return nil
}

func (r *Record) checkFields() error {
	if len(r.Fields) > maxFieldNames {
		return &fieldError{"fields", reasonFieldNames}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Fields)) {
		if !ref.ValidName(name) {
			return &fieldError{"fields", reasonFieldName}
		}
		if reason := checkValue(r.Fields[name], 3); reason != "" {
			return &fieldError{"fields." + name, reason}
		}
	}
	return nil
}

// checkValue reports why v, found at nesting level depth, cannot be stored, or "".
func checkValue(v any, depth int) string {
	switch v := v.(type) {
	case nil, bool, int, int64:
		return ""
	case string:
		if !utf8.ValidString(v) {
			return reasonNestedUnicode
		}
	case json.Number:
		if !validNumber(string(v)) || !finite(string(v)) {
			return reasonNumber
		}
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return reasonNumber
		}
	case []string:
		if depth > maxDepth {
			return reasonTooDeep
		}
		for _, s := range v {
			if !utf8.ValidString(s) {
				return reasonNestedUnicode
			}
		}
	case []any:
		if depth > maxDepth {
			return reasonTooDeep
		}
		for _, item := range v {
			if reason := checkValue(item, depth+1); reason != "" {
				return reason
			}
		}
	case map[string]any:
		if depth > maxDepth {
			return reasonTooDeep
		}
		for k, item := range v {
			if !utf8.ValidString(k) {
				return reasonNestedUnicode
			}
			if reason := checkValue(item, depth+1); reason != "" {
				return reason
			}
		}
	default:
		return reasonNotJSON
	}
	return ""
}

// envelopeSize counts what the 2 MiB rule covers, in UTF-8 bytes: id, title, url, every
// link and alias, and the compact JSON of attributes and fields.
func (r *Record) envelopeSize() int {
	n := len(r.ID) + len(r.Title) + len(r.URL)
	for _, l := range r.Links {
		n += len(l)
	}
	for _, a := range r.Aliases {
		n += len(a)
	}
	n += len(appendObject(nil, r.Attributes))
	n += len(appendObject(nil, r.Fields))
	return n
}

// hasControl reports a C0 or C1 control character (Unicode category Cc, DEL included).
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
