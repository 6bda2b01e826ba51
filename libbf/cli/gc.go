package cli

import (
	"runtime/debug"
	"time"
)

// Most bf commands answer in tens of milliseconds and exit, and with the runtime's default
// pacing they spend a good part of that collecting garbage that the exit drops anyway: a
// recall over 5,000 memories grows its heap to about 20 MB and collects three times on
// the way, a quarter of its time. So a command starts with the collector off and a memory
// limit instead, and gets the usual pacing back after quickStart: a long build, a server
// or a watcher then runs as it always did, and what the first moments allocate is bounded
// by quickLimit (the collector runs when the heap reaches it). A user's own GOGC or
// GOMEMLIMIT is left alone.
const (
	quickStart = 300 * time.Millisecond
	quickLimit = 256 << 20
)

// deferCollection turns the collector off under quickLimit unless getenv names a GOGC or
// GOMEMLIMIT, and returns what restores the usual pacing, or nil when it changed nothing.
func deferCollection(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	limit := debug.SetMemoryLimit(quickLimit)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
