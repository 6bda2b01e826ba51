package assist

import (
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/config"
)

// ScheduleMark names the checkpoint of an assistant's schedule: the slot it last admitted.
func ScheduleMark(name, schedule string) string { return "schedule:" + name + ":" + schedule }

// due returns the slot of schedule s that is due at now, given last, the slot it last
// admitted (zero: never). An every schedule is due at once the first time, then every
// seconds after its last slot; its slot is now, so a long pause runs it once, not once per
// missed interval. An at schedule is due at the latest wall-clock occurrence after last
// and not after now; a schedule seen for the first time (last zero) is not due: its
// checkpoint starts at now, so adding a daily 08:00 schedule at 10:00 waits until the next
// morning.
func due(s *config.Schedule, last, now time.Time) (time.Time, bool) {
	if s.Every > 0 {
		if last.IsZero() || !now.Before(last.Add(time.Duration(s.Every)*time.Second)) {
			return now, true
		}
		return time.Time{}, false
	}
	if last.IsZero() {
		return time.Time{}, false
	}
	slot := previous(s, now)
	if slot.IsZero() || !slot.After(last) {
		return time.Time{}, false
	}
	return slot, true
}

// Next is the first slot of s strictly after t.
func Next(s *config.Schedule, t time.Time) time.Time {
	if s.Every > 0 {
		return t.Add(time.Duration(s.Every) * time.Second)
	}
	loc := zone(s)
	local := t.In(loc)
	for i := 0; i <= 8; i++ {
		day := time.Date(local.Year(), local.Month(), local.Day()+i, 12, 0, 0, 0, loc)
		if o, ok := occurrence(s, day, loc); ok && o.After(t) {
			return o
		}
	}
	return time.Time{}
}

// previous is the latest slot of at schedule s at or before t, within the past eight
// days; zero when none.
func previous(s *config.Schedule, t time.Time) time.Time {
	loc := zone(s)
	local := t.In(loc)
	for i := 0; i <= 8; i++ {
		day := time.Date(local.Year(), local.Month(), local.Day()-i, 12, 0, 0, 0, loc)
		if o, ok := occurrence(s, day, loc); ok && !o.After(t) {
			return o
		}
	}
	return time.Time{}
}

func zone(s *config.Schedule) *time.Location {
	if s.Timezone == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return time.Local
	}
	return loc
}

// occurrence is the instant at which the local clock of loc shows s.At on the day of
// noon, if s runs that weekday. A time the clocks skip (spring forward) runs at the first
// instant after the gap; a time they repeat (fall back) runs once, at its first
// occurrence.
func occurrence(s *config.Schedule, noon time.Time, loc *time.Location) (time.Time, bool) {
	if len(s.Days) > 0 && !slices.Contains(s.Days, config.Days[(int(noon.Weekday())+6)%7]) {
		return time.Time{}, false
	}
	hh := int(s.At[0]-'0')*10 + int(s.At[1]-'0')
	mm := int(s.At[3]-'0')*10 + int(s.At[4]-'0')
	t := time.Date(noon.Year(), noon.Month(), noon.Day(), hh, mm, 0, 0, loc)
	if l := t.In(loc); l.Hour() == hh && l.Minute() == mm {
		if e := t.Add(-time.Hour); e.In(loc).Hour() == hh && e.In(loc).Minute() == mm {
			return e, true // the first of a repeated hour
		}
		return t, true
	}
	// In a gap: walk from before it to the first instant the clock reaches hh:mm.
	want := hh*60 + mm
	for u := t.Add(-3 * time.Hour).Truncate(time.Minute); u.Before(t.Add(3 * time.Hour)); u = u.Add(time.Minute) {
		l := u.In(loc)
		if l.Day() == noon.Day() && l.Hour()*60+l.Minute() >= want {
			return u, true
		}
	}
	return t, true
}
