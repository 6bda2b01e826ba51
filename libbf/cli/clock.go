package cli

import (
	"time"

	"github.com/bfgo/bf/libbf/timestamp"
)

// clockVar names the environment variable that pins the clock of the commands that read
// the time (bf run, bf watch and the memory verbs), for reproducible runs, rankings and
// tests: an ISO 8601 instant with its offset.
const clockVar = "BF_NOW"

// Clock is the clock clockVar pins, parsed once here and passed down to the library; nil
// (the real time) when it is not set. A value that does not parse is refused as invalid
// input rather than ignored.
func (env *Env) Clock() (func() time.Time, error) {
	v := env.Getenv(clockVar)
	if v == "" {
		return nil, nil
	}
	t, err := timestamp.Parse(v)
	if err != nil {
		return nil, Usagef("invalid input: %s: %v with its offset, such as 2026-01-01T09:00:00Z; fix it or unset %[1]s", clockVar, err)
	}
	return func() time.Time { return t }, nil
}
