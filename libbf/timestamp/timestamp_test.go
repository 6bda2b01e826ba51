package timestamp

import (
	"errors"
	"testing"
	"time"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"2026-09-15T14:00:00Z", "2026-09-15T14:00:00.000000Z", nil},
		{"2026-09-15T14:00Z", "2026-09-15T14:00:00.000000Z", nil},
		{"2026-09-15 16:00:00+02:00", "2026-09-15T14:00:00.000000Z", nil},
		{"2026-10-20T09:00:00+0200", "2026-10-20T07:00:00.000000Z", nil},
		{"2026-10-20T09:00:00-05", "2026-10-20T14:00:00.000000Z", nil},
		{"2026-10-02T08:15:03.412Z", "2026-10-02T08:15:03.412000Z", nil},
		{"2026-10-02T08:15:03.4129999Z", "2026-10-02T08:15:03.412999Z", nil},
		{"2026-09-15T14:00:00", "", ErrNoZone},
		{"2026-09-15", "", errInvalid},
		{"2026-02-30T00:00:00Z", "", errInvalid},
		{"2026-09-15T24:00:00Z", "", errInvalid},
		{"2026-09-15T14:00:00+25:00", "", errInvalid},
		{"2026-09-15T14:00:00Zjunk", "", errInvalid},
		{"", "", errInvalid},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseDay(t *testing.T) {
	good := []string{"2026-09-27", "2024-02-29", "0002-01-01"}
	bad := []string{"2026-9-27", "2026-02-30", "2025-02-29", "0001-01-01", "9999-12-31", "2026-09-27T00:00", " 2026-09-27", "20260927"}
	for _, s := range good {
		d, err := ParseDay(s, time.UTC)
		if err != nil || Day(d) != s {
			t.Errorf("ParseDay(%q) = %v, %v", s, d, err)
		}
	}
	for _, s := range bad {
		if _, err := ParseDay(s, time.UTC); !errors.Is(err, errDay) {
			t.Errorf("ParseDay(%q) err = %v, want ErrDay", s, err)
		}
	}
}

func TestLocal(t *testing.T) {
	loc := time.FixedZone("", 2*3600)
	tm, _ := Parse("2026-09-29T07:00:00Z")
	if got := Local(tm, loc); got != "2026-09-29T09:00:00+02:00" {
		t.Errorf("Local = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2026-09-15T14:00:00Z", "2026-10-20T09:00:00+0200", "2026-10-02T08:15:03.412Z", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := Parse(s)
		if err != nil {
			return
		}
		// The canonical form must itself parse back to the same instant.
		back, err := Parse(Canonical(tm))
		if err != nil || !back.Equal(tm) {
			t.Fatalf("round trip of %q: %v %v", s, back, err)
		}
	})
}

func TestClockAndZone(t *testing.T) {
	fixed := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	if got := Clock(func() time.Time { return fixed }); !got.Equal(fixed) {
		t.Errorf("Clock(fixed) = %v", got)
	}
	before := time.Now()
	if got := Clock(nil); got.Before(before) {
		t.Errorf("Clock(nil) = %v, before the real time %v", got, before)
	}
	zone := time.FixedZone("CEST", 2*3600)
	if Zone(zone) != zone || Zone(nil) != time.Local {
		t.Error("Zone returns its zone, or time.Local for nil")
	}
}
