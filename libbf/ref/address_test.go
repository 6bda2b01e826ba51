package ref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		in       string
		want     Address
		str      string // canonical printing
		identity string
		kind     AddressKind
	}{
		{"bf://brain/", Address{Brain: "brain"}, "bf://brain/", "bf://brain/", AddressHome},
		{"BF://brain/", Address{Brain: "brain"}, "bf://brain/", "bf://brain/", AddressHome},
		{"Bf://brain/#", Address{Brain: "brain", HasFragment: true}, "bf://brain/#", "bf://brain/", AddressHome},
		{"bf://brain/?", Address{Brain: "brain"}, "bf://brain/", "bf://brain/", AddressHome},
		{"bf://b/tasks", Address{Brain: "b", Path: "tasks"}, "bf://b/tasks", "bf://b/tasks", AddressPage},
		{"bf://b/projects", Address{Brain: "b", Path: "projects"}, "bf://b/projects", "bf://b/projects", AddressPage},
		{"bf://b/projects/", Address{Brain: "b", Path: "projects"}, "bf://b/projects", "bf://b/projects", AddressPage},
		{"bf://b/concepts", Address{Brain: "b", Path: "concepts"}, "bf://b/concepts", "bf://b/concepts", AddressPage},
		{"bf://b/actions", Address{Brain: "b", Path: "actions"}, "bf://b/actions", "bf://b/actions", AddressPage},
		{"bf://b/tags", Address{Brain: "b", Path: "tags"}, "bf://b/tags", "bf://b/tags", AddressPage},
		{"bf://b/tags/website", Address{Brain: "b", Path: "tags/website"}, "bf://b/tags/website", "bf://b/tags/website", AddressPage},
		{"bf://b/tags/website/", Address{Brain: "b", Path: "tags/website"}, "bf://b/tags/website", "bf://b/tags/website", AddressPage},
		{"bf://b/tags/website#", Address{Brain: "b", Path: "tags/website", HasFragment: true}, "bf://b/tags/website#", "bf://b/tags/website", AddressPage},
		{"bf://b/tags/web%20site", Address{Brain: "b", Path: "tags/web site"}, "bf://b/tags/web%20site", "bf://b/tags/web%20site", AddressPage},
		{"bf://b/memories", Address{Brain: "b", Path: "memories"}, "bf://b/memories", "bf://b/memories", AddressPage},
		{"bf://b/memories/mail/7d", Address{Brain: "b", Path: "memories/mail/7d"}, "bf://b/memories/mail/7d", "bf://b/memories/mail/7d", AddressPage},
		{"bf://b/7d", Address{Brain: "b", Path: "7d"}, "bf://b/7d", "bf://b/7d", AddressPage},
		{"bf://b/today", Address{Brain: "b", Path: "today"}, "bf://b/today", "bf://b/today", AddressPage},
		{"bf://b/2026-13", Address{Brain: "b", Path: "2026-13"}, "bf://b/2026-13", "bf://b/2026-13", AddressPage},
		{"bf://b/2026-09-21..2026-09-25", Address{Brain: "b", Path: "2026-09-21..2026-09-25"}, "bf://b/2026-09-21..2026-09-25", "bf://b/2026-09-21..2026-09-25", AddressPage},
		{"bf://b/tasks/x#s", Address{Brain: "b", Path: "tasks/x", Fragment: "s", HasFragment: true}, "bf://b/tasks/x#s", "bf://b/tasks/x#s", AddressPath},
		// Notes, folders and entities.
		{"bf://brain/projects/new-website.md", Address{Brain: "brain", Path: "projects/new-website.md"}, "bf://brain/projects/new-website.md", "bf://brain/projects/new-website.md", AddressPath},
		{"bf://brain/projects/new-website.md#decision", Address{Brain: "brain", Path: "projects/new-website.md", Fragment: "decision", HasFragment: true}, "bf://brain/projects/new-website.md#decision", "bf://brain/projects/new-website.md#decision", AddressPath},
		{"bf://brain/projects/new-website.md?rel=depends-on#decision", Address{Brain: "brain", Path: "projects/new-website.md", Rel: "depends-on", Fragment: "decision", HasFragment: true}, "bf://brain/projects/new-website.md?rel=depends-on#decision", "bf://brain/projects/new-website.md#decision", AddressPath},
		{"bf://brain/people/alice?rel=owner", Address{Brain: "brain", Path: "people/alice", Rel: "owner"}, "bf://brain/people/alice?rel=owner", "bf://brain/people/alice", AddressPath},
		{"bf://brain/people/alice?r%65l=own%65r", Address{Brain: "brain", Path: "people/alice", Rel: "owner"}, "bf://brain/people/alice?rel=owner", "bf://brain/people/alice", AddressPath},
		{"bf://brain/people/alice/", Address{Brain: "brain", Path: "people/alice"}, "bf://brain/people/alice", "bf://brain/people/alice", AddressPath},
		{"bf://b/concepts/%C3%A9ric.md", Address{Brain: "b", Path: "concepts/éric.md"}, "bf://b/concepts/%C3%A9ric.md", "bf://b/concepts/%C3%A9ric.md", AddressPath},
		{"bf://b/concepts/éric.md", Address{Brain: "b", Path: "concepts/éric.md"}, "bf://b/concepts/%C3%A9ric.md", "bf://b/concepts/%C3%A9ric.md", AddressPath},
		{"bf://b/docs/Meeting%20notes.txt", Address{Brain: "b", Path: "docs/Meeting notes.txt"}, "bf://b/docs/Meeting%20notes.txt", "bf://b/docs/Meeting%20notes.txt", AddressPath},
		{"bf://b/docs/100%25.md", Address{Brain: "b", Path: "docs/100%.md"}, "bf://b/docs/100%25.md", "bf://b/docs/100%25.md", AddressPath},
		{"bf://b/docs/a%3Fb%23c.md", Address{Brain: "b", Path: "docs/a?b#c.md"}, "bf://b/docs/a%3Fb%23c.md", "bf://b/docs/a%3Fb%23c.md", AddressPath},
		{"bf://b/docs/a%2fb", Address{Brain: "b", Path: "docs/a/b"}, "bf://b/docs/a/b", "bf://b/docs/a/b", AddressPath},
		{"bf://b/a@b:c~d_e.f+g", Address{Brain: "b", Path: "a@b:c~d_e.f+g"}, "bf://b/a@b:c~d_e.f%2Bg", "bf://b/a@b:c~d_e.f%2Bg", AddressPath},
		{"bf://b/Bad_Source:id", Address{Brain: "b", Path: "Bad_Source:id"}, "bf://b/Bad_Source:id", "bf://b/Bad_Source:id", AddressPath},
		{"bf://b/x#Caf%C3%A9%20au-lait", Address{Brain: "b", Path: "x", Fragment: "Café au-lait", HasFragment: true}, "bf://b/x#Caf%C3%A9%20au-lait", "bf://b/x#Caf%C3%A9%20au-lait", AddressPath},
		{"bf://b/x#a/b:c@d?e", Address{Brain: "b", Path: "x", Fragment: "a/b:c@d?e", HasFragment: true}, "bf://b/x#a%2Fb%3Ac%40d%3Fe", "bf://b/x#a%2Fb%3Ac%40d%3Fe", AddressPath},
		{"bf://b/x#a#b", Address{Brain: "b", Path: "x", Fragment: "a#b", HasFragment: true}, "bf://b/x#a%23b", "bf://b/x#a%23b", AddressPath},
		{"bf://b/x?#s", Address{Brain: "b", Path: "x", Fragment: "s", HasFragment: true}, "bf://b/x#s", "bf://b/x#s", AddressPath},
		{"bf://b/x%E2%80%8By", Address{Brain: "b", Path: "x\u200by"}, "bf://b/x%E2%80%8By", "bf://b/x%E2%80%8By", AddressPath},
		// Records: opaque ids, no traversal checks, no trailing-slash rule.
		{"bf://brain/local-documents:website-demo/brief.txt", Address{Brain: "brain", Path: "local-documents:website-demo/brief.txt"}, "bf://brain/local-documents:website-demo/brief.txt", "bf://brain/local-documents:website-demo/brief.txt", AddressRecord},
		{"bf://b/mail:a%23b", Address{Brain: "b", Path: "mail:a#b"}, "bf://b/mail:a%23b", "bf://b/mail:a%23b", AddressRecord},
		{"bf://b/mail:a%3Fb", Address{Brain: "b", Path: "mail:a?b"}, "bf://b/mail:a%3Fb", "bf://b/mail:a%3Fb", AddressRecord},
		{"bf://b/web:https://x.test/a/../b//c", Address{Brain: "b", Path: "web:https://x.test/a/../b//c"}, "bf://b/web:https://x.test/a/../b//c", "bf://b/web:https://x.test/a/../b//c", AddressRecord},
		{"bf://b/src:..", Address{Brain: "b", Path: "src:.."}, "bf://b/src:..", "bf://b/src:..", AddressRecord},
		{"bf://b/src:a%5Cb", Address{Brain: "b", Path: `src:a\b`}, "bf://b/src:a%5Cb", "bf://b/src:a%5Cb", AddressRecord},
		{"bf://b/src:id/", Address{Brain: "b", Path: "src:id/"}, "bf://b/src:id/", "bf://b/src:id/", AddressRecord},
		{"bf://b/memories:x", Address{Brain: "b", Path: "memories:x"}, "bf://b/memories:x", "bf://b/memories:x", AddressRecord},
		{"bf://b/tags:x?rel=owner#s", Address{Brain: "b", Path: "tags:x", Rel: "owner", Fragment: "s", HasFragment: true}, "bf://b/tags:x?rel=owner#s", "bf://b/tags:x#s", AddressRecord},
	} {
		got, err := ParseAddress(tc.in)
		if err != nil {
			t.Errorf("ParseAddress(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseAddress(%q) (-want +got):\n%s", tc.in, diff)
		}
		if s := got.String(); s != tc.str {
			t.Errorf("ParseAddress(%q).String() = %q, want %q", tc.in, s, tc.str)
		}
		if s := got.Identity(); s != tc.identity {
			t.Errorf("ParseAddress(%q).Identity() = %q, want %q", tc.in, s, tc.identity)
		}
		if k := got.Kind(); k != tc.kind {
			t.Errorf("ParseAddress(%q).Kind() = %v, want %v", tc.in, k, tc.kind)
		}
		again, err := ParseAddress(got.String())
		if err != nil || again != got {
			t.Errorf("round trip of %q: %+v, %v", tc.in, again, err)
		}
		if !IsAddress(tc.in) {
			t.Errorf("IsAddress(%q) = false", tc.in)
		}
	}
}

