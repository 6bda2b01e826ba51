package note

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTasks(t *testing.T) {
	body := `---
type: project
---
# Plan

- [ ] Intro task
## Next actions

- [ ] Write the [rollback plan](../concepts/rollback.md#steps) *today*
- [x] Pick the **pilot** customer
- [X] Raise MAX_FILE_SIZE in ` + "`deploy_all.sh`" + ` and _docs_ #42 __init__
- [ ]	tab after box
  1. [ ] nested ordered
- [ ] wrapped
  second line
* [ ] ![logo](img/logo.png) and <https://x.test/a_b> and <dana@example.test>
- [ ] code ` + "`*kept* _as_ #is`" + ` stays
- [ ] \*escaped\* &amp; entity <kbd>K</kbd>

Not tasks:

- [] no space
- [ ]
- [y] other mark
- text [ ] later
- [ ]x glued
> - [ ] quoted
` + "```" + `
- [ ] fenced
` + "```" + `

    - [ ] indented code

- > [ ] quote inside item
- # [ ] heading first
- [ ] [^n] cites

[^n]: - [ ] inside a footnote
`
	n := mustParse(t, "projects/plan.md", body)
	type row struct {
		Line    int
		Done    bool
		Section string
		Text    string
		Raw     string
	}
	var got []row
	for _, tk := range n.Tasks {
		got = append(got, row{tk.Line, tk.Done, tk.Section, tk.Text, tk.Render(nil)})
	}
	want := []row{
		{6, false, "plan", "Intro task", "Intro task"},
		{9, false, "next-actions", "Write the [rollback plan] today",
			"Write the [rollback plan](../concepts/rollback.md#steps) today"},
		{10, true, "next-actions", "Pick the pilot customer", "Pick the pilot customer"},
		{11, true, "next-actions", "Raise MAX_FILE_SIZE in deploy_all.sh and docs 42 init",
			"Raise MAX_FILE_SIZE in deploy_all.sh and docs 42 init"},
		{12, false, "next-actions", "tab after box", "tab after box"},
		{13, false, "next-actions", "nested ordered", "nested ordered"},
		{14, false, "next-actions", "wrapped second line", "wrapped second line"},
		{16, false, "next-actions", "[logo] and [https://x.test/a_b] and [dana@example.test]",
			"![logo](img/logo.png) and [https://x.test/a_b](https://x.test/a_b) and [dana@example.test](mailto:dana@example.test)"},
		{17, false, "next-actions", "code *kept* _as_ #is stays", "code *kept* _as_ #is stays"},
		{18, false, "next-actions", "escaped & entity <kbd>K</kbd>", "escaped & entity <kbd>K</kbd>"},
		// "- # [ ] heading first" is a heading in a list item, so it opens a section.
		{36, false, "--heading-first", "[^n] cites", "[^n] cites"},
		{38, false, "--heading-first", "inside a footnote", "inside a footnote"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if !n.CountsTasks() {
		t.Errorf("a project counts its tasks")
	}
	resolved := n.Tasks[1].Render(func(dest string) string { return "concepts/rollback.md#steps" })
	if resolved != "Write the [rollback plan](concepts/rollback.md#steps) today" {
		t.Errorf("render = %q", resolved)
	}
}

func TestTaskTextCut(t *testing.T) {
	long := strings.Repeat("word ", 100)
	n := mustParse(t, "projects/a.md", "- [ ] "+long+"\n")
	got := n.Tasks[0].Text
	if len([]rune(got)) > maxTaskText || !strings.HasPrefix(got, "word word") || strings.HasSuffix(got, " ") {
		t.Errorf("text %d chars: %q", len([]rune(got)), got)
	}
	n = mustParse(t, "projects/a.md", "- [ ] "+strings.Repeat("é", 400)+"\n")
	if got := n.Tasks[0].Text; got != strings.Repeat("é", maxTaskText) {
		t.Errorf("cut by characters, got %d", len([]rune(got)))
	}
}

func TestCountsTasks(t *testing.T) {
	tests := []struct {
		path, body string
		want       bool
	}{
		{"projects/a.md", "- [ ] t\n", true},
		{"concepts/a.md", "---\ntype: person\n---\n- [ ] t\n", true},
		{"actions/2026-01-01_x/ACTION.md", "- [ ] t\n", true},
		{"projects/a.md", "---\nstatus: deprecated\n---\n- [ ] t\n", false},
		{"projects/index.md", "- [ ] t\n", false},
		{"projects/log.md", "- [ ] t\n", false},
		{"actions/2026-01-01_x/outputs/r.md", "- [ ] t\n", false},
	}
	for _, tt := range tests {
		n := mustParse(t, tt.path, tt.body)
		if n.CountsTasks() != tt.want || len(n.Tasks) != 1 {
			t.Errorf("%s %q: counts %v tasks %d", tt.path, tt.body, n.CountsTasks(), len(n.Tasks))
		}
	}
}

func TestStripMarkers(t *testing.T) {
	tests := map[string]string{
		"MAX_FILE_SIZE":   "MAX_FILE_SIZE",
		"a__b":            "a__b",
		"__init__":        "init",
		"_lead trail_":    "lead trail",
		"snake_ case":     "snake case",
		"# Heading **b**": " Heading b",
		"é_ü":             "é_ü",
	}
	for in, want := range tests {
		if got := stripMarkers(in); got != want {
			t.Errorf("stripMarkers(%q) = %q, want %q", in, got, want)
		}
	}
}
