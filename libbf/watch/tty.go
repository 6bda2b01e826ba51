package watch

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// errNoTerminal is an interactive dashboard asked for without a terminal.
var errNoTerminal = errors.New("the dashboard needs a terminal; use bf watch --json or bf status")

// Interactive runs the watcher behind the dashboard on terminal in/out until q, Ctrl-C or
// ctx ends: opt's Lines, Paused and Check are set here; opt.Observe is kept (bf status
// --watch, or a second watcher). run is the watcher itself (Run, or Run as an observer
// when another watcher collects). The terminal is in raw mode meanwhile, with its signals
// kept, so Ctrl-C still stops everything.
func Interactive(ctx context.Context, in, out *os.File, opt Options, run func(context.Context, Options) error) error {
	w, h, err := term.GetSize(int(out.Fd()))
	if err != nil {
		return errNoTerminal
	}
	if w < minWidth || h < minHeight {
		return errSmallTerminal
	}
	restore, err := rawMode(in)
	if err != nil {
		return errNoTerminal
	}
	defer restore()
	io.WriteString(out, "\033[?25l")
	defer io.WriteString(out, "\033[?25h\r\n")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan Line, 1)
	check := make(chan struct{}, 1)
	var pause atomic.Bool
	opt.Lines = func(l Line) {
		select {
		case lines <- l:
		case <-ctx.Done():
		}
	}
	opt.Paused = pause.Load
	opt.Check = check
	done := make(chan error, 1)
	go func() { done <- run(ctx, opt) }()
	keys := make(chan string, 16)
	go readKeys(in, keys)

	d := dash{Now: time.Now(), Width: w, Height: h, Observe: opt.Observe}
	draw := func() {
		d.Width, d.Height, _ = term.GetSize(int(out.Fd()))
		io.WriteString(out, "\033[H\033[2J"+strings.Join(d.Render(), "\r\n"))
	}
	draw()
	for {
		select {
		case err := <-done:
			return err
		case l := <-lines:
			d.Line, d.Now = l, time.Now()
			if opt.Now != nil {
				d.Now = opt.Now()
			}
			d.Cursor = min(d.Cursor, max(len(l.Programs)-1, 0))
			draw()
		case k, ok := <-keys:
			if !ok {
				keys = nil
				continue
			}
			var act action
			d, act = d.Key(k)
			switch act {
			case actQuit:
				cancel()
				<-done
				return nil
			case actCheck:
				select {
				case check <- struct{}{}:
				default: // one check is queued already: presses coalesce
				}
			case actPause:
				pause.Store(d.Paused)
			}
			draw()
		}
	}
}

// readKeys sends the keys read from in: single characters, and up, down, home, end for
// their escape sequences. It ends when in does.
func readKeys(in io.Reader, keys chan<- string) {
	defer close(keys)
	buf := make([]byte, 64)
	for {
		n, err := in.Read(buf)
		for _, k := range Keys(buf[:n]) {
			keys <- k
		}
		if err != nil {
			return
		}
	}
}

// Keys decodes bytes read from a terminal into key names.
func Keys(b []byte) []string {
	var out []string
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b && i+2 < len(b) && (b[i+1] == '[' || b[i+1] == 'O') {
			name := map[byte]string{'A': "up", 'B': "down", 'H': "home", 'F': "end"}[b[i+2]]
			if name != "" {
				out = append(out, name)
			}
			i += 2
			continue
		}
		if b[i] >= 0x20 && b[i] < 0x7f {
			out = append(out, string(b[i]))
		}
	}
	return out
}

// Terminal returns stdin and stdout as files when both are terminals.
func Terminal(stdin io.Reader, stdout io.Writer) (*os.File, *os.File, bool) {
	in, iok := stdin.(*os.File)
	out, ook := stdout.(*os.File)
	if !iok || !ook {
		return nil, nil, false
	}
	return in, out, term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}
