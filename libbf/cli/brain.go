package cli

import (
	"errors"
	"flag"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
)

// BrainFlag adds --brain to a command's flags.
func BrainFlag(fs *flag.FlagSet) *Optional {
	o := &Optional{}
	fs.Var(o, "brain", "the brain: a registered `NAME` or a PATH (default: BF_BRAIN, the enclosing brain, then the registry)")
	return o
}

// Select picks the brains a command works on, turning a malformed choice into invalid input.
func Select(purpose brain.Purpose, flag *Optional) (*brain.Selection, error) {
	sel, err := brain.Select(brain.Request{Purpose: purpose, Brain: flag.Value, BrainGiven: flag.Given})
	return sel, Classify(err)
}

// Classify marks errors that libbf reports as invalid input (reply.InputError, a malformed
// brain choice) so they exit 2.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var u *UsageError
	if !errors.As(err, &u) && (reply.IsInput(err) || brain.KindOf(err) == brain.Invalid) {
		return &UsageError{Err: err}
	}
	return err
}

// One selects the single brain a command works on: --brain, BF_BRAIN or the enclosing one.
func One(purpose brain.Purpose, flag *Optional) (*brain.Brain, error) {
	sel, err := Select(purpose, flag)
	if err != nil {
		return nil, err
	}
	return sel.Brains[0], nil
}

// OneUnloaded is One that also selects a brain whose bf.yaml does not load, with
// Brain.ConfigErr set, for commands that need only its folder.
func OneUnloaded(purpose brain.Purpose, flag *Optional) (*brain.Brain, error) {
	sel, err := brain.Select(brain.Request{Purpose: purpose, Brain: flag.Value, BrainGiven: flag.Given, Unloaded: true})
	if err != nil {
		return nil, Classify(err)
	}
	return sel.Brains[0], nil
}