func TestParseAddressRejects(t *testing.T) {
	long := "bf://b/" + strings.Repeat("a", MaxLength-len("bf://b/"))
	if _, err := ParseAddress(long); err != nil {
		t.Fatalf("ParseAddress of %d characters: %v", len(long), err)
	}
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"", ErrInvalidAddress},
		{"https://b/x", ErrInvalidAddress},
		{"bf:", ErrInvalidAddress},
		{"bf:b/x", ErrInvalidAddress},
		{"bf:/b/x", ErrInvalidAddress},
		{"bf://b", ErrInvalidAddress},
		{"bf://b?rel=x", ErrInvalidAddress},
		{"bf://b#x", ErrInvalidAddress},
		{"bf:///x", ErrInvalidAddress},
		// Brain: a name, no userinfo or port.
		{"bf://Brain/", ErrInvalidAddress},
		{"bf://1b/", ErrInvalidAddress},
		{"bf://user@b/", ErrInvalidAddress},
		{"bf://user:pw@b/x", ErrInvalidAddress},
		{"bf://b:8080/", ErrInvalidAddress},
		{"bf://b%41/", ErrInvalidAddress},
		{"bf://" + strings.Repeat("b", 65) + "/", ErrInvalidAddress},
		// Whitespace, control characters, stray '%', length.
		{"bf://b/a b", ErrInvalidAddress},
		{"bf://b/a\tb", ErrInvalidAddress},
		{"bf://b/x\n", ErrInvalidAddress},
		{" bf://b/x", ErrInvalidAddress},
		{"bf://b/a\u00a0b", ErrInvalidAddress},
		{"bf://b/a\u3000b", ErrInvalidAddress},
		{"bf://b/a\x00b", ErrInvalidAddress},
		{"bf://b/a\x7fb", ErrInvalidAddress},
		{"bf://b/a\u0085b", ErrInvalidAddress},
		{"bf://b/a%00b", ErrInvalidAddress},
		{"bf://b/a%0Ab", ErrInvalidAddress},
		{"bf://b/x#a%09b", ErrInvalidAddress},
		{"bf://b/src:a%0Ab", ErrInvalidAddress},
		{"bf://b/a%C2%85b", ErrInvalidAddress},
		{"bf://b/100%.md", ErrInvalidAddress},
		{"bf://b/a%2", ErrInvalidAddress},
		{"bf://b/a%", ErrInvalidAddress},
		{"bf://b/a%zz", ErrInvalidAddress},
		{"bf://b/x#%", ErrInvalidAddress},
		{"bf://b/x?rel=a%", ErrInvalidAddress},
		{"bf://b/a%FF", ErrInvalidAddress},
		{"bf://b/a%C3", ErrInvalidAddress},
		{"bf://b/a\xff", ErrInvalidAddress},
		{long + "a", ErrInvalidAddress},
		{"bf://b/" + strings.Repeat(" ", 3000), ErrInvalidAddress},
		{"bf://b/" + strings.Repeat("é", 3000), ErrInvalidAddress}, // canonical form is 18,007 characters
		// Traversal and empty segments outside record paths.
		{"bf://b/.", ErrInvalidAddress},
		{"bf://b/..", ErrInvalidAddress},
		{"bf://b/../x", ErrInvalidAddress},
		{"bf://b/projects/../x", ErrInvalidAddress},
		{"bf://b/projects/./x", ErrInvalidAddress},
		{"bf://b/projects/%2E%2E/x", ErrInvalidAddress},
		{"bf://b/projects//x", ErrInvalidAddress},
		{"bf://b//x", ErrInvalidAddress},
		{"bf://b//", ErrInvalidAddress},
		{"bf://b/x//", ErrInvalidAddress},
		{"bf://b/projects%2F%2Fx", ErrInvalidAddress},
		{`bf://b/a\b`, ErrInvalidAddress},
		{"bf://b/a%5Cb", ErrInvalidAddress},
		// Queries: rel only, once, with a name; before the fragment.
		{"bf://b/x?rel=", ErrInvalidAddress},
		{"bf://b/x?rel", ErrInvalidAddress},
		{"bf://b/x?=owner", ErrInvalidAddress},
		{"bf://b/x?role=owner", ErrInvalidAddress},
		{"bf://b/x?REL=owner", ErrInvalidAddress},
		{"bf://b/x?rel=Owner", ErrInvalidAddress},
		{"bf://b/x?rel=a_b", ErrInvalidAddress},
		{"bf://b/x?rel=a+b", ErrInvalidAddress},
		{"bf://b/x?rel=a=b", ErrInvalidAddress},
		{"bf://b/x?rel=owner&rel=owner", ErrInvalidAddress},
		{"bf://b/x?rel=owner&", ErrInvalidAddress},
		{"bf://b/x?rel=owner&x=y", ErrInvalidAddress},
		{"bf://b/x?&rel=owner", ErrInvalidAddress},
		{"bf://b/x?rel=owner;x=y", ErrInvalidAddress},
		{"bf://b/x?subject=bf://b/y", ErrInvalidAddress},
		{"bf://b/x?rel=%0A", ErrInvalidAddress},
		// No section on pages; tag addresses take neither section nor relation.
		{"bf://b/#x", ErrInvalidAddress},
		{"bf://b/tasks#x", ErrInvalidAddress},
		{"bf://b/tasks/#x", ErrInvalidAddress},
		{"bf://b/projects#x", ErrInvalidAddress},
		{"bf://b/tags#x", ErrInvalidAddress},
		{"bf://b/memories#x", ErrInvalidAddress},
		{"bf://b/memories/mail#x", ErrInvalidAddress},
		{"bf://b/7d#x", ErrInvalidAddress},
		{"bf://b/2026-09-27#x", ErrInvalidAddress},
		{"bf://b/tags/website#x", errTagAddress},
		{"bf://b/tags/website?rel=owner", errTagAddress},
		{"bf://b/tags/website/?rel=owner#", errTagAddress},
	} {
		_, err := ParseAddress(tc.in)
		if !errors.Is(err, tc.err) {
			t.Errorf("ParseAddress(%q) = %v, want %v", tc.in, err, tc.err)
		}
	}
	if got, want := ErrInvalidAddress.Error(), "invalid BF link; use bf://brain/path?rel=role#section, with rel as the only query, spaces and a literal % percent-encoded as %20 and %25, and without userinfo or traversal"; got != want {
		t.Errorf("ErrInvalidAddress = %q", got)
	}
	if got, want := errTagAddress.Error(), "use a tag address without a section or relation: bf://brain/tags/label"; got != want {
		t.Errorf("ErrTagAddress = %q", got)
	}
}

