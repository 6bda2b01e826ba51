package ref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePage(t *testing.T) {
	hash := strings.Repeat("0123456789abcdef", 4)
	for _, tc := range []struct {
		in   string
		want Page
	}{
		{"", Page{Kind: PageHome}},
		{"tasks", Page{Kind: PageTasks, Path: "tasks"}},
		{"tasks/", Page{Kind: PageTasks, Path: "tasks"}},
		{"projects", Page{Kind: PageFolder, Path: "projects"}},
		{"projects/", Page{Kind: PageFolder, Path: "projects"}},
		{"concepts", Page{Kind: PageFolder, Path: "concepts"}},
		{"actions", Page{Kind: PageFolder, Path: "actions"}},
		{"tags", Page{Kind: PageTags, Path: "tags"}},
		{"tags/", Page{Kind: PageTags, Path: "tags"}},
		{"tags/website", Page{Kind: PageTag, Path: "tags/website", Tag: "website"}},
		{"tags/website/", Page{Kind: PageTag, Path: "tags/website", Tag: "website"}},
		{"tags/Web Site", Page{Kind: PageTag, Path: "tags/Web Site", Tag: "Web Site"}},
		{"tags/c++", Page{Kind: PageTag, Path: "tags/c++", Tag: "c++"}},
		{"tags/...", Page{Kind: PageTag, Path: "tags/...", Tag: "..."}},
		{"tags/" + strings.Repeat("é", 128), Page{Kind: PageTag, Path: "tags/" + strings.Repeat("é", 128), Tag: strings.Repeat("é", 128)}},
		{"memories", Page{Kind: PageMemories, Path: "memories"}},
		{"memories/", Page{Kind: PageMemories, Path: "memories"}},
		{"memories/brief", Page{Kind: PageSource, Path: "memories/brief", Source: "brief"}},
		{"memories/brief/", Page{Kind: PageSource, Path: "memories/brief", Source: "brief"}},
		{"memories/brief/7d", Page{Kind: PageSourcePeriod, Path: "memories/brief/7d", Source: "brief", Period: "7d"}},
		{"memories/brief/2026-09-21..2026-09-25", Page{Kind: PageSourcePeriod, Path: "memories/brief/2026-09-21..2026-09-25", Source: "brief", Period: "2026-09-21..2026-09-25"}},
		{"memories/brief/today", Page{Kind: PageSourcePeriod, Path: "memories/brief/today", Source: "brief", Period: "today"}},
		{"memories/brief/undated", Page{Kind: PageSourceUndated, Path: "memories/brief/undated", Source: "brief"}},
		{"memories/brief/" + hash + ".json", Page{Kind: PageRecordFile, Path: "memories/brief/" + hash + ".json", Source: "brief", File: hash + ".json"}},
		{"today", Page{Kind: PagePeriod, Path: "today", Period: "today"}},
		{"yesterday", Page{Kind: PagePeriod, Path: "yesterday", Period: "yesterday"}},
		{"12h", Page{Kind: PagePeriod, Path: "12h", Period: "12h"}},
		{"7d/", Page{Kind: PagePeriod, Path: "7d", Period: "7d"}},
		{"2w", Page{Kind: PagePeriod, Path: "2w", Period: "2w"}},
		{"2026-09-27", Page{Kind: PagePeriod, Path: "2026-09-27", Period: "2026-09-27"}},
		{"2026-09", Page{Kind: PagePeriod, Path: "2026-09", Period: "2026-09"}},
		{"2026-09-21..2026-09-25", Page{Kind: PagePeriod, Path: "2026-09-21..2026-09-25", Period: "2026-09-21..2026-09-25"}},
	} {
		got, ok, err := ParsePage(tc.in)
		if err != nil || !ok {
			t.Errorf("ParsePage(%q) = %v, %v", tc.in, ok, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParsePage(%q) (-want +got):\n%s", tc.in, diff)
		}
		if !Reserved(got.Path) {
			t.Errorf("Reserved(%q) = false", got.Path)
		}
	}
}

func TestParsePageNotAPage(t *testing.T) {
	for _, in := range []string{
		"projects/new-website.md",
		"projects/website",
		"projects/website/",
		"concepts/tables/customers.md",
		"actions/2026-09-27_launch",
		"actions/2026-09-27_launch/ACTION.md",
		"people/alice",
		"meetings:offline",
		"tasks/x",
		"Projects",
		"/projects",
		"/",
		"index.md",
		"2026-09-27.md",
		"today/x",
	} {
		got, ok, err := ParsePage(in)
		if ok || err != nil {
			t.Errorf("ParsePage(%q) = %+v, %v, %v; want not a page", in, got, ok, err)
		}
	}
}

func TestParsePageRejects(t *testing.T) {
	hash := strings.Repeat("0123456789abcdef", 4)
	for _, tc := range []struct {
		in  string
		err error
		msg string
	}{
		{"tags//", errTag, ""},
		{"tags/a/b", errTag, ""},
		{"tags/.", errTag, ""},
		{"tags/..", errTag, ""},
		{"tags/ x", errTag, ""},
		{"tags/x ", errTag, ""},
		{"tags/a\\b", errTag, ""},
		{"tags/a\x00b", errTag, ""},
		{"tags/" + strings.Repeat("a", 129), errTag, ""},
		{"memories/Brief", errMemories, ""},
		{"memories/_x", errMemories, ""},
		{"memories//", errMemories, ""},
		{"memories//7d", errMemories, ""},
		{"memories/brief/x", errMemories, ""},
		{"memories/brief/undated/x", errMemories, ""},
		{"memories/brief/7d/x", errMemories, ""},
		{"memories/brief/2026-09.jsonl", errMemories, ""},
		{"memories/brief/" + strings.ToUpper(hash) + ".json", errMemories, ""},
		{"memories/brief/" + hash[:63] + ".json", errMemories, ""},
		{"memories/brief/" + hash, errMemories, ""},
		{"memories/brief/2026-13", ErrInvalidPeriod, "invalid period: 2026-13"},
		{"2026-13", ErrInvalidPeriod, "invalid period: 2026-13"},
		{"2026-02-30", ErrInvalidPeriod, "invalid period: 2026-02-30"},
		{"0d", ErrInvalidPeriod, "invalid period: 0d"},
		{"2026-09-25..2026-09-21", ErrInvalidPeriod, "invalid period: 2026-09-25..2026-09-21"},
	} {
		got, ok, err := ParsePage(tc.in)
		if ok || !errors.Is(err, tc.err) {
			t.Errorf("ParsePage(%q) = %+v, %v, %v; want %v", tc.in, got, ok, err, tc.err)
		} else if tc.msg != "" && err.Error() != tc.msg {
			t.Errorf("ParsePage(%q) error %q, want %q", tc.in, err, tc.msg)
		}
	}
}

func TestValidTag(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"website", true},
		{"Website", true},
		{"a", true},
		{"web site", true},
		{"c#", true},
		{"a.b", true},
		{"...", true},
		{".hidden", true},
		{"日本", true},
		{"a\u200bb", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("é", 128), true},
		{"", false},
		{strings.Repeat("a", 129), false},
		{" website", false},
		{"website ", false},
		{"\u00a0website", false},
		{"website\u3000", false},
		{"a/b", false},
		{"a\\b", false},
		{".", false},
		{"..", false},
		{"a\tb", false},
		{"a\x7fb", false},
		{"a\u0085b", false},
		{"a\xffb", false},
	} {
		err := ValidTag(tc.in)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, errTag)) {
			t.Errorf("ValidTag(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
	if got, want := errTag.Error(), "tag must be 1-128 characters without surrounding whitespace, slashes or dot segments"; got != want {
		t.Errorf("ErrTag = %q", got)
	}
}

func TestReservedAndAuthored(t *testing.T) {
	for in, want := range map[string]bool{
		"": true, "tasks": true, "projects": true, "concepts": true, "actions": true,
		"tags": true, "tags/x": true, "tags/a/b": true, "memories": true, "memories/x/y/z": true,
		"7d": true, "2026-13": true, "today": true, "2026-09-21..2026-09-25": true,
		"projects/x": false, "people/alice": false, "tasks/x": false, "tagsx": false,
		"memoriesx/y": false, "mail:x": false, "7d/x": false,
	} {
		if got := Reserved(in); got != want {
			t.Errorf("Reserved(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]bool{
		"projects/website": true, "concepts/tables/x.md": true, "actions/2026-09-27_launch": true,
		"projects": false, "projects/": false, "tags/x": false, "people/alice": false, "": false,
	} {
		if got := UnderAuthored(in); got != want {
			t.Errorf("UnderAuthored(%q) = %v, want %v", in, got, want)
		}
	}
}
