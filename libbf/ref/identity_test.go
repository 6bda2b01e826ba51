package ref

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonicalIdentity(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		// Opaque schemes are kept exactly, case and query included.
		{"person:email/dana@example.test", "person:email/dana@example.test", nil},
		{"repo:github.com/Example/New-Website", "repo:github.com/Example/New-Website", nil},
		{"https://x.test/?rel=owner", "https://x.test/?rel=owner", nil},
		{"mailto:a@b.test", "mailto:a@b.test", nil},
		{"person:email/éric@example.test", "person:email/éric@example.test", nil},
		{"a+b.c-d:x", "a+b.c-d:x", nil},
		{"re:invent", "re:invent", nil},
		{"meetings:offline", "meetings:offline", nil},
		{"x:" + strings.Repeat("a", MaxLength-2), "x:" + strings.Repeat("a", MaxLength-2), nil},
		// bf:// addresses are normalised.
		{"bf://acme/people/dana", "bf://acme/people/dana", nil},
		{"BF://acme/people/dana", "bf://acme/people/dana", nil},
		{"bf://acme/people/d%61na", "bf://acme/people/dana", nil},
		{"bf://acme/people/dana#contact", "bf://acme/people/dana#contact", nil},
		{"bf://acme/people/dana#", "bf://acme/people/dana", nil},
		{"bf://acme/people/dana/", "bf://acme/people/dana", nil},
		{"bf://acme/people/dana?", "bf://acme/people/dana", nil},
		{"bf://acme/mail:a%23b", "bf://acme/mail:a%23b", nil},
		{"bf://acme/people/dana?rel=owner", "", ErrIdentityRel},
		{"bf://acme/people/dana?rel=owner#x", "", ErrIdentityRel},
		{"bf://acme/people/../x", "", ErrInvalidAddress},
		{"bf:dana", "", ErrInvalidAddress},
		{"bf://acme/people/ali%E2%80%8Bce", "", errIdentityFormat},
		{"bf://acme/people/alice#a%C2%ADb", "", errIdentityFormat},
		// Grammar.
		{"", "", ErrIdentity},
		{"dana", "", ErrIdentity},
		{"Person:dana", "", ErrIdentity},
		{"1x:dana", "", ErrIdentity},
		{"person:", "", ErrIdentity},
		{":dana", "", ErrIdentity},
		{"person:da na", "", ErrIdentity},
		{"person:dana\u00a0x", "", ErrIdentity},
		{"pe_rson:dana", "", ErrIdentity},
		{"projects/x.md", "", ErrIdentity},
		// Other reasons.
		{"x:" + strings.Repeat("a", MaxLength-1), "", errIdentityLength},
		{"x:" + strings.Repeat("é", MaxLength-1), "", errIdentityLength},
		{"person:da\x00na", "", errIdentityControl},
		{"person:dana\n", "", errIdentityControl},
		{"person:da\u0085na", "", errIdentityControl},
		{"person:da\u200bna", "", errIdentityFormat},
		{"person:da\u200dna", "", errIdentityFormat},
		{"person:da\u202ena", "", errIdentityFormat},
		{"person:\ufeffdana", "", errIdentityFormat},
		{"person:da\u00adna", "", errIdentityFormat},
		{"person:da\xffna", "", errIdentityUTF8},
	} {
		got, err := CanonicalIdentity(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("CanonicalIdentity(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
		if IsIdentity(tc.in) != (tc.err == nil) {
			t.Errorf("IsIdentity(%q) = %v", tc.in, !(tc.err == nil))
		}
		if !errors.Is(CheckIdentity(tc.in), tc.err) {
			t.Errorf("CheckIdentity(%q) = %v, want %v", tc.in, CheckIdentity(tc.in), tc.err)
		}
	}
}

func TestIdentityErrorsNeverEchoTheValue(t *testing.T) {
	for _, in := range []string{"secret-token", "person:sec ret", "person:secret\x00", "bf://b/secret?rel=x"} {
		if err := CheckIdentity(in); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckIdentity(%q) = %v", in, err)
		}
	}
	if got := ErrIdentityRel.Error(); got != "identity must not contain a link relation" {
		t.Errorf("ErrIdentityRel = %q", got)
	}
	if got := ErrIdentity.Error(); got != "expected an explicit namespaced identity" {
		t.Errorf("ErrIdentity = %q", got)
	}
}
