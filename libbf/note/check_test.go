package note

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, path, body string
		want             []Problem
	}{
		{"valid project", "projects/a.md", "---\ntype: project\nstatus: draft\n---\n# A\n", nil},
		{"type required even with a folder default", "projects/a.md", "# A\n",
			[]Problem{{Field: "type", Message: "OKF concepts require a nonempty type in YAML frontmatter"}}},
		{"blank type", "actions/2026-01-01_x/ACTION.md", "---\ntype: ' '\n---\n",
			[]Problem{{Field: "type", Message: "OKF concepts require a nonempty type in YAML frontmatter"}}},
		{"status outside OKF", "concepts/a.md", "---\ntype: concept\nstatus: archived\n---\n",
			[]Problem{{Field: "status", Message: "OKF status must be draft, stable or deprecated"}}},
		{"empty status", "concepts/a.md", "---\ntype: concept\nstatus: ''\n---\n",
			[]Problem{{Field: "status", Message: "OKF status must be draft, stable or deprecated"}}},
		{"unclosed and anchors", "concepts/a.md", "---\ntype: concept\n## A {#x.md}\n## B {#b}\n## C {#b}\n",
			[]Problem{
				{Field: "frontmatter", Line: 1, Message: "unclosed frontmatter"},
				{Line: 3, Message: "explicit heading anchors cannot end in .md"},
				{Line: 5, Message: "duplicate explicit heading anchor"},
				{Field: "type", Message: "OKF concepts require a nonempty type in YAML frontmatter"},
			}},
		{"root index version", "concepts/index.md", "---\nokf_version: \"0.2\"\n---\n- [a](a.md)\n", nil},
		{"projects root index version", "projects/index.md", "---\nokf_version: \"0.2\"\n---\n", nil},
		{"root index other key", "projects/index.md", "---\nokf_version: \"0.2\"\ntitle: Projects\n---\n",
			[]Problem{{Field: "title", Message: "OKF index frontmatter permits only the bundle-root okf_version"}}},
		{"deeper index version", "concepts/tables/index.md", "---\nokf_version: \"0.2\"\n---\n",
			[]Problem{{Field: "okf_version", Message: "OKF index frontmatter permits only the bundle-root okf_version"}}},
		{"log", "projects/log.md", "# Log\n\n## 2026-09-12\n\n- did x\n\n### detail\n\n## 2026-9-13\n\n## 2026-02-30\n\n## Later\n",
			[]Problem{
				{Line: 9, Message: "OKF log dates must use YYYY-MM-DD"},
				{Line: 11, Message: "OKF log dates must use YYYY-MM-DD"},
				{Line: 13, Message: "OKF log dates must use YYYY-MM-DD"},
			}},
		{"log metadata", "concepts/log.md", "---\ntype: log\n---\n## 2026-09-12\n",
			[]Problem{{Message: "keep OKF update logs as dated Markdown, without concept metadata"}}},
		{"log empty block", "concepts/log.md", "---\n---\n## 2026-09-12 {#d}\n", nil},
		{"ordinary", "actions/2026-01-01_x/inputs/a.md", "## A {#x}\n## B {#x}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, tt.path, tt.body)
			if diff := cmp.Diff(tt.want, n.Check()); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			if n.Invalid() {
				t.Errorf("Check problems must not make the note invalid: %v", n.Problems)
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	if got := (Problem{Field: "title", Message: "expected a string"}).Error(); got != "title: expected a string" {
		t.Errorf("got %q", got)
	}
	if got := (Problem{Line: 3, Message: "duplicate explicit heading anchor"}).Error(); got != "duplicate explicit heading anchor" {
		t.Errorf("got %q", got)
	}
}
