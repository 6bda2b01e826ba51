package note

import (
	"github.com/bfgo/bf/libbf/compat"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompatBrain parses every note of the shared example brain and checks facts its
// retrieval suite depends on.
func TestCompatBrain(t *testing.T) {
	compatBrain := compat.Dir(t)
	notes := map[string]*Note{}
	err := filepath.WalkDir(compatBrain, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(compatBrain, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n, err := Parse(rel, data, KindOf(rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if n.Invalid() || len(n.Warnings) > 0 {
			t.Errorf("%s: problems %v warnings %v", rel, n.Problems, n.Warnings)
		}
		if rel != "README.md" && n.Check() != nil {
			t.Errorf("%s: check %v", rel, n.Check())
		}
		notes[rel] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) *Note {
		t.Helper()
		n := notes[p]
		if n == nil {
			t.Fatalf("%s not parsed", p)
		}
		return n
	}
	slugs := func(n *Note) []string {
		var out []string
		for _, s := range n.Sections {
			out = append(out, s.Slug)
		}
		return out
	}

	atlas := get("projects/atlas.md")
	if atlas.Title != "Atlas" || atlas.Type != "project" || atlas.Status != "draft" || atlas.Updated != "2026-09-12" {
		t.Errorf("atlas meta: %q %q %q %q", atlas.Title, atlas.Type, atlas.Status, atlas.Updated)
	}
	if diff := cmp.Diff([]string{"atlas", "decision", "budget", "next-actions"}, slugs(atlas)); diff != "" {
		t.Errorf("atlas slugs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"atlas", "retrieval"}, atlas.Meta.Tags); diff != "" {
		t.Errorf("atlas tags: %s", diff)
	}
	if diff := cmp.Diff([]string{"repo:example/atlas"}, atlas.Identities()); diff != "" {
		t.Errorf("atlas identities: %s", diff)
	}
	if diff := cmp.Diff([]Link{{Target: "meetings:offline", Line: 13, Section: "decision"}}, atlas.Links); diff != "" {
		t.Errorf("atlas links (-want +got):\n%s", diff)
	}
	budget, _ := atlas.Section("budget")
	if budget.Text != "The Atlas launch budget is 4200 credits." {
		t.Errorf("atlas budget text %q", budget.Text)
	}
	wantTasks := []Task{{Line: 21, Section: "next-actions", Text: "Measure cold-cache retrieval latency.",
		Spans: []Span{{Text: "Measure cold-cache retrieval latency."}}}}
	if diff := cmp.Diff(wantTasks, atlas.Tasks); diff != "" || !atlas.CountsTasks() {
		t.Errorf("atlas tasks (-want +got):\n%s", diff)
	}

	portfolio := get("projects/portfolio.md")
	if diff := cmp.Diff([]string{"portfolio-review", "orion", "budget", "vega", "budget-1"}, slugs(portfolio)); diff != "" {
		t.Errorf("portfolio slugs (-want +got):\n%s", diff)
	}
	b1, _ := portfolio.Section("budget-1")
	if got := portfolio.DisplayTitle(b1); got != "Portfolio review — Vega — Budget" {
		t.Errorf("display title %q", got)
	}
	if b1.Text != "Approved at 1300 credits for the survey." {
		t.Errorf("budget-1 text %q", b1.Text)
	}

	retention := get("concepts/retention.md")
	if retention.Title != "Retention" || !strings.HasPrefix(retention.Intro, "Keep original evidence") || len(retention.Sections) != 1 {
		t.Errorf("retention: %q %q %d", retention.Title, retention.Intro, len(retention.Sections))
	}
	glossary := get("concepts/glossary.md")
	if len(glossary.Sections) != 18 || glossary.Sections[7].Slug != "field-report" {
		t.Errorf("glossary sections %d", len(glossary.Sections))
	}

	handoff := get("actions/2026-09-16_atlas-handoff/ACTION.md")
	if handoff.Kind != OKF || handoff.Title != "Prepare the handoff" || handoff.Type != "action" {
		t.Errorf("handoff: %v %q %q", handoff.Kind, handoff.Title, handoff.Type)
	}
	if r, _ := handoff.Section("resume"); r == nil || r.Text != "Hand the Atlas next actions to the new owner." {
		t.Errorf("handoff resume %+v", r)
	}

	open := 0
	for _, n := range notes {
		for _, tk := range n.Tasks {
			if !tk.Done && n.CountsTasks() {
				open++
			}
		}
	}
	if open != 5 {
		t.Errorf("open tasks = %d, want 5", open)
	}
}
