//go:build !linux && !darwin

package progress

// isTerminal draws no progress where bf cannot tell a terminal.
func isTerminal(fd uintptr) bool { return false }
