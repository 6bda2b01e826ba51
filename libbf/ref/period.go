package ref

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/timestamp"
)

// ErrInvalidPeriod is wrapped by every period error, for errors.Is.
var ErrInvalidPeriod = errors.New("invalid period")

// PeriodKind tells how a period was written, which decides its neighbours.
type PeriodKind int

const (
	// PeriodDay is one local calendar day: today, yesterday or YYYY-MM-DD.
	PeriodDay PeriodKind = iota + 1
	// periodMonth is one local calendar month: YYYY-MM.
	periodMonth
	// periodRange is an inclusive range of local days: YYYY-MM-DD..YYYY-MM-DD.
	periodRange
	// PeriodWindow is a trailing window ending now: 12h, 7d, 2w.
	PeriodWindow
)

// Period is the half-open interval [Start, End) a period ref names. Name is the ref as
// written. Calendar periods start and end at local midnights, so a day across a daylight
// saving change lasts 23 or 25 hours.
type Period struct {
	Start, End time.Time
	Name       string
	Kind       PeriodKind
}

var periodShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:today|yesterday|[0-9]{4}-[0-9]{2}(?:-[0-9]{2}(?:\.\.[0-9]{4}-[0-9]{2}-[0-9]{2})?)?|[0-9]{1,5}[hdw])$`)
})

// IsPeriod reports whether s has the shape of a period, even a wrong date like 2026-13:
// such a ref is a period page that names nothing, never a file or an entity.
func IsPeriod(s string) bool { return len(s) <= 22 && periodShape().MatchString(s) }

// ParsePeriod reads a period ref in loc (nil means time.Local). Days and months are
// local calendar units; trailing windows count exact hours back from now (a week is
// 168 hours), as they measure recency rather than calendar days.
func ParsePeriod(s string, now time.Time, loc *time.Location) (Period, error) {
	if loc == nil {
		loc = time.Local
	}
	if !IsPeriod(s) {
		return Period{}, fmt.Errorf("%w: expected today, yesterday, YYYY-MM-DD, YYYY-MM, YYYY-MM-DD..YYYY-MM-DD or a window such as 12h, 7d or 2w", ErrInvalidPeriod)
	}
	bad := func() error { return fmt.Errorf("%w: %s", ErrInvalidPeriod, s) }
	switch {
	case s == "today" || s == "yesterday":
		y, m, d := now.In(loc).Date()
		if s == "yesterday" {
			d--
		}
		return days(time.Date(y, m, d, 0, 0, 0, 0, loc), 1, s, PeriodDay), nil
	case len(s) == 7: // YYYY-MM
		first, err := timestamp.ParseDay(s+"-01", loc)
		if err != nil {
			return Period{}, bad()
		}
		return Period{Start: first, End: first.AddDate(0, 1, 0), Name: s, Kind: periodMonth}, nil
	case len(s) == 10: // YYYY-MM-DD
		day, err := timestamp.ParseDay(s, loc)
		if err != nil {
			return Period{}, bad()
		}
		return days(day, 1, s, PeriodDay), nil
	case len(s) == 22: // YYYY-MM-DD..YYYY-MM-DD
		first, err1 := timestamp.ParseDay(s[:10], loc)
		last, err2 := timestamp.ParseDay(s[12:], loc)
		if err1 != nil || err2 != nil || last.Before(first) {
			return Period{}, bad()
		}
		return days(first, dayCount(first, last)+1, s, periodRange), nil
	}
	n, _ := strconv.Atoi(s[:len(s)-1])
	if n == 0 {
		return Period{}, bad()
	}
	// Seconds, not a Duration: 99999w is longer than the 292 years a Duration holds.
	unit := map[byte]int64{'h': 3600, 'd': 24 * 3600, 'w': 7 * 24 * 3600}[s[len(s)-1]]
	end := now.In(loc)
	start := time.Unix(end.Unix()-int64(n)*unit, int64(end.Nanosecond())).In(loc)
	return Period{Start: start, End: end, Name: s, Kind: PeriodWindow}, nil
}

// Previous returns the period just before p: the day before a day (so today's previous
// is yesterday, named by its date), the month before a month, and for a range the
// same number of days ending the day before it. A trailing window has no neighbour:
// it always ends now, so there is nothing adjacent to name.
func (p Period) Previous() (Period, bool) { return p.shift(-1) }

// Next returns the period just after p, by the same rules as Previous. The next of today
// is tomorrow, a future day that may already hold scheduled items.
func (p Period) Next() (Period, bool) { return p.shift(1) }

func (p Period) shift(dir int) (Period, bool) {
	loc := p.Start.Location()
	y, m, d := p.Start.Date()
	var name string
	switch p.Kind {
	case PeriodDay:
		name = timestamp.Day(time.Date(y, m, d+dir, 0, 0, 0, 0, time.UTC))
	case periodMonth:
		name = time.Date(y, m+time.Month(dir), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
	case periodRange:
		first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		ey, em, ed := p.End.Date()
		n := dayCount(first, time.Date(ey, em, ed, 0, 0, 0, 0, time.UTC))
		from := first.AddDate(0, 0, dir*n)
		name = timestamp.Day(from) + ".." + timestamp.Day(from.AddDate(0, 0, n-1))
	default:
		return Period{}, false
	}
	q, err := ParsePeriod(name, p.Start, loc)
	return q, err == nil
}

// days is the period of n local days from start. Each bound is its own local midnight,
// never start plus n×24h.
func days(start time.Time, n int, name string, kind PeriodKind) Period {
	y, m, d := start.Date()
	end := time.Date(y, m, d+n, 0, 0, 0, 0, start.Location())
	return Period{Start: start, End: end, Name: name, Kind: kind}
}

// dayCount counts calendar days from a to b, whatever their zone's day lengths.
func dayCount(a, b time.Time) int {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	// Seconds, not a Duration: a Duration saturates after 292 years.
	secs := time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC).Unix() - time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC).Unix()
	return int(secs / 86400)
}
