package cache

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing file's dirty pages to disk without
// waiting for them, so that the fsync ending a build finds most of them written. It is
// only a hint: errors are ignored (the fsync reports any that matter).
func startWriteback(file string) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer f.Close()
	unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
