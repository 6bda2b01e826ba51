package keepsync

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestSyncStop: an Open that finds its generation unusable abandons the sync it started;
// Stop returns at once even when the keeper never answers (Wait is an hour here: a
// stop that waited for it would hang the test).
func TestSyncStop(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, Socket)
	if len(sock) > MaxSocketPath {
		t.Skip("temporary folder too deep for a socket")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if conn, err := ln.Accept(); err == nil {
			accepted <- conn // read nothing, answer nothing
		}
	}()
	was := Wait
	Wait = time.Hour
	t.Cleanup(func() { Wait = was })
	p := Start(context.Background(), dir, "sig")
	if p == nil {
		t.Fatal("no sync started with a socket present")
	}
	conn := <-accepted
	defer conn.Close()
	p.Stop()
	if p.fresh {
		t.Error("an abandoned sync answered fresh")
	}
	if p := Start(context.Background(), t.TempDir(), "sig"); p != nil {
		t.Error("a sync started without a socket")
	}
	if listed, fresh := (*Pending)(nil).Wait(); fresh || listed != nil {
		t.Error("no sync is fresh")
	}
}
