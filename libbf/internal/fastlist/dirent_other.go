//go:build !linux

package fastlist

import (
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// readEntries lists the open folder fd in name order, without "." and "..". Where getdents
// is not there to read the records directly, a duplicate of fd is read as an os.File.
func readEntries(fd int) ([]Entry, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, Entry{name: e.Name(), typ: e.Type()})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
