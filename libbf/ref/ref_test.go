package ref

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"brain", true},
		{"local-documents", true},
		{"a1-b2", true},
		{"a-", true},
		{"a--b", true},
		{"a" + strings.Repeat("b", 63), true},
		{"a" + strings.Repeat("b", 64), false},
		{"", false},
		{"1a", false},
		{"-a", false},
		{"Brain", false},
		{"bRain", false},
		{"a_b", false},
		{"a.b", false},
		{"a b", false},
		{"é", false},
		{"a:b", false},
	} {
		if got := ValidName(tc.in); got != tc.want {
			t.Errorf("ValidName(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidRoutineName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"weekly-review", true},
		{"a1-2b-c3", true},
		{"a" + strings.Repeat("b", 63), true},
		{"a" + strings.Repeat("b", 64), false},
		{"a" + strings.Repeat("-b", 32), false}, // 65 characters
		{"a" + strings.Repeat("-b", 31) + "c", true},
		{"", false},
		{"a-", false},
		{"a--b", false},
		{"-a", false},
		{"1a", false},
		{"Weekly", false},
		{"a_b", false},
	} {
		if got := ValidRoutineName(tc.in); got != tc.want {
			t.Errorf("ValidRoutineName(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseRecordRef(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   RecordRef
		wantOK bool
	}{
		{"meetings:offline", RecordRef{"meetings", "offline"}, true},
		{"local-documents:website-demo/brief.txt", RecordRef{"local-documents", "website-demo/brief.txt"}, true},
		{"mail:a#b", RecordRef{"mail", "a#b"}, true},
		{"mail:a%23b", RecordRef{"mail", "a%23b"}, true},
		{"repo:github.com/example/x", RecordRef{"repo", "github.com/example/x"}, true},
		{"web:https://x.test/a?b=c", RecordRef{"web", "https://x.test/a?b=c"}, true},
		{"jira:PROJ-1", RecordRef{"jira", "PROJ-1"}, true},
		{"a::", RecordRef{"a", ":"}, true},
		{"mail:", RecordRef{}, false},
		{":id", RecordRef{}, false},
		{"Mail:x", RecordRef{}, false},
		{"projects/x:y", RecordRef{}, false},
		{"nocolon", RecordRef{}, false},
		{"", RecordRef{}, false},
	} {
		got, ok := ParseRecordRef(tc.in)
		if ok != tc.wantOK || got != tc.want {
			t.Errorf("ParseRecordRef(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
		if ok && got.String() != tc.in {
			t.Errorf("ParseRecordRef(%q).String() = %q", tc.in, got.String())
		}
	}
	if diff := cmp.Diff("a:b/c", RecordRef{"a", "b/c"}.String()); diff != "" {
		t.Error(diff)
	}
}

func TestValidActionFolder(t *testing.T) {
	good := []string{"2026-09-27_website-review", "2026-09-27_website-review-3f9a1c2e", "2024-02-29_x", "2026-01-01_2fa-rollout"}
	bad := []string{"2026-02-30_x", "2026-09-27", "2026-09-27_", "2026-09-27_Website", "2026-09-27_a--b", "2026-09-27_-a", "2026-09-27_a-", "26-09-27_x", "2026-09-27_a_b", "2026-09-27-x"}
	for _, s := range good {
		if !ValidActionFolder(s) {
			t.Errorf("ValidActionFolder(%q) = false", s)
		}
	}
	for _, s := range bad {
		if ValidActionFolder(s) {
			t.Errorf("ValidActionFolder(%q) = true", s)
		}
	}
}
