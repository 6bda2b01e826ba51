package reply

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTitle(t *testing.T) {
	long := strings.Repeat("a", 150) + " " + strings.Repeat("b", 100)
	noSpace := strings.Repeat("é", 250)
	early := strings.Repeat("c", 50) + " " + strings.Repeat("d", 200)
	trailing := strings.Repeat("e", 120) + "   " + strings.Repeat("f", 100)
	tests := []struct{ in, want string }{
		{"Short", "Short"},
		{strings.Repeat("x", 200), strings.Repeat("x", 200)},
		{long, strings.Repeat("a", 150) + "…"},
		{noSpace, strings.Repeat("é", 199) + "…"},
		{early, early[:199] + "…"},
		// The cut ends at the last of three spaces, then trailing spaces go.
		{trailing, strings.Repeat("e", 120) + "…"},
	}
	for _, tt := range tests {
		got := Title(tt.in)
		if got != tt.want {
			t.Errorf("Title(%d chars) = %q, want %q", len([]rune(tt.in)), got, tt.want)
		}
		if n := len([]rune(got)); n > titleLimit {
			t.Errorf("Title gave %d characters", n)
		}
	}
}

func TestCollapse(t *testing.T) {
	if got := Collapse("  a\n\tb \u00a0 c\x1f d  "); got != "a b c d" {
		t.Errorf("Collapse = %q", got)
	}
}

