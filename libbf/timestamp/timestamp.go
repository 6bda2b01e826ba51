// Package timestamp is the one place bf reads and writes instants and calendar days.
//
// Files and the cache keep instants in UTC with microseconds; replies show them with the
// machine's local offset to the second. Days are plain YYYY-MM-DD strings that must name a
// real calendar date.
package timestamp

import (
	"errors"
	"time"
)

// Layouts used when bf prints times.
const (
	canonicalLayout = "2006-01-02T15:04:05.000000Z"
	localLayout     = "2006-01-02T15:04:05-07:00"
	dayLayout       = "2006-01-02"
)

// Errors name the expected form, never the rejected value.
var (
	ErrNoZone  = errors.New("expected an ISO 8601 timestamp with a timezone")
	errInvalid = errors.New("expected an ISO 8601 timestamp")
	errDay     = errors.New("expected YYYY-MM-DD")
)

// Parse reads an ISO 8601 instant that carries a timezone: a date, `T` or a space, a time
// of HH:MM, HH:MM:SS or HH:MM:SS.fraction, then `Z` or an offset ±HH:MM, ±HHMM or ±HH.
// Fractions beyond microseconds are truncated, as the stored form keeps six digits.
func Parse(s string) (time.Time, error) {
	p := parser{s: s}
	y, mo, d, ok := p.date()
	if !ok || !p.oneOf("Tt ") {
		return time.Time{}, errInvalid
	}
	h, ok1 := p.digits(2)
	okColon := p.oneOf(":")
	mi, ok2 := p.digits(2)
	if !ok1 || !okColon || !ok2 {
		return time.Time{}, errInvalid
	}
	sec, nsec := 0, 0
	if p.peek(':') {
		p.i++
		var ok bool
		if sec, ok = p.digits(2); !ok {
			return time.Time{}, errInvalid
		}
		if p.peek('.') || p.peek(',') {
			p.i++
			start := p.i
			scale := 100000000
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				nsec += int(p.s[p.i]-'0') * scale
				scale /= 10
				p.i++
			}
			if p.i == start {
				return time.Time{}, errInvalid
			}
			nsec -= nsec % 1000
		}
	}
	if p.i == len(p.s) {
		return time.Time{}, ErrNoZone
	}
	var loc *time.Location
	switch c := p.s[p.i]; c {
	case 'Z', 'z':
		p.i++
		loc = time.UTC
	case '+', '-':
		p.i++
		oh, ok := p.digits(2)
		if !ok {
			return time.Time{}, errInvalid
		}
		om := 0
		if p.peek(':') {
			p.i++
			if om, ok = p.digits(2); !ok {
				return time.Time{}, errInvalid
			}
		} else if p.i < len(p.s) {
			if om, ok = p.digits(2); !ok {
				return time.Time{}, errInvalid
			}
		}
		if oh > 23 || om > 59 {
			return time.Time{}, errInvalid
		}
		off := oh*3600 + om*60
		if c == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	default:
		return time.Time{}, errInvalid
	}
	if p.i != len(p.s) || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, errInvalid
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nsec, loc)
	if t.Day() != d || t.Month() != time.Month(mo) {
		return time.Time{}, errInvalid
	}
	return t.UTC(), nil
}

// Canonical is the stored form: UTC with six fractional digits and a `Z`.
func Canonical(t time.Time) string { return t.UTC().Format(canonicalLayout) }

// Normalize parses s and returns its canonical stored form.
func Normalize(s string) (string, error) {
	t, err := Parse(s)
	if err != nil {
		return "", err
	}
	return Canonical(t), nil
}

// Local prints t with the machine's (or loc's) offset, to the second, as replies show instants.
func Local(t time.Time, loc *time.Location) string { return t.In(loc).Format(localLayout) }

// ParseDay reads a strict YYYY-MM-DD calendar day that round-trips. The sentinel days
// 0001-01-01 and 9999-12-31 are refused: they are placeholders, not meanings.
// The result is midnight of that day in loc.
func ParseDay(s string, loc *time.Location) (time.Time, error) {
	p := parser{s: s}
	y, m, d, ok := p.date()
	if !ok || p.i != len(s) {
		return time.Time{}, errDay
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
	if t.Format(dayLayout) != s || s == "0001-01-01" || s == "9999-12-31" {
		return time.Time{}, errDay
	}
	return t, nil
}

// Day prints the local calendar day of t.
func Day(t time.Time) string { return t.Format(dayLayout) }

type parser struct {
	s string
	i int
}

func (p *parser) date() (y, m, d int, ok bool) {
	var ok1, ok2, ok3 bool
	y, ok1 = p.digits(4)
	okA := p.oneOf("-")
	m, ok2 = p.digits(2)
	okB := p.oneOf("-")
	d, ok3 = p.digits(2)
	ok = ok1 && okA && ok2 && okB && ok3 && m >= 1 && m <= 12 && d >= 1 && d <= 31
	return
}

func (p *parser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

func (p *parser) oneOf(set string) bool {
	if p.i < len(p.s) {
		for j := 0; j < len(set); j++ {
			if p.s[p.i] == set[j] {
				p.i++
				return true
			}
		}
	}
	return false
}

func (p *parser) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Clock is the instant now returns, or the real time when now is nil: options leave their
// clock nil unless a test sets one.
func Clock(now func() time.Time) time.Time {
	if now == nil {
		return time.Now()
	}
	return now()
}

// Zone is loc, or the machine's zone when loc is nil: options leave their zone nil unless
// a caller or test sets one.
func Zone(loc *time.Location) *time.Location {
	if loc == nil {
		return time.Local
	}
	return loc
}
