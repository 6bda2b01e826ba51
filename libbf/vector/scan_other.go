//go:build !unix

package vector

import "os"

// mapFile reads file whole where memory maps are not used.
func mapFile(file string) ([]byte, func(), error) {
	raw, err := os.ReadFile(file)
	return raw, func() {}, err
}
