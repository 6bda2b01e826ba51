package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ip(n int) *int { return &n }

var dashNow = time.Date(2026, 10, 16, 12, 0, 0, 0, time.UTC)

var dashLine = Line{Brain: "acme", Cycles: 3, Programs: []Program{
	{Kind: "sensor", Name: "mail", Status: StatusFresh, Success: "2026-10-16T11:55:00.000000Z", NextDue: "2026-10-16T12:55:00.000000Z",
		Records: ip(12), Added: ip(2), Updated: ip(1), Removed: ip(0)},
	{Kind: "routine", Name: "digest", Status: StatusFailed, Error: "routine digest failed: exited with status 1; see logs/digest.log",
		NextDue: "2026-10-16T11:59:00.000000Z"},
	{Kind: "assistant", Name: "helper", Status: StatusFailed, Unresolved: 2, NextDue: "2026-10-18T12:00:00.000000Z"},
}}

func TestDashRender(t *testing.T) {
	cases := []struct {
		name string
		d    Dash
		want string
	}{
		{"table", Dash{Line: dashLine, Now: dashNow, Width: 80, Height: 24}, `
bf watch acme — idle, 3 cycles

  NAME               KIND      STATE     LAST OK  NEXT DUE    ITEMS  CHANGES
> mail               sensor    fresh     5m ago   in 55m         12  +2 ~1 -0
  digest             routine   failed    -        now             -  -
  helper             assistant failed(2) -        in 2d           -  -

q quit · space pause · u check now · j/k move · ? help`},
		{"selected row shows its error", Dash{Line: dashLine, Now: dashNow, Cursor: 1, Paused: true, Width: 80, Height: 24}, `
bf watch acme — paused, 3 cycles

  NAME               KIND      STATE     LAST OK  NEXT DUE    ITEMS  CHANGES
  mail               sensor    fresh     5m ago   in 55m         12  +2 ~1 -0
> digest             routine   failed    -        now             -  -
  helper             assistant failed(2) -        in 2d           -  -

digest: routine digest failed: exited with status 1; see logs/digest.log
q quit · space pause · u check now · j/k move · ? help`},
		{"observer, narrow and short", Dash{Line: Line{Brain: "acme", Cycles: 1, Message: "bf.yaml does not load\x1b[2J"}, Now: dashNow,
			Observe: true, Width: 40, Height: 7}, `
bf status --watch acme — observing, 1 c…

  NAME               KIND      STATE   …
  (no sensors, routines or assistants i…

bf.yaml does not load?[2J
q quit · u reread now · j/k move · ? he…`},
		{"help", Dash{Line: dashLine, Now: dashNow, Help: true, Width: 80, Height: 24}, `
bf watch acme — idle, 3 cycles

Keys

  q          quit (a running cycle is stopped and recorded)
  space      pause: no new cycle starts until pressed again
  u          check now: start a cycle at once
  j, down    next program
  k, up      previous program
  g, G       first, last program
  ?          this help; any key closes it`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(c.d.Render(), "\n")
			if diff := cmp.Diff(strings.TrimPrefix(c.want, "\n"), got); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDashKeys(t *testing.T) {
	base := Dash{Line: dashLine, Width: 80, Height: 24}
	cases := []struct {
		name string
		d    Dash
		keys []string
		want Dash
		act  Action
	}{
		{"quit", base, []string{"q"}, base, ActQuit},
		{"down twice, then past the end", base, []string{"j", "down", "j"}, Dash{Line: dashLine, Width: 80, Height: 24, Cursor: 2}, ActNone},
		{"up stops at the top", Dash{Line: dashLine, Cursor: 1}, []string{"k", "up"}, Dash{Line: dashLine}, ActNone},
		{"last and first", base, []string{"G"}, Dash{Line: dashLine, Width: 80, Height: 24, Cursor: 2}, ActNone},
		{"pause", base, []string{" "}, Dash{Line: dashLine, Width: 80, Height: 24, Paused: true}, ActPause},
		{"resume", Dash{Paused: true}, []string{" "}, Dash{}, ActPause},
		{"check now", base, []string{"u"}, base, ActCheck},
		{"no check while paused", Dash{Paused: true}, []string{"u"}, Dash{Paused: true}, ActNone},
		{"an observer has no pause", Dash{Observe: true}, []string{" "}, Dash{Observe: true}, ActNone},
		{"an observer rereads", Dash{Observe: true}, []string{"u"}, Dash{Observe: true}, ActCheck},
		{"help opens", base, []string{"?"}, Dash{Line: dashLine, Width: 80, Height: 24, Help: true}, ActNone},
		{"any key closes help", Dash{Help: true}, []string{"j"}, Dash{}, ActNone},
		{"q quits from help", Dash{Help: true}, []string{"q"}, Dash{Help: true}, ActQuit},
		{"other keys do nothing", base, []string{"x"}, base, ActNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, act := c.d, ActNone
			for _, k := range c.keys {
				d, act = d.Key(k)
			}
			if diff := cmp.Diff(c.want, d); diff != "" || act != c.act {
				t.Errorf("action %d, want %d; dash (-want +got):\n%s", act, c.act, diff)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	got := Keys([]byte("jk \x1b[A\x1b[B\x1bOH\x1b[Fq?\x03\x1b[Z"))
	want := []string{"j", "k", " ", "up", "down", "home", "end", "q", "?"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}
