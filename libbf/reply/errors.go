package reply

import "errors"

// InputError is invalid input: the argument it names (query, scope, ref, rel, limit,
// offset…) and why. Its text is "invalid input: ARGUMENT: reason", as the CLI and MCP
// print it; the CLI exits 2 for it.
type InputError struct {
	Argument string
	Err      error
}

func (e *InputError) Error() string { return "invalid input: " + e.Argument + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// IsInput reports whether err is invalid input.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// NotFoundError is a request naming something no selected brain holds, such as an unknown
// source or ref. It is a failure (exit 1), not invalid input.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }
