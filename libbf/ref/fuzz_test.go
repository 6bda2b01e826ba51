package ref

import (
	"testing"
	"time"
)

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{
		"bf://brain/",
		"BF://brain/#",
		"bf://b/projects/new-website.md?rel=depends-on#decision",
		"bf://b/people/alice?rel=owner",
		"bf://b/local-documents:website-demo/brief.txt",
		"bf://b/mail:a%23b%3Fc",
		"bf://b/web:https://x.test/a/../b//c?q=1",
		"bf://b/tags/website/",
		"bf://b/tags/website#x",
		"bf://b/2026-09-21..2026-09-25",
		"bf://b/concepts/%C3%A9ric.md#caf%C3%A9",
		"bf://b/docs/100%25.md",
		"bf://b/x?#",
		"bf://b/x/",
		"bf://b/src:id/",
		"bf://b/a%2Fb",
		"bf://b/../x",
		"bf://user@b:1/x",
		"bf://b/x?rel=a&rel=b",
		"bf://b/a%zz",
		"bf:x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress(s)
		if err != nil {
			return
		}
		printed := a.String()
		b, err := ParseAddress(printed)
		if err != nil {
			t.Fatalf("ParseAddress(%q) = %+v prints %q, which fails: %v", s, a, printed, err)
		}
		if b != a {
			t.Fatalf("ParseAddress(%q) = %+v, but its printing %q parses as %+v", s, a, printed, b)
		}
		if again := b.String(); again != printed {
			t.Fatalf("printing is not stable: %q then %q", printed, again)
		}
		id := a.Identity()
		c, err := ParseAddress(id)
		if err != nil || c.Rel != "" || c.Path != a.Path || c.Fragment != a.Fragment || c.Identity() != id {
			t.Fatalf("identity %q of %q reads as %+v, %v", id, s, c, err)
		}
		if a.Kind() == AddressRecord {
			if _, ok := a.Record(); !ok {
				t.Fatalf("record address %q has no record", s)
			}
		}
	})
}

func FuzzSplitFragment(f *testing.F) {
	for _, s := range []string{
		"projects/new-website.md#decision",
		"projects/new-website.md#",
		"data%231.csv",
		"a#b#c",
		"100%.md",
		"%C3%A9ric.md#caf%C3%A9",
		"a%FF",
		"#",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, fragment, has, err := SplitFragment(s)
		if err != nil {
			return
		}
		joined := EscapePath(path)
		if has {
			joined += "#" + EscapeFragment(fragment)
		}
		p2, f2, h2, err := SplitFragment(joined)
		if err != nil || p2 != path || f2 != fragment || h2 != has {
			t.Fatalf("SplitFragment(%q) = %q, %q, %v; re-escaped %q gives %q, %q, %v, %v",
				s, path, fragment, has, joined, p2, f2, h2, err)
		}
	})
}

func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{
		"today", "yesterday", "2026-03-29", "2026-10-25", "2026-03", "2026-10",
		"2026-03-28..2026-03-30", "2026-13", "2026-02-30", "12h", "7d", "2w", "99999w", "0d",
		"0001-01-02", "9999-12-30", "9999-12", "0000-01", "2026-09-25..2026-09-21",
	} {
		f.Add(s, int64(1774823400), true)
	}
	paris := paris(f)
	f.Fuzz(func(t *testing.T, s string, unix int64, inParis bool) {
		// Keep now within the years bf can name; beyond that time arithmetic wraps.
		const limit = 250000000000 // about 7,900 years either side of 1970
		unix %= limit
		now := time.Unix(unix, 0)
		loc := time.UTC
		if inParis {
			loc = paris
		}
		p, err := ParsePeriod(s, now, loc)
		if err != nil {
			return
		}
		if !IsPeriod(s) {
			t.Fatalf("ParsePeriod(%q) succeeded but IsPeriod is false", s)
		}
		if !p.Start.Before(p.End) {
			t.Fatalf("ParsePeriod(%q) = [%v, %v)", s, p.Start, p.End)
		}
		if prev, ok := p.Previous(); ok && (!prev.End.Equal(p.Start) || !prev.Start.Before(prev.End)) {
			t.Fatalf("%q: previous [%v, %v) does not end at %v", s, prev.Start, prev.End, p.Start)
		}
		if next, ok := p.Next(); ok && (!next.Start.Equal(p.End) || !next.Start.Before(next.End)) {
			t.Fatalf("%q: next [%v, %v) does not start at %v", s, next.Start, next.End, p.End)
		}
		if _, ok, err := ParsePage(s); !ok || err != nil {
			t.Fatalf("ParsePage(%q) = %v, %v", s, ok, err)
		}
	})
}
