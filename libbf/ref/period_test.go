package ref

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // DST tests must not depend on the machine's zone database.

	"github.com/google/go-cmp/cmp"
)

func paris(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParsePeriod(t *testing.T) {
	loc := paris(t)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// 22:30 UTC on 29 March 2026 is already 30 March in Paris (UTC+2 since that morning).
	now := at("2026-03-29T22:30:00Z")
	for _, tc := range []struct {
		in    string
		want  Period
		hours float64
	}{
		{"today", Period{at("2026-03-30T00:00:00+02:00"), at("2026-03-31T00:00:00+02:00"), "today", PeriodDay}, 24},
		{"yesterday", Period{at("2026-03-29T00:00:00+01:00"), at("2026-03-30T00:00:00+02:00"), "yesterday", PeriodDay}, 23},
		{"2026-03-29", Period{at("2026-03-29T00:00:00+01:00"), at("2026-03-30T00:00:00+02:00"), "2026-03-29", PeriodDay}, 23},
		{"2026-10-25", Period{at("2026-10-25T00:00:00+02:00"), at("2026-10-26T00:00:00+01:00"), "2026-10-25", PeriodDay}, 25},
		{"2026-09-27", Period{at("2026-09-27T00:00:00+02:00"), at("2026-09-28T00:00:00+02:00"), "2026-09-27", PeriodDay}, 24},
		{"2024-02-29", Period{at("2024-02-29T00:00:00+01:00"), at("2024-03-01T00:00:00+01:00"), "2024-02-29", PeriodDay}, 24},
		{"2026-03", Period{at("2026-03-01T00:00:00+01:00"), at("2026-04-01T00:00:00+02:00"), "2026-03", periodMonth}, 31*24 - 1},
		{"2026-10", Period{at("2026-10-01T00:00:00+02:00"), at("2026-11-01T00:00:00+01:00"), "2026-10", periodMonth}, 31*24 + 1},
		{"2026-12", Period{at("2026-12-01T00:00:00+01:00"), at("2027-01-01T00:00:00+01:00"), "2026-12", periodMonth}, 31 * 24},
		{"2026-02", Period{at("2026-02-01T00:00:00+01:00"), at("2026-03-01T00:00:00+01:00"), "2026-02", periodMonth}, 28 * 24},
		{"2026-09-21..2026-09-25", Period{at("2026-09-21T00:00:00+02:00"), at("2026-09-26T00:00:00+02:00"), "2026-09-21..2026-09-25", periodRange}, 5 * 24},
		{"2026-03-28..2026-03-29", Period{at("2026-03-28T00:00:00+01:00"), at("2026-03-30T00:00:00+02:00"), "2026-03-28..2026-03-29", periodRange}, 47},
		{"2026-09-27..2026-09-27", Period{at("2026-09-27T00:00:00+02:00"), at("2026-09-28T00:00:00+02:00"), "2026-09-27..2026-09-27", periodRange}, 24},
		{"2025-12-31..2026-01-01", Period{at("2025-12-31T00:00:00+01:00"), at("2026-01-02T00:00:00+01:00"), "2025-12-31..2026-01-01", periodRange}, 48},
		// Trailing windows are exact durations ending now, across the DST change too.
		{"12h", Period{at("2026-03-29T10:30:00Z"), now, "12h", PeriodWindow}, 12},
		{"7d", Period{at("2026-03-22T22:30:00Z"), now, "7d", PeriodWindow}, 7 * 24},
		{"2w", Period{at("2026-03-15T22:30:00Z"), now, "2w", PeriodWindow}, 14 * 24},
		{"1h", Period{at("2026-03-29T21:30:00Z"), now, "1h", PeriodWindow}, 1},
		{"007d", Period{at("2026-03-22T22:30:00Z"), now, "007d", PeriodWindow}, 7 * 24},
		{"99999h", Period{now.Add(-99999 * time.Hour), now, "99999h", PeriodWindow}, 99999},
		// Longer than a time.Duration can hold (about 292 years).
		{"99999w", Period{time.Unix(now.Unix()-99999*7*24*3600, 0), now, "99999w", PeriodWindow}, -1},
		{"0000-01-01..1000-01-10", Period{time.Date(0, 1, 1, 0, 0, 0, 0, loc), time.Date(1000, 1, 11, 0, 0, 0, 0, loc), "0000-01-01..1000-01-10", periodRange}, -1},
	} {
		got, err := ParsePeriod(tc.in, now, loc)
		if err != nil {
			t.Errorf("ParsePeriod(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParsePeriod(%q) (-want +got):\n%s", tc.in, diff)
		}
		if h := got.End.Sub(got.Start).Hours(); tc.hours >= 0 && h != tc.hours {
			t.Errorf("ParsePeriod(%q) lasts %vh, want %vh", tc.in, h, tc.hours)
		}
		if got.Start.Location() != loc {
			t.Errorf("ParsePeriod(%q) is in %v, want %v", tc.in, got.Start.Location(), loc)
		}
		if !IsPeriod(tc.in) {
			t.Errorf("IsPeriod(%q) = false", tc.in)
		}
	}
}

func TestParsePeriodRejects(t *testing.T) {
	now := time.Date(2026, 9, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in, msg string
		shape   bool
	}{
		{"2026-13", "invalid period: 2026-13", true},
		{"2026-00", "invalid period: 2026-00", true},
		{"2026-02-30", "invalid period: 2026-02-30", true},
		{"2026-02-29", "invalid period: 2026-02-29", true},
		{"2026-09-00", "invalid period: 2026-09-00", true},
		{"0001-01-01", "invalid period: 0001-01-01", true},
		{"9999-12-31", "invalid period: 9999-12-31", true},
		{"2026-09-25..2026-09-21", "invalid period: 2026-09-25..2026-09-21", true},
		{"2026-09-21..2026-09-31", "invalid period: 2026-09-21..2026-09-31", true},
		{"2026-13-01..2026-13-02", "invalid period: 2026-13-01..2026-13-02", true},
		{"0h", "invalid period: 0h", true},
		{"0d", "invalid period: 0d", true},
		{"00000w", "invalid period: 00000w", true},
		{"", "invalid period: expected today, yesterday, YYYY-MM-DD, YYYY-MM, YYYY-MM-DD..YYYY-MM-DD or a window such as 12h, 7d or 2w", false},
		{"Today", "", false},
		{"tomorrow", "", false},
		{"123456d", "", false},
		{"7m", "", false},
		{"7 d", "", false},
		{"-7d", "", false},
		{"2026", "", false},
		{"2026-9", "", false},
		{"2026-09-1", "", false},
		{"26-09-01", "", false},
		{"2026-09..2026-10", "", false},
		{"2026-09-21...2026-09-25", "", false},
		{"2026-09-21..", "", false},
		{"2026/09/21", "", false},
		{"today/", "", false},
		{" 7d", "", false},
		{"7d\n", "", false},
		{"２０２６-09", "", false},
	} {
		_, err := ParsePeriod(tc.in, now, time.UTC)
		if !errors.Is(err, ErrInvalidPeriod) {
			t.Errorf("ParsePeriod(%q) = %v, want ErrInvalidPeriod", tc.in, err)
		} else if tc.msg != "" && err.Error() != tc.msg {
			t.Errorf("ParsePeriod(%q) = %q, want %q", tc.in, err, tc.msg)
		}
		if IsPeriod(tc.in) != tc.shape {
			t.Errorf("IsPeriod(%q) = %v, want %v", tc.in, !tc.shape, tc.shape)
		}
	}
}

func TestParsePeriodNilLocation(t *testing.T) {
	now := time.Date(2026, 9, 27, 12, 0, 0, 0, time.UTC)
	got, err := ParsePeriod("2026-09-27", now, nil)
	if err != nil || got.Start.Location() != time.Local {
		t.Errorf("ParsePeriod with nil location = %+v, %v; want time.Local", got, err)
	}
}

func TestPeriodNeighbours(t *testing.T) {
	loc := paris(t)
	now := time.Date(2026, 3, 29, 22, 30, 0, 0, time.UTC) // 30 March in Paris
	for _, tc := range []struct {
		in, prev, next string // "" means none
	}{
		{"today", "2026-03-29", "2026-03-31"},
		{"yesterday", "2026-03-28", "2026-03-30"},
		{"2026-03-29", "2026-03-28", "2026-03-30"},
		{"2026-03-01", "2026-02-28", "2026-03-02"},
		{"2024-03-01", "2024-02-29", "2024-03-02"},
		{"2026-01-01", "2025-12-31", "2026-01-02"},
		{"2026-12-31", "2026-12-30", "2027-01-01"},
		{"2026-09", "2026-08", "2026-10"},
		{"2026-01", "2025-12", "2026-02"},
		{"2026-12", "2026-11", "2027-01"},
		{"2026-09-21..2026-09-25", "2026-09-16..2026-09-20", "2026-09-26..2026-09-30"},
		{"2026-09-27..2026-09-27", "2026-09-26..2026-09-26", "2026-09-28..2026-09-28"},
		{"2026-03-28..2026-03-29", "2026-03-26..2026-03-27", "2026-03-30..2026-03-31"},
		{"2026-02-27..2026-03-02", "2026-02-23..2026-02-26", "2026-03-03..2026-03-06"},
		{"2026-10-20..2026-10-30", "2026-10-09..2026-10-19", "2026-10-31..2026-11-10"},
		{"12h", "", ""},
		{"7d", "", ""},
		{"2w", "", ""},
		// Beyond the calendar bf reads there is no neighbour.
		{"9999-12-30", "9999-12-29", ""},
		{"0001-01-02", "", "0001-01-03"},
		{"9999-12", "9999-11", ""},
		{"9999-12-25..9999-12-30", "9999-12-19..9999-12-24", ""},
		{"0000-01-01..1000-01-10", "", "1000-01-11..2000-01-21"}, // 365,253 days each
	} {
		p, err := ParsePeriod(tc.in, now, loc)
		if err != nil {
			t.Fatalf("ParsePeriod(%q): %v", tc.in, err)
		}
		for _, side := range []struct {
			name string
			fn   func() (Period, bool)
			want string
		}{{"Previous", p.Previous, tc.prev}, {"Next", p.Next, tc.next}} {
			q, ok := side.fn()
			if side.want == "" {
				if ok {
					t.Errorf("%q.%s() = %q, want none", tc.in, side.name, q.Name)
				}
				continue
			}
			want, err := ParsePeriod(side.want, now, loc)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("%q.%s() = none, want %q", tc.in, side.name, side.want)
				continue
			}
			if diff := cmp.Diff(want, q); diff != "" {
				t.Errorf("%q.%s() (-want +got):\n%s", tc.in, side.name, diff)
			}
			// Neighbours touch: no gap, no overlap.
			if side.name == "Previous" && !q.End.Equal(p.Start) || side.name == "Next" && !q.Start.Equal(p.End) {
				t.Errorf("%q.%s() = [%v, %v) does not touch [%v, %v)", tc.in, side.name, q.Start, q.End, p.Start, p.End)
			}
		}
	}
}
