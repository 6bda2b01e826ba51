// Decoding of the validate section: required metadata, link targets and their patterns.

package config

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/yamlx"
)

func (d *decoder) validate(top map[string]any) error {
	v := d.c.Validate
	if v == nil {
		return nil
	}
	r := child(top, "validate")
	if set(r, "index_note") && (!markdownPath(v.IndexNote) || utf8.RuneCountInString(v.IndexNote) > maxIndexNoteChars) {
		return d.fail("validate.index_note", markdownPathRule)
	}
	for i, s := range v.RequiredStatus {
		if !slices.Contains(statuses, s) {
			return d.fail(yamlx.Join("validate.required_status", i), "expected %s", orList(statuses))
		}
		if slices.Contains(v.RequiredStatus[:i], s) {
			return d.fail(yamlx.Join("validate.required_status", i), "duplicate status")
		}
	}
	if len(v.RequiredStatus) == 0 {
		v.RequiredStatus = nil
	}
	if len(v.ForbidPatterns) > maxForbidPatterns {
		return d.fail("validate.forbid_patterns", "expected at most %d patterns", maxForbidPatterns)
	}
	for i, pat := range v.ForbidPatterns {
		if pat == "" || utf8.RuneCountInString(pat) > maxPatternChars {
			return d.fail(yamlx.Join("validate.forbid_patterns", i), "expected 1-4096 characters")
		}
		if _, err := regexp.Compile(pat); err != nil {
			// The compiler's message quotes the pattern: keep only the verdict.
			return d.fail(yamlx.Join("validate.forbid_patterns", i), "invalid regular expression (Go RE2 syntax)")
		}
	}
	if len(v.ForbidPatterns) == 0 {
		v.ForbidPatterns = nil
	}
	return nil
}

// validPointer implements ^/(?:[^~]|~[01])*$ with at most 4096 characters.
func validPointer(s string) bool {
	if !strings.HasPrefix(s, "/") || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxPointer {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

// validTarget implements ^[a-z][a-z0-9+.-]*:\S*$ with at most 1024 characters; Unicode
// spaces and control characters count as whitespace.
func validTarget(t string) bool {
	if !utf8.ValidString(t) || utf8.RuneCountInString(t) > maxTargetChars {
		return false
	}
	scheme, rest, ok := strings.Cut(t, ":")
	if !ok || scheme == "" || scheme[0] < 'a' || scheme[0] > 'z' {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	for _, r := range rest {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) {
			return false
		}
	}
	return true
}

// markdownPath reports a clean brain-relative path of a .md file.
func markdownPath(p string) bool {
	return cleanRelPath(p) && !strings.ContainsRune(p, '\\') && strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "/.md")
}
