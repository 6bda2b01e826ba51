//go:build race

package queue

// raceEnabled: the race detector slows the children of crash tests several times over.
const raceEnabled = true
