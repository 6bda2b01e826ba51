// Package dispatch holds what the bf dispatcher and the commands it runs agree on. It
// imports nothing, so the dispatcher, which only finds a binary and execs it, links and
// initialises no more than it needs.
package dispatch

// Prefix starts the argv[0] the dispatcher gives a binary: "bf search".
const Prefix = "bf "
