//go:build unix

package vector

import (
	"os"
	"syscall"
)

// mapFile maps file read-only; release unmaps it. The pages stay the kernel's page cache:
// a search reading a scan file another search read costs no copy.
func mapFile(file string) ([]byte, func(), error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, func() {}, nil
	}
	raw, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return raw, func() { syscall.Munmap(raw) }, nil
}
