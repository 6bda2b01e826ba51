//go:build linux

package queue

import (
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// ioHooks keeps the wrappers reachable: SQLite holds them only as raw function pointers.
var ioHooks []any

// hookIO makes SQLite's unix VFS call point before every write, truncation and deletion of
// a file, so crash tests can kill the process inside a commit: after the journal was
// written but before the database was, between database pages, before the journal's
// deletion commits the transaction… It replaces the VFS's system calls through
// xSetSystemCall, the hook SQLite provides for fault injection.
func hookIO(point func(string)) error {
	tls := libc.NewTLS()
	defer tls.Close()
	vfs := sqlite3.Xsqlite3_vfs_find(tls, 0)
	if vfs == 0 {
		return fmt.Errorf("no default SQLite VFS")
	}
	v := *(**sqlite3.Tsqlite3_vfs)(unsafe.Pointer(&vfs))
	get := *(*func(*libc.TLS, uintptr, uintptr) uintptr)(unsafe.Pointer(&struct{ uintptr }{v.FxGetSystemCall}))
	set := *(*func(*libc.TLS, uintptr, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{v.FxSetSystemCall}))
	install := func(name string, wrap func(orig uintptr) any) error {
		cname, err := libc.CString(name)
		if err != nil {
			return err
		}
		orig := get(tls, vfs, cname)
		if orig == 0 {
			return nil // not used on this platform
		}
		w := wrap(orig)
		ioHooks = append(ioHooks, w)
		if rc := set(tls, vfs, cname, funcPointer(w)); rc != sqlite3.SQLITE_OK {
			return fmt.Errorf("xSetSystemCall(%s) = %d", name, rc)
		}
		return nil
	}
	type pwriteFn = func(*libc.TLS, int32, uintptr, sqlite3.Tsize_t, sqlite3.Toff_t) sqlite3.Tssize_t
	type writeFn = func(*libc.TLS, int32, uintptr, sqlite3.Tsize_t) sqlite3.Tssize_t
	type truncFn = func(*libc.TLS, int32, sqlite3.Toff_t) int32
	type unlinkFn = func(*libc.TLS, uintptr) int32
	for _, name := range []string{"pwrite", "pwrite64"} {
		err := install(name, func(orig uintptr) any {
			f := *(*pwriteFn)(unsafe.Pointer(&struct{ uintptr }{orig}))
			return pwriteFn(func(t *libc.TLS, fd int32, buf uintptr, n sqlite3.Tsize_t, off sqlite3.Toff_t) sqlite3.Tssize_t {
				point("io " + name)
				return f(t, fd, buf, n, off)
			})
		})
		if err != nil {
			return err
		}
	}
	steps := []error{
		install("write", func(orig uintptr) any {
			f := *(*writeFn)(unsafe.Pointer(&struct{ uintptr }{orig}))
			return writeFn(func(t *libc.TLS, fd int32, buf uintptr, n sqlite3.Tsize_t) sqlite3.Tssize_t {
				point("io write")
				return f(t, fd, buf, n)
			})
		}),
		install("ftruncate", func(orig uintptr) any {
			f := *(*truncFn)(unsafe.Pointer(&struct{ uintptr }{orig}))
			return truncFn(func(t *libc.TLS, fd int32, off sqlite3.Toff_t) int32 {
				point("io ftruncate")
				return f(t, fd, off)
			})
		}),
		install("unlink", func(orig uintptr) any {
			f := *(*unlinkFn)(unsafe.Pointer(&struct{ uintptr }{orig}))
			return unlinkFn(func(t *libc.TLS, path uintptr) int32 {
				point("io unlink")
				return f(t, path)
			})
		}),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	return nil
}

// funcPointer is the raw function pointer of a func value stored in an interface, the
// form the transpiled SQLite calls through.
func funcPointer(f any) uintptr {
	type iface [2]uintptr
	return (*iface)(unsafe.Pointer(&f))[1]
}
