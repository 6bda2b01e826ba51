package cli

import (
	"errors"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  time.Time // zero: the real time (no clock)
		err   string
	}{
		{value: ""},
		{value: "2026-01-01T09:30:00+02:00", want: time.Date(2026, 1, 1, 7, 30, 0, 0, time.UTC)},
		{value: "2026-01-01", err: "invalid input: BF_NOW: expected an ISO 8601 timestamp with its offset, such as 2026-01-01T09:00:00Z; fix it or unset BF_NOW"},
		{value: "yesterday", err: "invalid input: BF_NOW: expected an ISO 8601 timestamp with its offset, such as 2026-01-01T09:00:00Z; fix it or unset BF_NOW"},
	} {
		env := &Env{Getenv: func(k string) string {
			if k == clockVar {
				return tt.value
			}
			return ""
		}}
		now, err := env.Clock()
		if tt.err != "" {
			var u *UsageError
			if !errors.As(err, &u) || err.Error() != tt.err || now != nil {
				t.Errorf("%q: clock %v, error %v; want the refusal %q", tt.value, now != nil, err, tt.err)
			}
			continue
		}
		switch {
		case err != nil:
			t.Errorf("%q: %v", tt.value, err)
		case tt.want.IsZero() && now != nil:
			t.Errorf("%q: a pinned clock, want the real time", tt.value)
		case !tt.want.IsZero() && (now == nil || !now().Equal(tt.want)):
			t.Errorf("%q: clock not pinned at %v", tt.value, tt.want)
		}
	}
}
