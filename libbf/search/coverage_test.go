package search

import (
	"context"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/timestamp"
)

// TestCoverageHistory checks that sources reflect this machine's run history. Freshness is
// judged against the real clock, so the recorded runs sit hours away from any threshold.
func TestCoverageHistory(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	b, _ := scopeBrain(t)
	dir, err := brain.System().BrainStateDir(b.Open().ID)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now().UTC().Truncate(time.Second)
	ok := clock.Add(-30 * time.Minute)
	late := clock.Add(-5 * time.Hour)
	record := func(name string, change func(history.Entry) history.Entry) {
		t.Helper()
		if _, err := history.Record(context.Background(), dir, history.Sensors, name, change); err != nil {
			t.Fatal(err)
		}
	}
	local := func(t time.Time) string { return timestamp.Local(t, zone) }

	// brief (refresh 3600) collected 30 minutes ago, then its next attempt failed.
	record("brief", func(e history.Entry) history.Entry {
		e = e.Succeed(history.Outcome{Started: ok, Start: ok.Add(-24 * time.Hour), End: ok})
		return e.Fail(ok.Add(10*time.Minute), "program timed out after 300s; nothing was written; see logs/brief.log", "logs/brief.log")
	})
	// old (disabled) collected long ago; news (manual) too.
	record("old", func(e history.Entry) history.Entry {
		return e.Succeed(history.Outcome{Started: late, Start: late.Add(-time.Hour), End: late})
	})
	record("news", func(e history.Entry) history.Entry {
		return e.Succeed(history.Outcome{Started: late, Start: late.Add(-time.Hour), End: late})
	})
	r := mustSearch(t, Request{Query: "zebra", Scope: "memories"}, b)
	want := `[{"failed":true,"freshness":"fresh","last_collected":"` + local(ok) + `","mode":"window","source":"brief","state":"active",` +
		`"window":{"since":"` + local(ok.Add(-24*time.Hour)) + `","until":"` + local(ok) + `"}},` +
		`{"freshness":"manual","last_collected":"` + local(late) + `","mode":"window","source":"news","state":"active",` +
		`"window":{"since":"` + local(late.Add(-time.Hour)) + `","until":"` + local(late) + `"}},` +
		`{"freshness":"unknown","last_collected":"` + local(late) + `","mode":"window","source":"old","state":"disabled",` +
		`"window":{"since":"` + local(late.Add(-time.Hour)) + `","until":"` + local(late) + `"}}]`
	if got := jsonOf(t, r.Sources); got != want {
		t.Errorf("sources with history\n got %s\nwant %s", got, want)
	}

	// A failed source needs attention and is listed although none of its records is
	// returned (the query matches a note only); an overdue one too; a fresh one is only
	// counted in sources_omitted.
	tests := []struct {
		name    string
		brief   func(history.Entry) history.Entry
		sources string
		omitted int
	}{
		{"failed", nil, `[{"failed":true,"freshness":"fresh","source":"brief"}]`, 2},
		{"overdue", func(history.Entry) history.Entry {
			return history.Entry{}.Succeed(history.Outcome{Started: late, Start: late.Add(-time.Hour), End: late})
		}, `[{"freshness":"overdue","source":"brief"}]`, 2},
		{"fresh", func(history.Entry) history.Entry {
			return history.Entry{}.Succeed(history.Outcome{Started: ok, Start: ok.Add(-time.Hour), End: ok})
		}, `[]`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.brief != nil {
				record("brief", tt.brief)
			}
			r := mustSearch(t, Request{Query: "other"}, b)
			type brief struct {
				Failed    bool   `json:"failed,omitempty"`
				Freshness string `json:"freshness"`
				Source    string `json:"source"`
			}
			got := []brief{}
			for _, c := range r.Sources {
				got = append(got, brief{c.Failed, c.Freshness, c.Source})
			}
			if s := jsonOf(t, got); s != tt.sources || r.SourcesOmitted != tt.omitted {
				t.Errorf("sources %s omitted %d, want %s omitted %d", s, r.SourcesOmitted, tt.sources, tt.omitted)
			}
		})
	}
}
