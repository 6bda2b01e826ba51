package fuse

import (
	"context"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/cache"
)

// The graph walk's statements over a whole brain seek their rows: SQLite's planner, left
// free, once scanned every name against a Bloom filter of the link targets, and the
// supersedes edges were read by scanning an index of every edge.
func TestGraphStatementsSeek(t *testing.T) {
	b := newBrain(t, fixture)
	c, tx, err := cache.Snapshot(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer tx.Rollback()
	for name, q := range map[string]struct {
		sql  string
		args []any
	}{
		"owners":     {ownersSQL, []any{`["concepts/a.md", "person:email/dana@example.test"]`}},
		"supersedes": {supersedesSQL, nil},
	} {
		rows, err := tx.Query("EXPLAIN QUERY PLAN "+q.sql, q.args...)
		if err != nil {
			t.Fatal(name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		// Only the list of values, the few unreviewed items and the index of the supersedes
		// edges alone may be read whole.
		for _, step := range plan {
			if !strings.HasPrefix(step, "SCAN ") {
				continue
			}
			switch {
			case strings.HasPrefix(step, "SCAN json_each"), step == "SCAN t", step == "SCAN reviews",
				strings.HasSuffix(step, " INDEX edges_supersedes"):
			default:
				t.Errorf("%s scans more than it needs: %s", name, strings.Join(plan, " | "))
			}
		}
	}
}
