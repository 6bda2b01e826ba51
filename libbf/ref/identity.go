package ref

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Identity errors. None quotes the value: identities come from notes and sensor output and
// may hold personal data.
var (
	ErrIdentity        = errors.New("expected an explicit namespaced identity")
	ErrIdentityRel     = errors.New("identity must not contain a link relation")
	errIdentityLength  = errors.New("identity is longer than 8192 characters")
	errIdentityControl = errors.New("identity contains a control character")
	errIdentityFormat  = errors.New("identity contains an invisible format character")
	errIdentityUTF8    = errors.New("identity is not valid UTF-8")
)

// CheckIdentity reports why s cannot be an identity, or nil.
func CheckIdentity(s string) error {
	_, err := CanonicalIdentity(s)
	return err
}

// IsIdentity reports whether s is an identity (see CanonicalIdentity).
func IsIdentity(s string) bool { return CheckIdentity(s) == nil }

// CanonicalIdentity returns the form under which s is stored and compared.
//
// An identity is an explicit scheme:value. A bf:// address is the bf scheme's identity and
// is normalised to its canonical printing, without an empty fragment; it must carry no
// ?rel=, because a relation describes a link, not the thing linked to (ErrIdentityRel).
// Every other scheme is opaque: its case and query stay exactly as written, since only
// its owner knows which spellings are equal.
func CanonicalIdentity(s string) (string, error) {
	if IsAddress(s) {
		a, err := ParseAddress(s)
		if err != nil {
			return "", err
		}
		if a.Rel != "" {
			return "", ErrIdentityRel
		}
		// Decoded parts are checked too, or %E2%80%8B would smuggle a zero-width space in.
		if hasFormat(s) || hasFormat(a.Path) || hasFormat(a.Fragment) {
			return "", errIdentityFormat
		}
		return a.Identity(), nil
	}
	switch {
	case !utf8.ValidString(s):
		return "", errIdentityUTF8
	case tooLong(s):
		return "", errIdentityLength
	case hasControl(s):
		return "", errIdentityControl
	case hasFormat(s):
		return "", errIdentityFormat
	case !identityGrammar(s):
		return "", ErrIdentity
	}
	return s, nil
}

// identityGrammar matches [a-z][a-z0-9+.-]*:\S+ in full.
func identityGrammar(s string) bool {
	scheme, value, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || value == "" || !isLower(scheme[0]) {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		if c := scheme[i]; !isLower(c) && !isDigit(c) && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return strings.IndexFunc(value, unicode.IsSpace) < 0
}
