package pages

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// utc is a UTC instant on the given day, hour and minute of 2026.
func utc(month time.Month, day, hour, minute int) time.Time {
	return time.Date(2026, month, day, hour, minute, 0, 0, time.UTC)
}

// workBrain is the main fixture: projects in every review state, concepts, actions,
// records of a normal, a low-priority, a disabled and an undeclared source.
func workBrain(t *testing.T) *testBrain {
	t.Helper()
	b := newBrain(t, "work", "", map[string]string{
		"projects/atlas.md": "---\ntitle: Atlas\ntype: project\nstatus: stable\nupdated: 2026-09-20\n" +
			"tags: [infra, website]\nfields:\n  kind: service\n---\n# Atlas\n\nAtlas keeps retrieval offline.\n\n" +
			"## Next actions\n\n- [ ] Measure cold-cache latency\n- [x] Pick SQLite\n",
		"projects/beacon.md": "---\ntitle: Beacon\ntype: project\nupdated: 2026-09-27\n---\n# Beacon\n\n" +
			"Beacon follows the [budget thread](mail:m2).\n",
		"projects/calm.md": "---\ntitle: Calm\ntype: project\n---\n# Calm\n\nNothing new.\n",
		"projects/future.md": "---\ntitle: Future\ntype: project\nupdated: 2026-09-29\n---\n# Future\n\n" +
			"Planned for tomorrow.\n",
		"projects/old.md": "---\ntitle: Old\ntype: project\nstatus: deprecated\nupdated: 2026-09-26\n---\n# Old\n\n" +
			"No longer applies.\n\n- [ ] Forgotten task\n",
		"projects/index.md":    "# Projects\n\nThe index.\n",
		"projects/web/site.md": "---\ntitle: Site\ntype: project\nupdated: 2026-09-15\n---\n# Site\n\nThe site.\n",
		"concepts/retention.md": "---\ntitle: Retention\nupdated: 2026-09-27\nstale_after: 2026-09-25T00:00:00Z\n" +
			"tags: [website]\n---\n# Retention\n\nKeep records for a year; see [launch](../actions/2026-09-25_launch/ACTION.md).\n",
		"concepts/archive.md": "---\ntitle: Archive\n---\n# Archive\n\nWhere old things go.\n\n- [ ] Sort the archive\n",
		"actions/2026-09-25_launch/ACTION.md": "---\ntitle: Launch\nstatus: draft\nupdated: 2026-09-25\n---\n# Launch\n\n" +
			"Ship [Atlas](../../projects/atlas.md#next-actions) and [Beacon](bf://work/projects/beacon.md).\n\n" +
			"- [ ] Draft the announcement\n",
		"actions/2026-09-25_launch/inputs/brief.md":  "# Brief\n\nThe brief.\n",
		"actions/2026-09-25_launch/outputs/plan.txt": "plan\n",
		"actions/2026-09-20_kickoff/ACTION.md":       "---\ntitle: Kickoff\nupdated: 2026-09-20\n---\n# Kickoff\n\nWe started.\n",
	})
	b.Touch("projects/atlas.md", utc(9, 10, 10, 0))
	b.Touch("projects/beacon.md", utc(9, 27, 10, 0))
	b.Touch("projects/calm.md", utc(9, 27, 9, 0))
	b.Touch("projects/future.md", utc(10, 1, 0, 0))
	b.Touch("projects/web/site.md", utc(9, 27, 8, 0))
	b.Touch("concepts/retention.md", utc(9, 20, 0, 0))
	b.Touch("actions/2026-09-25_launch/ACTION.md", utc(9, 25, 16, 30))
	if err := os.Symlink("plan.txt", filepath.Join(b.Root, "actions/2026-09-25_launch/outputs/link.txt")); err != nil {
		t.Fatal(err)
	}
	b.Record("mail", "m1", `"title":"Atlas offline review","time":"2026-09-26T09:00:00.000000Z",`+
		`"links":["bf://work/projects/atlas.md"],"attributes":{"observed":"2026-09-26T10:00:00.000000Z"}`)
	b.Record("mail", "m2", `"title":"Budget thread","text":"The budget grew.","time":"2026-09-20T08:00:00.000000Z",`+
		`"attributes":{"updated":"2026-09-28T08:00:00.000000Z"}`)
	b.Record("mail", "m3", `"title":"Standup","time":"2026-09-28T07:00:00.000000Z","fields":{"kind":"meeting"}`)
	b.Record("mail", "m4", `"title":"Feed item","links":["bf://work/projects/calm.md"],`+
		`"attributes":{"observed":"2026-09-28T06:00:00.000000Z"}`)
	b.Record("mail", "m5", `"title":"Launch rehearsal","time":"2026-09-30T08:00:00.000000Z"`)
	b.Record("mail", "m6", `"title":"Loose note"`)
	b.Record("news", "n1", `"title":"Headline","time":"2026-09-28T05:00:00.000000Z"`)
	b.Record("news", "n2", `"title":"Tomorrow's headline","time":"2026-09-29T08:00:00.000000Z"`)
	b.Record("old", "o1", `"title":"Old mail","time":"2026-01-01T08:00:00.000000Z"`)
	b.Record("gone", "g1", `"title":"Gone source","time":"2026-09-01T08:00:00.000000Z"`)
	return b
}

// homeBrain is a second brain for several-brain pages.
func homeBrain(t *testing.T) *testBrain {
	t.Helper()
	b := newBrain(t, "home", "version: 8\nname: %s\nsensors:\n  mail:\n    command: [sensors/mail.sh]\n", map[string]string{
		"projects/hearth.md": "---\ntitle: Hearth\ntype: project\nupdated: 2026-09-26\ntags: [website]\n---\n# Hearth\n\n" +
			"Fix the chimney.\n\n- [ ] Call the roofer\n",
	})
	b.Touch("projects/hearth.md", utc(9, 1, 10, 0))
	b.Record("mail", "h1", `"title":"Roofer quote","time":"2026-09-28T08:00:00.000000Z","links":["bf://home/projects/hearth.md"]`)
	return b
}

// dstBrain holds items around the end of summer time in Paris, 2026-10-25.
func dstBrain(t *testing.T) *testBrain {
	t.Helper()
	b := newBrain(t, "dst", "version: 8\nname: %s\n", map[string]string{
		"concepts/fall.md": "---\ntitle: Fall back\nupdated: 2026-10-25\n---\n# Fall back\n\nClocks go back.\n",
		"concepts/next.md": "---\ntitle: Next day\nupdated: 2026-10-26\n---\n# Next day\n\nMonday.\n",
	})
	b.Record("log", "early", `"title":"Before midnight","time":"2026-10-25T22:30:00.000000Z"`)
	b.Record("log", "late", `"title":"After midnight","time":"2026-10-25T23:30:00.000000Z"`)
	b.Record("log", "dawn", `"title":"First hour","time":"2026-10-24T22:00:00.000000Z"`)
	return b
}
