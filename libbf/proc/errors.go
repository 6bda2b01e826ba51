package proc

import (
	"fmt"
	"strconv"
	"time"
)

// Kind says how a run failed.
type Kind int

const (
	// Start: the program exists on disk or on PATH but could not be started, or its file is
	// missing, a symbolic link, not a regular file or not executable.
	Start Kind = iota + 1
	// NotOnPath: a bare program name was not found on the scrubbed PATH.
	NotOnPath
	// Exit: the program ended on its own with a nonzero status or by a signal.
	Exit
	// timeout: the run outlived Spec.Timeout.
	timeout
	// overflow: stdout grew past Spec.MaxBytes.
	overflow
	// Canceled: the caller's context ended the run.
	Canceled
	// outputHeld: the program exited but something it started kept stdout open for more
	// than about a second.
	outputHeld
	// Args: the command or the Spec cannot be turned into a run (bad placeholder, a
	// {{lines:FILE}} problem, too many arguments, an invalid name or root).
	Args
	// stopped: a long-lived program was ended through Process.Kill or Process.Fail.
	stopped
)

var kindNames = map[Kind]string{
	Start: "start", NotOnPath: "not on PATH", Exit: "exit", timeout: "timeout",
	overflow: "overflow", Canceled: "canceled", outputHeld: "output held", Args: "args",
	stopped: "stopped",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "kind " + strconv.Itoa(int(k))
}

// Error describes a failed run. Its message never carries anything the program printed;
// it points at the program's log instead.
type Error struct {
	Kind    Kind
	Program string        // Spec.Name
	Exec    string        // command[0] as written, for start problems
	Status  int           // Exit: the exit status, or 128+N when killed by signal N
	Signal  string        // Exit: the signal that ended the program, such as "SIGSEGV"
	After   time.Duration // Timeout: the limit; otherwise how long the program ran
	Limit   int64         // Overflow: Spec.MaxBytes
	Log     string        // brain-relative log holding the run's stderr; empty if it could not be written
	LogErr  error         // why the log could not be written, if it could not
	Err     error         // the underlying cause, if any (context error, OS error, expansion error)

	hint string // start problems: what is wrong with the program file
}

func (e *Error) Error() string {
	see := ""
	if e.Log != "" {
		see = "; see " + e.Log
	}
	switch e.Kind {
	case Args:
		if e.Program == "" {
			return e.Err.Error()
		}
		return fmt.Sprintf("command of %s: %v", e.Program, e.Err)
	case NotOnPath:
		return fmt.Sprintf("%s is not on PATH; install it or correct the command of %s", e.Exec, e.Program)
	case Start:
		if e.hint != "" {
			return fmt.Sprintf("could not start %s: %s", e.Exec, e.hint)
		}
		return fmt.Sprintf("could not start %s%s; check its executable bit and interpreter", e.Exec, errnoText(e.Err))
	case Exit:
		if e.Signal != "" {
			return fmt.Sprintf("%s was killed by %s%s", e.Program, e.Signal, see)
		}
		return fmt.Sprintf("%s exited with status %d%s", e.Program, e.Status, see)
	case timeout:
		return fmt.Sprintf("%s timed out after %s%s", e.Program, seconds(e.After), see)
	case overflow:
		return fmt.Sprintf("%s printed more than %d bytes (max_bytes)%s", e.Program, e.Limit, see)
	case Canceled:
		return fmt.Sprintf("%s was canceled%s", e.Program, see)
	case outputHeld:
		return fmt.Sprintf("%s exited but a process it started kept its output open; make background helpers close stdout%s", e.Program, see)
	case stopped:
		return fmt.Sprintf("%s was stopped%s", e.Program, see)
	}
	return fmt.Sprintf("%s failed (%s)%s", e.Program, e.Kind, see)
}

func (e *Error) Unwrap() error { return e.Err }

// seconds prints a duration as whole seconds when it is one ("300s"), else with the
// fraction it has ("0.5s").
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
