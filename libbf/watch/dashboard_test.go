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
	{Kind: "sensor", Name: "mail", Status: statusFresh, Success: "2026-10-16T11:55:00.000000Z", NextDue: "2026-10-16T12:55:00.000000Z",
		Records: ip(12), Added: ip(2), Updated: ip(1), Removed: ip(0)},
	{Kind: "routine", Name: "digest", Status: statusFailed, Error: "routine digest failed: exited with status 1; see logs/digest.log",
		NextDue: "2026-10-16T11:59:00.000000Z"},
	{Kind: "assistant", Name: "helper", Status: statusFailed, Unresolved: 2, NextDue: "2026-10-18T12:00:00.000000Z"},
}}

func TestDashRender(t *testing.T) {
	cases := []struct {
		name string
		d    dash
		want string
	}{
		{"table", dash{Line: dashLine, Now: dashNow, Width: 80, Height: 24}, `
bf watch acme — idle, 3 cycles

  NAME               KIND      STATE     LAST OK  NEXT DUE    ITEMS  CHANGES
> mail               sensor    fresh     5m ago   in 55m         12  +2 ~1 -0
  digest             routine   failed    -        now             -  -
  helper             assistant failed(2) -        in 2d           -  -

q quit · space pause · u check now · j/k move · ? help`},
		{"selected row shows its error", dash{Line: dashLine, Now: dashNow, Cursor: 1, Paused: true, Width: 80, Height: 24}, `
bf watch acme — paused, 3 cycles

  NAME               KIND      STATE     LAST OK  NEXT DUE    ITEMS  CHANGES
  mail               sensor    fresh     5m ago   in 55m         12  +2 ~1 -0
> digest             routine   failed    -        now             -  -
  helper             assistant failed(2) -        in 2d           -  -

digest: routine digest failed: exited with status 1; see logs/digest.log
q quit · space pause · u check now · j/k move · ? help`},
		{"observer, narrow and short", dash{Line: Line{Brain: "acme", Cycles: 1, Message: "bf.yaml does not load\x1b[2J"}, Now: dashNow,
			Observe: true, Width: 40, Height: 7}, `
bf status --watch acme — observing, 1 c…

  NAME               KIND      STATE   …
  (no sensors, routines or assistants i…

bf.yaml does not load?[2J
q quit · u reread now · j/k move · ? he…`},
		{"help", dash{Line: dashLine, Now: dashNow, Help: true, Width: 80, Height: 24}, `
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
	base := dash{Line: dashLine, Width: 80, Height: 24}
	cases := []struct {
		name string
		d    dash
		keys []string
		want dash
		act  action
	}{
		{"quit", base, []string{"q"}, base, actQuit},
		{"down twice, then past the end", base, []string{"j", "down", "j"}, dash{Line: dashLine, Width: 80, Height: 24, Cursor: 2}, actNone},
		{"up stops at the top", dash{Line: dashLine, Cursor: 1}, []string{"k", "up"}, dash{Line: dashLine}, actNone},
		{"last and first", base, []string{"G"}, dash{Line: dashLine, Width: 80, Height: 24, Cursor: 2}, actNone},
		{"pause", base, []string{" "}, dash{Line: dashLine, Width: 80, Height: 24, Paused: true}, actPause},
		{"resume", dash{Paused: true}, []string{" "}, dash{}, actPause},
		{"check now", base, []string{"u"}, base, actCheck},
		{"no check while paused", dash{Paused: true}, []string{"u"}, dash{Paused: true}, actNone},
		{"an observer has no pause", dash{Observe: true}, []string{" "}, dash{Observe: true}, actNone},
		{"an observer rereads", dash{Observe: true}, []string{"u"}, dash{Observe: true}, actCheck},
		{"help opens", base, []string{"?"}, dash{Line: dashLine, Width: 80, Height: 24, Help: true}, actNone},
		{"any key closes help", dash{Help: true}, []string{"j"}, dash{}, actNone},
		{"q quits from help", dash{Help: true}, []string{"q"}, dash{Help: true}, actQuit},
		{"other keys do nothing", base, []string{"x"}, base, actNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, act := c.d, actNone
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
