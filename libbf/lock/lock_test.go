package lock

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestAcquireExclusion(t *testing.T) {
	tests := []struct {
		name          string
		first, second bool // exclusive?
		wantBusy      bool
	}{
		{"shared then shared", false, false, false},
		{"shared then exclusive", false, true, true},
		{"exclusive then shared", true, false, true},
		{"exclusive then exclusive", true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			a, err := Acquire(ctx, dir, "x.lock", tt.first, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Acquire(ctx, dir, "x.lock", tt.second, 0)
			if busy := errors.Is(err, ErrBusy); busy != tt.wantBusy || (err != nil && !busy) {
				t.Fatalf("second Acquire = %v, want busy %v", err, tt.wantBusy)
			}
			b.Release()
			a.Release()
			a.Release() // twice is harmless
			c, err := Acquire(ctx, dir, "x.lock", true, 0)
			if err != nil {
				t.Fatalf("after release: %v", err)
			}
			c.Release()
			st, err := os.Stat(filepath.Join(dir, "x.lock"))
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("lock file mode %v, %v; want 0600", st.Mode().Perm(), err)
			}
		})
	}
}

func TestAcquireFailures(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) (ctx context.Context, d string)
		check func(err error) bool
	}{
		{
			name: "symlink is not followed",
			setup: func(t *testing.T, dir string) (context.Context, string) {
				os.WriteFile(filepath.Join(dir, "target"), nil, 0o600)
				os.Symlink("target", filepath.Join(dir, "x.lock"))
				return context.Background(), dir
			},
			check: func(err error) bool { return errors.Is(err, syscall.ELOOP) },
		},
		{
			name: "missing folder reports the open",
			setup: func(t *testing.T, dir string) (context.Context, string) {
				return context.Background(), filepath.Join(dir, "missing")
			},
			check: func(err error) bool {
				var pe *fs.PathError
				return errors.As(err, &pe) && pe.Op == "open" && errors.Is(err, fs.ErrNotExist)
			},
		},
		{
			name: "cancelled while waiting",
			setup: func(t *testing.T, dir string) (context.Context, string) {
				held, err := Acquire(context.Background(), dir, "x.lock", true, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(held.Release)
				return cancelled, dir
			},
			check: func(err error) bool { return errors.Is(err, context.Canceled) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, dir := tt.setup(t, t.TempDir())
			l, err := Acquire(ctx, dir, "x.lock", true, time.Hour)
			if l != nil || !tt.check(err) {
				t.Fatalf("Acquire = %v, %v", l, err)
			}
		})
	}
}