func TestLocal(t *testing.T) {
	paris := time.FixedZone("CEST", 2*3600)
	tests := []struct {
		in   string
		loc  *time.Location
		want string
	}{
		{"2026-09-29T07:00:00.000000Z", paris, "2026-09-29T09:00:00+02:00"},
		{"2026-09-29T07:00:00.999999Z", time.UTC, "2026-09-29T07:00:00+00:00"},
		{"2026-09-29T07:00:00Z", paris, "2026-09-29T07:00:00Z"},
		{"2026-09-29", paris, "2026-09-29"},
		{"", paris, ""},
	}
	for _, tt := range tests {
		if got := Local(tt.in, tt.loc); got != tt.want {
			t.Errorf("Local(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestItemPresent(t *testing.T) {
	paris := time.FixedZone("CEST", 2*3600)
	note := Item{Kind: KindNote, Ref: "projects/a.md", Date: "2026-09-20", Time: "2026-09-19T22:00:00.000000Z",
		Relations: []Claim{{Origin: "o", Subject: "s", Target: "t", Time: "2026-09-19T22:00:00.000000Z"}}}
	note.Present(paris)
	rec := Item{Kind: KindRecord, Ref: "mail:1", Time: "2026-09-12T07:00:00.000000Z",
		Observed: "2026-09-12T08:04:11.000000Z", Updated: "2026-09-12T10:00:00.000000Z"}
	rec.Present(paris)
	got := []string{mustJSON(t, note), mustJSON(t, rec)}
	want := []string{
		`{"date":"2026-09-20","kind":"note","ref":"projects/a.md","relations":[{"origin":"o","subject":"s","target":"t","time":"2026-09-20T00:00:00+02:00"}]}`,
		`{"kind":"record","observed":"2026-09-12T10:04:11+02:00","ref":"mail:1","time":"2026-09-12T09:00:00+02:00","updated":"2026-09-12T12:00:00+02:00"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("presented (-want +got):\n%s", diff)
	}
}

func TestItemKeysSorted(t *testing.T) {
	it := Item{
		Also: []string{"a"}, Brain: "b", Date: "d", Excerpt: "e", Fields: map[string]json.RawMessage{"f": json.RawMessage(`1`)},
		Kind: "k", Modified: "m", NewLinks: 1, Newer: []string{"n"}, Next: "nx", Observed: "o", Partial: true, Ref: "r",
		Relation: "rl", Relations: []Claim{{Brain: "b", Date: "d", Origin: "o", Relation: "r", Subject: "s", Target: "t",
			TargetRef: "tr", TargetTitle: "tt", Time: "ti"}}, RelationsTruncated: true, Review: true, ReviewDue: "rd",
		ReviewReasons: []string{"due"}, ReviewSource: "rs", Sections: []string{"s"}, Source: "so", Status: "st",
		Tasks: &Tasks{Done: 1, Open: 2}, Time: "t", Title: "ti", Type: "ty", Updated: "u", URI: "ur", URL: "url",
	}
	cov := Coverage{Brain: "b", Failed: true, Freshness: "f", LastCollected: "l", Latest: "la", Mode: "m", Page: "p",
		Records: new(int), Source: "s", State: "st", Window: &Window{Since: "a", Until: "b"}}
	for _, v := range []any{it, cov, Problem{Brain: "b", Error: "e", File: "f"}} {
		assertSortedKeys(t, mustJSON(t, v))
	}
}

// assertSortedKeys checks that every object in a JSON document lists its keys in order.
func assertSortedKeys(t *testing.T, doc string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	type frame struct {
		object bool
		last   string
		key    bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, key: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
				if v <= stack[n-1].last {
					t.Errorf("key %q after %q in %s", v, stack[n-1].last, doc)
				}
				stack[n-1].last = v
				stack[n-1].key = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
}

func TestAddressed(t *testing.T) {
	it := Item{Brain: "work", Kind: KindNote, Ref: "projects/a b.md#decision",
		Also: []string{"mail:id#1?x"}, Newer: []string{"projects/a.md"},
		Sections: []string{"projects/a b.md#next-actions", "projects/x#y.md#plan"}}
	got := it.Addressed()
	want := Item{Brain: "work", Kind: KindNote, Ref: "projects/a b.md#decision",
		Also: []string{"bf://work/mail:id%231%3Fx"}, Newer: []string{"bf://work/projects/a.md"},
		Sections: []string{"bf://work/projects/a%20b.md#next-actions", "bf://work/projects/x%23y.md#plan"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Addressed (-want +got):\n%s", diff)
	}
	if got := (Item{Ref: "x", Sections: []string{"x#a"}}).Addressed(); got.Sections[0] != "x#a" {
		t.Errorf("an item without a brain changed: %v", got.Sections)
	}
	if got := SectionAddress("work", "projects/a.md", ""); got != "bf://work/projects/a.md" {
		t.Errorf("SectionAddress = %q", got)
	}
}

func TestProblems(t *testing.T) {
	var p Problems
	if p.List() != nil {
		t.Fatal("empty problems are not nil")
	}
	p.AddError("", "ambiguous")
	p.AddError("", "ambiguous")
	for i := 0; i < 203; i++ {
		p.Add(Problem{Brain: "work", File: fmt.Sprintf("projects/%03d.md", i), Error: "bad"})
	}
	p.Add(Problem{Brain: "home", File: "projects/x.md", Error: strings.Repeat("é", 600)})
	p.AddError("work", "inaccessible brain")
	got := p.List()
	if len(got) != 1+200+1+1+1 {
		t.Fatalf("%d problems", len(got))
	}
	if got[0] != (Problem{Error: "ambiguous"}) {
		t.Errorf("first = %+v", got[0])
	}
	if want := (Problem{Brain: "work", Error: "3 more files were skipped; run bf validate"}); got[201] != want {
		t.Errorf("count = %+v", got[201])
	}
	capped := got[202].Error
	if len(capped) > maxProblemBytes || !strings.HasSuffix(capped, "…") || !strings.HasPrefix(capped, "éé") {
		t.Errorf("capped error has %d bytes: %q…", len(capped), capped[:10])
	}
	if got[203] != (Problem{Brain: "work", Error: "inaccessible brain"}) {
		t.Errorf("last = %+v", got[203])
	}
}

func TestMarshal(t *testing.T) {
	b, err := Marshal(map[string]string{"a": "<&>\u0085\u200b\U000e0001é\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"<&>\u0085\u200b\udb40\udc01é\n"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	big := strings.Repeat("x", maxReply)
	if _, err := Encode(map[string]string{"a": big}); !errors.Is(err, errTooLarge) {
		t.Errorf("Encode of a large reply: %v", err)
	}
	if errTooLarge.Error() != "response exceeds its byte limit; narrow the request" {
		t.Errorf("ErrTooLarge = %q", errTooLarge)
	}
}

func TestFit(t *testing.T) {
	items := []Item{{Kind: "note", Ref: strings.Repeat("a", 100)}, {Kind: "note", Ref: strings.Repeat("b", 100)},
		{Kind: "note", Ref: strings.Repeat("c", 100)}}
	one := len(mustJSON(t, items[0])) + 1
	tests := []struct{ budget, want int }{
		{0, 1}, {one, 1}, {2*one - 1, 1}, {2 * one, 2}, {3 * one, 3}, {100000, 3},
	}
	for _, tt := range tests {
		n, err := FitItems(items, tt.budget)
		if err != nil || n != tt.want {
			t.Errorf("FitItems(budget %d) = %d, %v; want %d", tt.budget, n, err, tt.want)
		}
	}
	// Items count with their brain's addresses, as several brains print them.
	addr := []Item{{Brain: "w", Kind: "note", Ref: "a", Also: []string{"s:1"}}, {Brain: "w", Kind: "note", Ref: "b"}}
	size := len(mustJSON(t, addr[0].Addressed())) + 1
	if n, _ := FitItems(addr, size+len(mustJSON(t, addr[1]))); n != 1 {
		t.Errorf("addressed items measured as local ones")
	}
}

func TestOffsets(t *testing.T) {
	for _, o := range []int64{0, 1, MaxOffset} {
		if err := CheckOffset(o); err != nil {
			t.Errorf("CheckOffset(%d) = %v", o, err)
		}
	}
	for _, o := range []int64{-1, MaxOffset + 1} {
		if err := CheckOffset(o); err == nil || err.Error() != "expected an integer from 0 to 9007199254740991" {
			t.Errorf("CheckOffset(%d) = %v", o, err)
		}
	}
	if NextOffset(5, 3, false) != nil {
		t.Error("next offset without more")
	}
	if got := NextOffset(5, 3, true); got == nil || *got != 8 {
		t.Errorf("NextOffset = %v", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
