package queue

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error this package returns on purpose is an *Error whose
// Is matches one of them; its text is the sentence a user reads.
var (
	// errInvalid is invalid input: a malformed ID, an empty channel, an unknown outcome.
	errInvalid = errors.New("invalid input")
	// ErrNotFound is an ID that names no job or delivery.
	ErrNotFound = errors.New("not in the assistant queue")
	// errInterruptedWrite is a rollback journal left by a killed writer, seen by a reader
	// that may not roll it back.
	errInterruptedWrite = errors.New("interrupted write")
	// errOldFormat is a queue written by an earlier release.
	errOldFormat = errors.New("earlier queue format")
	// errUnknownFormat is a queue this build did not write.
	errUnknownFormat = errors.New("unexpected queue format")
	// ErrRebind is unresolved work admitted under another path or name of the brain.
	ErrRebind = errors.New("queue bound elsewhere")
	// errAdopt is a renumbered state folder that cannot be adopted without the user.
	errAdopt = errors.New("state folder not adopted")
	// ErrFull is a refused admission.
	ErrFull = errors.New("queue full")
	// ErrNoAnswerSpace is a job that cannot reserve its answer space yet.
	ErrNoAnswerSpace = errors.New("no answer space")
	// ErrInFlight is a job or delivery whose attempt is still running in a live process.
	ErrInFlight = errors.New("attempt in flight")
	// ErrConflict is a delivery ID reused for other content, or an ID naming another kind.
	ErrConflict = errors.New("ID conflict")
	// ErrState is an operation the item's state does not allow (retrying a delivered one…).
	ErrState = errors.New("not allowed in this state")
	// ErrConfigChanged is work whose snapshot of the configuration no longer matches.
	ErrConfigChanged = errors.New("configuration changed")
	// errNotDue is a delivery still waiting for its next retry.
	errNotDue = errors.New("not due")
	// errReadOnly is a write through a queue opened with OpenReadOnly.
	errReadOnly = errors.New("read-only queue")
)

// Sentences users read and scripts may match: keep them word for word.
const (
	msgInterruptedWrite = "assistant queue holds an interrupted write; run bf queue to recover it"
	msgOldFormat        = "assistant queue predates this release; preserve it and follow the upgrade steps in the changelog"
	msgUnknownFormat    = "unexpected assistant queue schema; preserve it and repair it"
	msgFull             = "assistant queue is full; finish, retry or cancel unfinished work before accepting more"
	msgNoAnswerSpace    = "assistant queue lacks answer space for this job; it waits until running work finishes"
	msgNoSavedSpace     = "assistant queue lacks space to record this saved answer; resolve other work first"
	msgJobRunning       = "job is still running; retry or cancel it once its attempt ends"
	msgDeliverySending  = "delivery is still being sent; retry or cancel it once its attempt ends"
	msgInterruptedSend  = "interrupted send; inspect before retrying"
	msgInterruptedRun   = "interrupted harness attempt; inspect before retrying"
	msgChannelChanged   = "channel configuration changed; restore it, then retry or cancel this delivery with bf queue"
	msgAssistantChanged = "assistant configuration changed; restore it, then retry or cancel this job with bf queue"
	msgOutputChanged    = "output channel configuration changed; restore it, then retry or cancel this job with bf queue"
)

// Error is an error of this package: Msg is the whole user-facing sentence, Kind the
// sentinel it matches and Err the underlying cause, if any.
type Error struct {
	Kind error
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of the error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

func newError(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// ioError reports a failure of the database itself, naming the file and what to do. The
// cause is wrapped so callers can still inspect it.
func ioError(file, doing string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if isFull(err) {
		return &Error{Kind: ErrFull, Msg: msgFull, Err: err}
	}
	if isBusy(err) {
		return fmt.Errorf("%s: cannot %s the assistant queue: another bf process kept it locked; try again once it finishes: %w", file, doing, err)
	}
	return fmt.Errorf("%s: cannot %s the assistant queue; preserve the file, check the disk and try again: %w", file, doing, err)
}

// commitAnyway wraps an error a write transaction returns after recording a change the
// caller must keep (a delivery marked uncertain because its channel changed): the change
// is committed, then the error is returned.
type commitAnyway struct{ err error }

func (c commitAnyway) Error() string { return c.err.Error() }
