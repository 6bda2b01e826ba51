package collect

import (
	"errors"
	"time"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// errTime is the reason a --since or --until value is invalid.
var errTime = errors.New("expected now, today, yesterday, a window such as 12h, 7d or 2w, YYYY-MM-DD or an ISO 8601 time with a timezone")

// ParseTime reads a --since or --until value at now, in loc (nil: time.Local): now;
// today or yesterday (that day's local midnight); a trailing window such as 12h, 7d or 2w
// (that long before now); YYYY-MM-DD (its local midnight); or an ISO 8601 instant with a
// timezone. Days and windows mean what they mean in period refs.
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if s == "now" {
		return now, nil
	}
	if ref.IsPeriod(s) {
		p, err := ref.ParsePeriod(s, now, loc)
		if err != nil || p.Kind != ref.PeriodDay && p.Kind != ref.PeriodWindow {
			return time.Time{}, errTime
		}
		return p.Start, nil
	}
	t, err := timestamp.Parse(s)
	if err != nil {
		return time.Time{}, errTime
	}
	return t, nil
}
