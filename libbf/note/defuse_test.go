package note

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefuse(t *testing.T) {
	deep := strings.Repeat("> ", maxMarkers+1) + "x"
	ok := strings.Repeat("> ", maxMarkers) + "x"
	lines := []string{
		"plain",
		ok,
		deep,
		"  " + strings.Repeat("- ", maxMarkers+1) + "x",
		strings.Repeat("1. ", maxMarkers+1),
		strings.Repeat("[^a]: ", maxMarkers+1),
		strings.Repeat(" ", maxIndent) + "code",
		strings.Repeat(" ", maxIndent+1) + "code",
		strings.Repeat("\t", 17) + "- x",
	}
	defuse(lines)
	want := []string{
		"plain",
		ok,
		`\` + deep,
		"  " + `\` + strings.Repeat("- ", maxMarkers+1) + "x",
		`\` + strings.Repeat("1. ", maxMarkers+1),
		`\` + strings.Repeat("[^a]: ", maxMarkers+1),
		strings.Repeat(" ", maxIndent) + "code",
		strings.Repeat(" ", maxIndent) + "code",
		strings.Repeat(" ", maxIndent) + "- x",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("defuse (-want +got):\n%s", diff)
	}
}

// TestHostileNotes parses large pathological notes that once made parsing quadratic or
// worse (goldmark nesting, slug suffixes, section extents); a regression shows up as a
// test timeout.
func TestHostileNotes(t *testing.T) {
	const size = 1 << 18
	fill := func(p string) []byte { return []byte(strings.Repeat(p, size/len(p))) }
	var lists strings.Builder
	for i := 0; lists.Len() < size; i++ {
		lists.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	for name, data := range map[string][]byte{
		"one deep quote line": fill("> "),
		"one deep list line":  fill("- "),
		"indented lists":      []byte(lists.String()),
		"same headings":       fill("## A\n"),
		"empty h1s":           fill("#\n"),
		"anchored headings":   fill("## A {#a-1}\n## A\n"),
	} {
		n, err := Parse("projects/x.md", data, OKF)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "same headings" && n.Sections[len(n.Sections)-1].Slug != "a-"+strconv.Itoa(len(n.Sections)-1) {
			t.Errorf("%s: last slug %q", name, n.Sections[len(n.Sections)-1].Slug)
		}
	}
	// The deep line still reads as text.
	n := mustParse(t, "projects/x.md", "## H\n\n"+strings.Repeat("> ", 40)+"[a](b.md)\n")
	if len(n.Links) != 1 || n.Links[0].Section != "h" || n.Links[0].Line != 3 {
		t.Errorf("links %+v", n.Links)
	}
}
