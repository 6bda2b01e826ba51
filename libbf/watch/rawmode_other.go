//go:build !linux && !darwin

package watch

import (
	"errors"
	"os"
)

func rawMode(*os.File) (func(), error) {
	return nil, errors.New("no key-by-key terminal input on this system")
}
