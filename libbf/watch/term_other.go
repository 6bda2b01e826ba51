//go:build !linux && !darwin

package watch

import (
	"errors"
	"os"
)

var errNoTerminalSupport = errors.New("no terminal support on this system")

func termSize(*os.File) (int, int, error) { return 0, 0, errNoTerminalSupport }

func rawMode(*os.File) (func(), error) { return nil, errNoTerminalSupport }
