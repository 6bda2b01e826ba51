// Package proc is the one way bf runs a program a brain declares: sensors, routines,
// channel commands and assistant harnesses.
//
// A program runs from its argv, never through a shell, with the brain root as working
// directory, in its own process group, with an environment stripped of variables that
// inject code into interpreters. Whatever it prints is untrusted: stdout is bounded while it
// is read, stderr goes to the brain's logs/NAME.log, and no error message ever quotes
// either; errors point at the log instead.
//
// The group is killed with SIGKILL on timeout, cancellation and output overflow, and always
// once the leader has exited, because helpers it started may still hold pipes or run on.
// A run ends when the leader has exited and stdout has closed; a helper that keeps stdout
// open for more than a second after the leader exits fails the run.
//
// Each run adds one entry to its log: a line "== TIME OUTCOME ==" (TIME is when the run
// ended, in canonical UTC) followed by the newest 256 KiB of its stderr. Long-lived programs
// started with Spawn write their stderr first and close the entry with
// "== TIME OUTCOME after N.Ns ==". A log keeps its newest whole entries within 1 MiB.
package proc

import (
	"context"
	"errors"
	"time"

	"github.com/bfgo/bf/libbf/config"
)

// Spec describes one run of a declared program.
type Spec struct {
	Name      string         // program name; its log is logs/NAME.log under Root
	Root      string         // absolute brain root: working directory, {{brain}}, base of relative program paths and {{lines:FILE}}
	Command   config.Command // argv as declared, before expansion
	Vars      Vars           // placeholder values
	Stdin     []byte         // Run only; nil: stdin is /dev/null
	Timeout   time.Duration  // whole-run limit; 0: none (Spawn only; Run requires one)
	MaxBytes  int64          // stdout cap, enforced while reading; Run requires one, Spawn: 0 is none
	Env       []string       // KEY=VALUE added after scrubbing (e.g. BF_BRAIN); overrides inherited keys
	LogStdout bool           // Run only: also append stdout to the log (log routines)
	Role      string         // Spawn: what the log calls the program when it ends on its own ("adapter"); default "program"
	// Started, when set, is called with the leader's process ID, which is also the ID of
	// the program's process group, as soon as the program has started. A caller records it
	// so a group that outlives a killed bf is still recognised as running.
	Started func(pgid int)
}

// Result is a successful run.
type Result struct {
	Stdout  []byte
	Elapsed time.Duration
	LogErr  error // the run succeeded but its log entry could not be written
}

// Run runs a program to its end and returns its stdout. Every failure is an *Error.
func Run(ctx context.Context, s Spec) (*Result, error) {
	switch {
	case s.MaxBytes <= 0:
		return nil, &Error{Kind: Args, Program: s.Name, Err: errors.New("max_bytes must be positive")}
	case s.Timeout <= 0:
		return nil, &Error{Kind: Args, Program: s.Name, Err: errors.New("timeout must be positive")}
	}
	p, err := start(ctx, s, false)
	if err != nil {
		return nil, err
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return &Result{Stdout: p.out.Bytes(), Elapsed: p.ended.Sub(p.started), LogErr: p.logErr}, nil
}
