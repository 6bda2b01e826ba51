//go:build !unix

package queue

// groupExists cannot look at process groups here, and bf records none: programs do not
// run in groups of their own.
func groupExists(id int) bool { return false }
