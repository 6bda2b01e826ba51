package watch

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/timestamp"
)

// The smallest terminal the dashboard draws on.
const (
	minWidth  = 80
	minHeight = 24
)

// errSmallTerminal is a terminal too small for the dashboard.
var errSmallTerminal = fmt.Errorf("the dashboard needs a terminal of at least %d×%d; use bf watch --json or bf status", minWidth, minHeight)

// action is what a key asks of the watcher behind a dashboard.
type action int

// Actions of keys.
const (
	actNone  action = iota
	actQuit         // stop and exit
	actCheck        // run a cycle now (observing: reread now)
	actPause        // Paused changed
)

// dash is the state of the interactive dashboard: the last status line, the clock it is
// shown at, the selected row and the modes. Render and Key are pure functions of it.
type dash struct {
	Line   Line
	Now    time.Time
	Cursor int
	Paused bool
	Help   bool
	// Observe is bf status --watch (or a second watcher): it runs nothing, so it has no
	// pause and its check rereads.
	Observe bool
	Width   int
	Height  int
}

// Key returns the dashboard after key k, and what the watcher must do. Keys are single
// characters, or up, down, home, end for those keys.
func (d dash) Key(k string) (dash, action) {
	if d.Help && k != "q" {
		d.Help = false
		return d, actNone
	}
	last := len(d.Line.Programs) - 1
	switch k {
	case "q":
		return d, actQuit
	case " ":
		if d.Observe {
			return d, actNone
		}
		d.Paused = !d.Paused
		return d, actPause
	case "u", "f":
		if d.Paused {
			return d, actNone
		}
		return d, actCheck
	case "j", "down":
		d.Cursor = min(d.Cursor+1, max(last, 0))
	case "k", "up":
		d.Cursor = max(d.Cursor-1, 0)
	case "g", "home":
		d.Cursor = 0
	case "G", "end":
		d.Cursor = max(last, 0)
	case "?":
		d.Help = true
	}
	return d, actNone
}

// dashHelp is the help screen.
var dashHelp = []string{
	"Keys",
	"",
	"  q          quit (a running cycle is stopped and recorded)",
	"  space      pause: no new cycle starts until pressed again",
	"  u          check now: start a cycle at once",
	"  j, down    next program",
	"  k, up      previous program",
	"  g, G       first, last program",
	"  ?          this help; any key closes it",
}

// Render draws the dashboard as Height lines at most, none wider than Width.
func (d dash) Render() []string {
	var out []string
	title := "bf watch " + d.Line.Brain
	if d.Observe {
		title = "bf status --watch " + d.Line.Brain
	}
	state := "idle"
	switch {
	case d.Line.Observe || d.Observe:
		state = "observing"
	case d.Line.Running:
		state = "running"
	case d.Paused:
		state = "paused"
	}
	out = append(out, fmt.Sprintf("%s — %s, %d cycles", title, state, d.Line.Cycles), "")
	if d.Help {
		out = append(out, dashHelp...)
		return d.fit(out)
	}
	out = append(out, fmt.Sprintf("  %-18s %-9s %-9s %-8s %-9s %7s  %s", "NAME", "KIND", "STATE", "LAST OK", "NEXT DUE", "ITEMS", "CHANGES"))
	rows := max(d.Height-7, 1)
	first := 0
	if d.Cursor >= rows {
		first = d.Cursor - rows + 1
	}
	for i := first; i < len(d.Line.Programs) && i < first+rows; i++ {
		p := d.Line.Programs[i]
		mark := " "
		if i == d.Cursor {
			mark = ">"
		}
		state := p.Status
		if p.Unresolved > 0 {
			state += fmt.Sprintf("(%d)", p.Unresolved)
		}
		out = append(out, fmt.Sprintf("%s %-18s %-9s %-9s %-8s %-9s %7s  %s", mark, clip(p.Name, 18), p.Kind, state,
			age(d.Now, p.Success), due(d.Now, p.NextDue), count(p.Records), changes(p)))
	}
	if len(d.Line.Programs) == 0 {
		out = append(out, "  (no sensors, routines or assistants in bf.yaml)")
	}
	out = append(out, "")
	detail := d.Line.Message
	if d.Cursor < len(d.Line.Programs) {
		if p := d.Line.Programs[d.Cursor]; p.Error != "" {
			detail = p.Name + ": " + p.Error
		}
	}
	if detail != "" {
		out = append(out, detail)
	}
	keys := "q quit · space pause · u check now · j/k move · ? help"
	if d.Observe {
		keys = "q quit · u reread now · j/k move · ? help"
	}
	out = append(out, keys)
	return d.fit(out)
}

// fit cuts the lines to the terminal: at most Height lines of at most Width characters,
// the last line (the keys) kept.
func (d dash) fit(lines []string) []string {
	if d.Height > 0 && len(lines) > d.Height {
		lines = append(lines[:d.Height-1:d.Height-1], lines[len(lines)-1])
	}
	for i, l := range lines {
		lines[i] = clip(printable(l), d.Width)
	}
	return lines
}

// clip cuts s to n characters, ending in "…" when cut; n <= 0 keeps it whole.
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// printable replaces control characters, which a program's error could hold.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// age is how long ago instant was, shortly: 45s, 12m, 3h, 2d; "-" when never.
func age(now time.Time, instant string) string {
	t, err := timestamp.Parse(instant)
	if instant == "" || err != nil {
		return "-"
	}
	return short(now.Sub(t)) + " ago"
}

// due is when instant comes: "now" once passed, else "in 5m"; "-" when none.
func due(now time.Time, instant string) string {
	t, err := timestamp.Parse(instant)
	if instant == "" || err != nil {
		return "-"
	}
	if !now.Before(t) {
		return "now"
	}
	return "in " + short(t.Sub(now))
}

func short(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

func count(n *int) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

// changes is the last run's +added ~updated -removed, or "-".
func changes(p Program) string {
	if p.Added == nil && p.Updated == nil && p.Removed == nil {
		return "-"
	}
	return fmt.Sprintf("+%s ~%s -%s", count(p.Added), count(p.Updated), count(p.Removed))
}
