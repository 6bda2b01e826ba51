package assist

import (
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/config"
)

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDue(t *testing.T) {
	paris := &config.Schedule{At: "08:00", Timezone: "Europe/Paris"}
	gap := &config.Schedule{At: "02:30", Timezone: "Europe/Paris"}
	late := &config.Schedule{At: "02:30", Timezone: "Europe/Paris"}
	weekdays := &config.Schedule{At: "09:00", Days: []string{"mon", "fri"}, Timezone: "UTC"}
	every := &config.Schedule{Every: 3600}
	for _, c := range []struct {
		name      string
		s         *config.Schedule
		last, now string
		want      string // "" not due
	}{
		{"every first", every, "", "2026-10-16T09:00:00Z", "2026-10-16T09:00:00Z"},
		{"every early", every, "2026-10-16T09:00:00Z", "2026-10-16T09:59:59Z", ""},
		{"every due", every, "2026-10-16T09:00:00Z", "2026-10-16T10:00:00Z", "2026-10-16T10:00:00Z"},
		{"at first sight", paris, "", "2026-10-16T09:00:00Z", ""},
		{"at before", paris, "2026-10-15T07:00:00Z", "2026-10-16T05:59:00Z", ""},
		{"at due", paris, "2026-10-15T07:00:00Z", "2026-10-16T06:00:00Z", "2026-10-16T06:00:00Z"},
		{"at done", paris, "2026-10-16T06:00:00Z", "2026-10-16T20:00:00Z", ""},
		{"at winter", paris, "2026-10-30T07:00:00Z", "2026-11-02T12:00:00Z", "2026-11-02T07:00:00Z"},
		{"at across DST end", paris, "2026-10-24T06:00:00Z", "2026-10-25T07:30:00Z", "2026-10-25T07:00:00Z"},
		{"spring gap", gap, "2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:00:00Z"},
		{"fall repeat first", late, "2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T00:30:00Z"},
		{"fall repeat once", late, "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", ""},
		{"days skip", weekdays, "2026-10-16T09:00:00Z", "2026-10-18T10:00:00Z", ""},
		{"days next", weekdays, "2026-10-16T09:00:00Z", "2026-10-19T09:00:00Z", "2026-10-19T09:00:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last time.Time
			if c.last != "" {
				last = at(t, c.last)
			}
			got, due := due(c.s, last, at(t, c.now))
			if c.want == "" {
				if due {
					t.Fatalf("due at %s, want not due", got.UTC())
				}
				return
			}
			if !due || !got.Equal(at(t, c.want)) {
				t.Fatalf("Due = %s, %v; want %s", got.UTC(), due, c.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	s := &config.Schedule{At: "08:00", Timezone: "Europe/Paris"}
	if got := Next(s, at(t, "2026-10-24T06:00:00Z")); !got.Equal(at(t, "2026-10-25T07:00:00Z")) {
		t.Fatalf("Next across the end of summer time = %s", got.UTC())
	}
}