func TestIsAddress(t *testing.T) {
	for in, want := range map[string]bool{
		"bf://b/": true, "BF://b/": true, "bF:x": true, "bf:": true,
		"bf": false, "bfx://b/": false, "https://b/": false, "": false, "b/bf://": false,
	} {
		if got := IsAddress(in); got != want {
			t.Errorf("IsAddress(%q) = %v", in, got)
		}
	}
}

func TestAddressRecord(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   RecordRef
		wantOK bool
	}{
		{"bf://b/mail:a%23b", RecordRef{"mail", "a#b"}, true},
		{"bf://b/local-documents:website-demo/brief.txt", RecordRef{"local-documents", "website-demo/brief.txt"}, true},
		{"bf://b/projects/x.md", RecordRef{}, false},
		{"bf://b/src:", RecordRef{}, false},
		{"bf://b/", RecordRef{}, false},
	} {
		a, err := ParseAddress(tc.in)
		if err != nil {
			t.Fatalf("ParseAddress(%q): %v", tc.in, err)
		}
		got, ok := a.Record()
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("ParseAddress(%q).Record() = %+v, %v", tc.in, got, ok)
		}
	}
	// Building an address from a record ref escapes what the id holds.
	a := Address{Brain: "b", Path: RecordRef{"mail", "a#b?c d%e"}.String()}
	if diff := cmp.Diff("bf://b/mail:a%23b%3Fc%20d%25e", a.String()); diff != "" {
		t.Error(diff)
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, path, fragment string }{
		{"", "", ""},
		{"abcXYZ019-._~", "abcXYZ019-._~", "abcXYZ019-._~"},
		{"a/b@c:d", "a/b@c:d", "a%2Fb%40c%3Ad"},
		{"a b%c#d?e+f&g=h;i", "a%20b%25c%23d%3Fe%2Bf%26g%3Dh%3Bi", "a%20b%25c%23d%3Fe%2Bf%26g%3Dh%3Bi"},
		{"é\\\x00", "%C3%A9%5C%00", "%C3%A9%5C%00"},
		{"!$'()*,[]", "%21%24%27%28%29%2A%2C%5B%5D", "%21%24%27%28%29%2A%2C%5B%5D"},
	} {
		if got := EscapePath(tc.in); got != tc.path {
			t.Errorf("EscapePath(%q) = %q, want %q", tc.in, got, tc.path)
		}
		if got := EscapeFragment(tc.in); got != tc.fragment {
			t.Errorf("EscapeFragment(%q) = %q, want %q", tc.in, got, tc.fragment)
		}
	}
}

