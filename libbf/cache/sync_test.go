package cache

import (
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/internal/keepsync"
)

// TestKeeperGone: a keeper that stopped, was killed (its socket left behind) or hangs
// leaves every Open to list the brain, with the same answer.
func TestKeeperGone(t *testing.T) {
	old := keepsync.Wait
	keepsync.Wait = 100 * time.Millisecond
	t.Cleanup(func() { keepsync.Wait = old })
	for _, tt := range []struct {
		name  string
		start func(t *testing.T, sock string)
	}{
		{"stopped", func(t *testing.T, sock string) {}},
		{"killed", func(t *testing.T, sock string) {
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close()
		}},
		{"hung", func(t *testing.T, sock string) {
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					t.Cleanup(func() { c.Close() }) // reads nothing, answers nothing
				}
			}()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			tt.start(t, f.path(filepath.Join(Dir, keepsync.Socket)))
			var fresh atomic.Int64
			keepsync.OnSync = func(ok bool) {
				if ok {
					fresh.Add(1)
				}
			}
			t.Cleanup(func() { keepsync.OnSync = nil })
			c := refreshCases[0]
			c.change(f)
			checkRefreshed(t, f.open(), c)
			if fresh.Load() != 0 {
				t.Errorf("%d syncs answered fresh without a keeper", fresh.Load())
			}
		})
	}
}
