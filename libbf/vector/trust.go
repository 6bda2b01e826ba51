package vector

import (
	"errors"

	"github.com/bfgo/bf/libbf/brain"
)

// ErrUntrusted refuses the provider of a brain that is not trusted here. Its command is a
// program the brain's author chose and its address receives the brain's text and the
// user's queries, so, like a sensor, it acts only for a brain trusted to collect.
var ErrUntrusted = errors.New("this brain's embeddings provider acts only once the brain is trusted here; trust it with bf register --collect")

// trusted reports whether b's provider may act on this machine.
func trusted(b *brain.Brain) (bool, error) {
	return brain.System().Trusted(b.Root)
}