func TestSplitFragment(t *testing.T) {
	type split struct {
		Path, Fragment string
		HasFragment    bool
	}
	for _, tc := range []struct {
		in   string
		want split
		err  error
	}{
		{"projects/new-website.md", split{"projects/new-website.md", "", false}, nil},
		{"projects/new-website.md#decision", split{"projects/new-website.md", "decision", true}, nil},
		{"projects/new-website.md#", split{"projects/new-website.md", "", true}, nil},
		{"#decision", split{"", "decision", true}, nil},
		{"#", split{"", "", true}, nil},
		{"", split{"", "", false}, nil},
		{"data%231.csv", split{"data#1.csv", "", false}, nil},
		{"data%231.csv#a%20b", split{"data#1.csv", "a b", true}, nil},
		{"a#b#c", split{"a", "b#c", true}, nil},
		{"Meeting%20notes.txt", split{"Meeting notes.txt", "", false}, nil},
		{"a+b.md", split{"a+b.md", "", false}, nil},
		{"%C3%A9ric.md", split{"éric.md", "", false}, nil},
		{"100%.md", split{}, ErrPercent},
		{"a.md#100%", split{}, ErrPercent},
		{"a%2", split{}, ErrPercent},
		{"a%g0", split{}, ErrPercent},
		{"a%FF", split{}, ErrPercent},
	} {
		p, f, has, err := SplitFragment(tc.in)
		if !errors.Is(err, tc.err) {
			t.Errorf("SplitFragment(%q) error = %v, want %v", tc.in, err, tc.err)
		}
		if diff := cmp.Diff(tc.want, split{p, f, has}); diff != "" {
			t.Errorf("SplitFragment(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
