// Package progress draws the one progress line long work shows on a terminal: files done
// of the total, the rate and the time left, rewritten in place on stderr. Nothing is drawn
// when stderr is not a terminal, so logs, pipes and JSON output never see it.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// line is a progress line being drawn on W.
type line struct {
	W io.Writer
	// Label says what is done to the files: "indexing".
	Label string
	// Min is the total below which nothing is drawn: small work needs no progress.
	Min int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	start, drawn time.Time
	shown        bool
}

// Refresh is the Min of the refresh a search or read may do before answering: a few
// changed files need no progress line.
const Refresh = 200

// every is the shortest time between two redraws.
const every = 100 * time.Millisecond

// For returns a Report for w when w is a terminal, and nil otherwise.
func For(w io.Writer, label string, min int) func(done, total int) {
	if !isTerminal(w) {
		return nil
	}
	l := &line{W: w, Label: label, Min: min}
	return l.Report
}

// Report draws done of total: at the start, at most every 100 ms, and at the end, when the
// line is cleared.
func (l *line) Report(done, total int) {
	if total < l.Min || total <= 0 {
		return
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	t := now()
	if l.start.IsZero() {
		l.start = t
	}
	if done >= total {
		if l.shown {
			fmt.Fprint(l.W, "\r\033[K")
		}
		return
	}
	if l.shown && t.Sub(l.drawn) < every {
		return
	}
	fmt.Fprint(l.W, "\r"+format(l.Label, done, total, t.Sub(l.start))+"\033[K")
	l.shown, l.drawn = true, t
}

// format is the text of the line: "bf: indexing 1200/5000 files, 850 files/s, about 5s
// left", without rate and time left until they can be told.
func format(label string, done, total int, elapsed time.Duration) string {
	s := fmt.Sprintf("bf: %s %d/%d files", label, done, total)
	if done <= 0 || elapsed <= 0 {
		return s
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second))
	return s + fmt.Sprintf(", %.0f files/s, about %s left", rate, roundLeft(left))
}

// roundLeft rounds a time left to whole seconds, and to 10 seconds beyond a minute.
func roundLeft(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(10 * time.Second)
	}
	if d < time.Second {
		return time.Second
	}
	return d.Round(time.Second)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}
