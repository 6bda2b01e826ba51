package brain

import (
	"errors"
	"fmt"
)

// Kind says how a command should exit when this package fails.
type Kind int

const (
	// failure is exit code 1: the input was well formed but the brain, the registry or the
	// machine state does not allow the operation (absent brain, ambiguous name, invalid
	// bf.yaml, unowned folder, nothing selected…).
	failure Kind = iota + 1
	// Invalid is exit code 2: the value itself is malformed — an explicit empty --brain,
	// a --brain or BF_BRAIN value with control characters or over 4096 characters, a
	// name that is not ^[a-z][a-z0-9-]{0,63}$ where a name is required, or a folder
	// name from which bf init cannot derive a name.
	Invalid
)

// errInvalid matches, with errors.Is, every error of kind Invalid.
var errInvalid = errors.New("invalid input")

// Error is every error this package returns on purpose. Err, when set, is the underlying
// cause (an *os.PathError, a *yamlx.Error, a config error) for errors.Is and errors.As.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, errInvalid) true for invalid input.
func (e *Error) Is(target error) bool { return target == errInvalid && e.Kind == Invalid }

// KindOf returns the Kind of err: Invalid for invalid input, Failure for anything else
// that is not nil (including errors from other packages), 0 for nil.
func KindOf(err error) Kind {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) && e.Kind == Invalid {
		return Invalid
	}
	return failure
}

func failf(cause error, format string, args ...any) *Error {
	return &Error{Kind: failure, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func invalidf(format string, args ...any) *Error {
	return &Error{Kind: Invalid, Msg: fmt.Sprintf(format, args...)}
}
