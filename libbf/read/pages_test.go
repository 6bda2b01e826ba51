package read

import (
	"strings"
	"testing"
)

// Pages are delegated to package pages, with the brain of a bf:// address.
func TestPages(t *testing.T) {
	b := atlasBrain(t)
	b.Write("actions/2026-09-27_launch/ACTION.md", "---\nupdated: 2026-09-27\n---\n# Launch\n\nShip [Atlas](../../projects/atlas.md).\n")
	tests := []struct{ ref, want string }{
		{"tasks", `"page":"tasks"`},
		{"bf://work/tasks", `"page":"tasks"`},
		{"projects/", `"page":"projects"`},
		{"actions/2026-09-27_launch", `"ref":"actions/2026-09-27_launch/ACTION.md"`},
	}
	for _, tt := range tests {
		got := mustRun(t, Request{Ref: tt.ref}, b)
		if !strings.Contains(got, tt.want) {
			t.Errorf("read %q: %.300s", tt.ref, got)
		}
	}
	// An exact read of ACTION.md lists the folder's files and linked projects.
	b.Write("actions/2026-09-27_launch/inputs/brief.txt", "brief")
	got := mustRun(t, Request{Ref: "actions/2026-09-27_launch/ACTION.md"}, b)
	for _, want := range []string{`"files":["actions/2026-09-27_launch/inputs/brief.txt"]`,
		`"projects":[{"date":"2026-09-20","excerpt":"Atlas uses SQLite, see the stack.","kind":"note","ref":"projects/atlas.md","status":"stable","title":"Atlas","type":"project"}]`} {
		if !strings.Contains(got, want) {
			t.Errorf("ACTION.md read lacks %s: %s", want, got)
		}
	}
	// An action folder's relation page lists the backlinks of its ACTION.md.
	b.Write("concepts/after.md", "---\nupdated: 2026-09-28\n---\nAfter the [launch](../actions/2026-09-27_launch/ACTION.md).\n")
	got = mustRun(t, Request{Ref: "actions/2026-09-27_launch", Rel: "links"}, b)
	if !strings.Contains(got, `"ref":"concepts/after.md"`) || !strings.Contains(got, `"total":1`) {
		t.Errorf("action relation page: %s", got)
	}
}
