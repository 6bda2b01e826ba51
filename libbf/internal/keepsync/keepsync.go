// Package keepsync is the sync protocol between a brain's keeper (package keeper, bf watch)
// and the commands that open its cache (package cache): the socket, the cookie files and
// the messages, with the client an Open uses and the server the keeper runs.
//
// The sync is the cookie protocol of Watchman. The command connects to .bf/keeper.sock
// after it started; the keeper then creates a cookie file in .bf/ and reads notifications
// until the cookie's own notification arrives. Notifications arrive in the order the
// changes were made, so every change completed before the command started has been read by
// then. If any of them touched the brain (or the cache was written by someone else), the
// keeper compares the brain with the cache the usual way and refreshes it, and only then
// answers "fresh" with the listing's problems. Any doubt answers "not fresh" and the
// command lists the brain itself, as it does when no keeper runs: the keeper is not
// running or not answering within Wait, its notifications overflowed or could not
// watch every folder, bf.yaml changed, the cache is missing or was replaced by a build
// whose files the keeper has not compared yet.
package keepsync

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bfgo/bf/libbf/brain"
)

// Files of the keeper in .bf/.
const (
	// Socket is the Unix socket a running keeper answers syncs on.
	Socket = "keeper.sock"
	// CookiePrefix starts the name of a cookie file.
	CookiePrefix = "cookie-"
)

// Wait bounds how long an Open waits for the keeper's answer before listing the brain
// itself, and how long the keeper waits for a request or a lock.
var Wait = 2 * time.Second

// MaxSocketPath is the longest socket path every supported system accepts.
const MaxSocketPath = 100

// Request is what a command sends: the signature it needs the cache built for.
type Request struct {
	Signature string `json:"signature"`
}

// Reply is the keeper's answer: fresh, with the folders it could not list. The zero Reply
// is "not fresh".
type Reply struct {
	Fresh    bool            `json:"fresh"`
	Problems []brain.Problem `json:"problems,omitempty"`
}

// OnSync is called with the outcome of each sync an Open used (tests count them).
var OnSync func(fresh bool)

// CookieName is the name of this process's n-th cookie.
func CookieName(n uint64) string {
	return CookiePrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(n, 10)
}

// socketOf returns the path of the keeper socket in the cache folder dir, and false when no
// keeper can answer there: no socket file means no keeper ever ran here (that common case
// costs one lstat).
func socketOf(dir string) (string, bool) {
	sock := filepath.Join(dir, Socket)
	if len(sock) > MaxSocketPath {
		return "", false
	}
	if _, err := os.Lstat(sock); err != nil {
		return "", false
	}
	return sock, true
}

// Pending is a sync asked of the keeper while the caller goes on.
type Pending struct {
	done   chan struct{}
	cancel context.CancelFunc
	listed []brain.Problem
	fresh  bool
}

// Start asks the keeper of the cache folder dir, if one runs, to sync for signature sig
// while the caller goes on: the answer is a round trip through another process, during
// which an Open checks its generation. It returns nil when no keeper can answer. Call Wait
// or Stop.
func Start(ctx context.Context, dir, sig string) *Pending {
	sock, ok := socketOf(dir)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &Pending{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		p.listed, p.fresh = syncWith(ctx, sock, sig)
	}()
	return p
}

// Wait returns the listing's problems and true when the cache holds every change made
// before the sync was asked; no sync (nil) is not fresh.
func (p *Pending) Wait() ([]brain.Problem, bool) {
	if p == nil {
		return nil, false
	}
	<-p.done
	p.cancel()
	if OnSync != nil {
		OnSync(p.fresh)
	}
	return p.listed, p.fresh
}

// Stop abandons the sync and waits until it has ended.
func (p *Pending) Stop() {
	if p != nil {
		p.cancel()
		<-p.done
	}
}

// syncWith syncs with the keeper answering on sock. It gives up after Wait, or at once
// when ctx ends.
func syncWith(ctx context.Context, sock, sig string) ([]brain.Problem, bool) {
	ctx, cancel := context.WithTimeout(ctx, Wait)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, false // a stale socket of a stopped keeper: connection refused
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// A cancelled context ends the wait for the answer at once.
	defer context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })()
	req, _ := json.Marshal(Request{Signature: sig})
	if _, err := conn.Write(append(req, '\n')); err != nil {
		return nil, false
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return nil, false
	}
	var r Reply
	if json.Unmarshal(line, &r) != nil {
		return nil, false
	}
	return r.Problems, r.Fresh
}

// MarkRefresh tells a running keeper that this process is about to change the cache: it
// touches the cache's writer lock file, whose attribute change the keeper watches, so the
// keeper compares again before its next answer (a refresh from an older listing could
// otherwise undo one of its own).
func MarkRefresh(writerLock string) {
	now := time.Now()
	os.Chtimes(writerLock, now, now)
}

// Asked is one connected command waiting for its answer.
type Asked struct {
	// Cookie is the cookie file the keeper created for it.
	Cookie string
	Request
	conn net.Conn
}

// Serve accepts connections on ln and hands each request to out until ln is closed; a
// request that arrives once ctx ended is closed unanswered (the command lists the brain
// itself).
func Serve(ctx context.Context, ln net.Listener, out chan<- Asked) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			conn.SetDeadline(time.Now().Add(Wait))
			line, err := bufio.NewReader(conn).ReadBytes('\n')
			var req Request
			if err != nil || json.Unmarshal(line, &req) != nil {
				conn.Close()
				return
			}
			select {
			case out <- Asked{Request: req, conn: conn}:
			case <-ctx.Done():
				conn.Close()
			}
		}()
	}
}

// Answer sends the reply and closes the connection.
func (a Asked) Answer(r Reply) {
	b, _ := json.Marshal(r)
	a.conn.Write(append(b, '\n'))
	a.conn.Close()
}
