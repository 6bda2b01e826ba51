package measure

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 20; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := Summarize(ds)
	if s.N != 20 || s.Median != 10.5 || s.P95 != 19 || s.Min != 1 || s.Max != 20 {
		t.Fatalf("Summarize = %+v", s)
	}
	if s := Summarize([]time.Duration{3 * time.Millisecond}); s.Median != 3 || s.P95 != 3 {
		t.Fatalf("one sample: %+v", s)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want string
	}{{4.321, "4.32 ms"}, {43.21, "43.2 ms"}, {432.1, "432 ms"}, {4321, "4.32 s"}, {43210, "43.2 s"}} {
		if got := Millis(c.ms); got != c.want {
			t.Errorf("Millis(%v) = %q, want %q", c.ms, got, c.want)
		}
	}
	if got := Bytes(3 << 20); got != "3.0 MiB" {
		t.Errorf("Bytes = %q", got)
	}
}
