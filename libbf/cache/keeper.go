package cache

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/durable"
)

// A keeper keeps one brain's cache fresh from file-system notifications, so an Open need
// not list the brain itself: it asks the keeper to sync and waits for the answer.
//
// The sync is the cookie protocol of Watchman. The command connects to .bf/keeper.sock
// after it started; the keeper then creates a cookie file in .bf/ and reads notifications
// until the cookie's own notification arrives. Notifications arrive in the order the
// changes were made, so every change completed before the command started has been read by
// then. If any of them touched the brain (or the cache was written by someone else), the
// keeper compares the brain with the cache the usual way and refreshes it, and only then
// answers "fresh" with the listing's problems. Any doubt answers "not fresh" and the
// command lists the brain itself, as it does when no keeper runs: the keeper is not
// running or not answering within syncWait, its notifications overflowed or could not
// watch every folder, bf.yaml changed, the cache is missing or was replaced by a build
// whose files the keeper has not compared yet.

// Files of the keeper in .bf/.
const (
	// KeeperSocket is the Unix socket a running keeper answers syncs on.
	KeeperSocket = "keeper.sock"
	// keeperLockFile is held exclusive by the one keeper of a brain.
	keeperLockFile = "keeper.lock"
	// cookiePrefix starts the name of a cookie file.
	cookiePrefix = "cookie-"
)

// syncWait bounds how long an Open waits for the keeper's answer before listing the
// brain itself.
var syncWait = 2 * time.Second

// maxSocketPath is the longest socket path every supported system accepts.
const maxSocketPath = 100

// ErrNoKeeper says this system or brain cannot be kept fresh from notifications; Opens
// list the brain themselves.
var ErrNoKeeper = errors.New("file-system notifications are not available for this brain; every command lists it")

// ErrKept says another keeper already keeps the brain fresh.
var ErrKept = errors.New("another bf watch keeps this brain's cache fresh")

// syncRequest is what a command sends: the signature it needs the cache built for.
type syncRequest struct {
	Signature string `json:"signature"`
}

// syncReply is the keeper's answer: fresh, with the folders it could not list.
type syncReply struct {
	Fresh    bool            `json:"fresh"`
	Problems []brain.Problem `json:"problems,omitempty"`
}

// onKeeperCompare is called when the keeper compares the brain (tests count it).
var onKeeperCompare func()

// onSync is called with the outcome of each sync an Open used (tests count them).
var onSync func(fresh bool)

// keeperSocket returns the path of the brain's keeper socket, and false when no keeper can
// answer there: no socket file means no keeper ever ran here (that common case costs one
// lstat).
func keeperSocket(dir string) (string, bool) {
	sock := filepath.Join(dir, KeeperSocket)
	if len(sock) > maxSocketPath {
		return "", false
	}
	if _, err := os.Lstat(sock); err != nil {
		return "", false
	}
	return sock, true
}

// pendingSyncReply is a sync asked of the keeper while the caller goes on.
type pendingSyncReply struct {
	done   chan struct{}
	cancel context.CancelFunc
	listed []brain.Problem
	fresh  bool
}

// startSync asks the brain's keeper, if one runs, to sync while the caller goes on: the
// answer is a round trip through another process, during which an Open checks its
// generation. It returns nil when no keeper can answer. Call wait or stop.
func startSync(ctx context.Context, dir, sig string) *pendingSyncReply {
	sock, ok := keeperSocket(dir)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingSyncReply{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		p.listed, p.fresh = syncWith(ctx, sock, sig)
	}()
	return p
}

// wait returns the listing's problems and true when the cache holds every change made
// before the sync was asked; no sync (nil) is not fresh.
func (p *pendingSyncReply) wait() ([]brain.Problem, bool) {
	if p == nil {
		return nil, false
	}
	<-p.done
	p.cancel()
	if onSync != nil {
		onSync(p.fresh)
	}
	return p.listed, p.fresh
}

// stop abandons the sync and waits until it has ended.
func (p *pendingSyncReply) stop() {
	if p != nil {
		p.cancel()
		<-p.done
	}
}

// syncWith syncs with the keeper answering on sock. It gives up after syncWait, or at once
// when ctx ends.
func syncWith(ctx context.Context, sock, sig string) ([]brain.Problem, bool) {
	ctx, cancel := context.WithTimeout(ctx, syncWait)
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
	req, _ := json.Marshal(syncRequest{Signature: sig})
	if _, err := conn.Write(append(req, '\n')); err != nil {
		return nil, false
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return nil, false
	}
	var r syncReply
	if json.Unmarshal(line, &r) != nil {
		return nil, false
	}
	return r.Problems, r.Fresh
}

// markRefresh tells a running keeper that this process is about to change the cache: it
// touches writer.lock, whose attribute change the keeper watches, so the keeper compares
// again before its next answer (a refresh from an older listing could otherwise undo one
// of its own).
func markRefresh(dir string) {
	now := time.Now()
	os.Chtimes(filepath.Join(dir, WriterLockFile), now, now)
}

// KeepOptions tune Keep.
type KeepOptions struct {
	// Settle is how long the keeper waits after a change before refreshing on its own;
	// 0: 100 ms. A sync refreshes at once.
	Settle time.Duration
	// Ready, when set, is called once the keeper answers syncs and has compared the brain
	// with the cache (or found no cache to compare yet).
	Ready func()
}

// keeperState is what the keeper knows between notifications.
type keeperState struct {
	b   *brain.Brain
	ix  *indexer
	sig string
	// dirty says a change was seen since the last comparison began.
	dirty bool
	// ino is the inode of the generation last compared; problems its listing's problems.
	ino      uint64
	problems []brain.Problem
	// broken says the notifications cannot be trusted (overflow, a folder not watched):
	// every answer is "not fresh" until the watches are set again and a comparison done.
	broken bool
}

// compareNow compares the brain with the live generation under the usual locks and
// refreshes what changed. It never builds: a missing or incompatible generation leaves
// the keeper answering "not fresh" (the command then builds).
func (k *keeperState) compareNow(ctx context.Context, dir string) error {
	if onKeeperCompare != nil {
		onKeeperCompare()
	}
	k.dirty = false
	k.ino = 0
	gen, err := enterGeneration(ctx, dir)
	if err != nil {
		return err
	}
	defer gen.release()
	live := filepath.Join(dir, IndexFile)
	st, err := os.Lstat(live)
	if err != nil {
		return err
	}
	ino := inodeOf(st)
	reader, err := acquire(ctx, dir, ReaderLockFile, false, syncWait)
	if err != nil {
		return err
	}
	defer reader.release()
	writer, err := acquire(ctx, dir, WriterLockFile, true, syncWait)
	if err != nil {
		return err
	}
	defer releaseWriter(dir, writer)
	ro, err := openFile(live, true)
	if err != nil {
		return err
	}
	defer ro.Close()
	good, err := usable(ctx, ro, k.sig, ino)
	if err != nil {
		return err
	}
	if !good {
		return errNeedBuild
	}
	l, d, err := compare(ctx, ro, k.b.Root, clock())
	if err != nil {
		return err
	}
	if !d.empty() || len(d.digests) > 0 {
		rw, err := openFile(live, false)
		if err != nil {
			return err
		}
		err = refresh(ctx, rw, k.ix, k.b.Root, d)
		rw.Close()
		if err != nil {
			return err
		}
	}
	k.ino, k.problems = ino, l.problems
	return nil
}

// answer decides a sync's reply once every notification before its cookie was read.
func (k *keeperState) answer(ctx context.Context, dir string, req syncRequest) syncReply {
	if k.broken || req.Signature != k.sig {
		return syncReply{}
	}
	// A build replaces the file (its notification also marks the state dirty): the new
	// generation's files were listed by the build, maybe before a change the keeper saw.
	if st, err := os.Lstat(filepath.Join(dir, IndexFile)); err != nil || inodeOf(st) != k.ino {
		k.dirty = true
	}
	if k.dirty {
		if err := k.compareNow(ctx, dir); err != nil {
			return syncReply{}
		}
	}
	return syncReply{Fresh: true, Problems: k.problems}
}

// reload reads bf.yaml again after it changed.
func (k *keeperState) reload() {
	if b, err := brain.Open(k.b.Root); err == nil && b.Root == k.b.Root {
		k.b, k.ix, k.sig = b, newIndexer(b), signature(b)
	}
	k.dirty = true
}

// cookieName is the name of the keeper's n-th cookie.
func cookieName(n uint64) string {
	return cookiePrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(n, 10)
}

// listenKeeper takes the keeper lock and listens on the socket, replacing a stale one.
func listenKeeper(ctx context.Context, dir string) (net.Listener, *lock, error) {
	sock := filepath.Join(dir, KeeperSocket)
	if len(sock) > maxSocketPath {
		return nil, nil, fmt.Errorf("%w (the path of .bf is too long for a socket)", ErrNoKeeper)
	}
	l, err := acquire(ctx, dir, keeperLockFile, true, 0)
	if errors.Is(err, errBusy) {
		return nil, nil, ErrKept
	}
	if err != nil {
		return nil, nil, err
	}
	os.Remove(sock) // only the lock holder serves: a socket left here is stale
	ln, err := net.Listen("unix", sock)
	if err != nil {
		l.release()
		return nil, nil, fmt.Errorf("cannot serve syncs in .bf: %w", durable.Cause(err))
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, l, nil
}

// pendingSync is one connected command waiting for its cookie.
type pendingSync struct {
	cookie string
	req    syncRequest
	conn   net.Conn
}

// serveSyncs accepts connections and hands each request to the keeper's loop until ctx
// ends.
func serveSyncs(ctx context.Context, ln net.Listener, out chan<- pendingSync) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			conn.SetDeadline(time.Now().Add(syncWait))
			line, err := bufio.NewReader(conn).ReadBytes('\n')
			var req syncRequest
			if err != nil || json.Unmarshal(line, &req) != nil {
				conn.Close()
				return
			}
			select {
			case out <- pendingSync{req: req, conn: conn}:
			case <-ctx.Done():
				conn.Close() // the command lists the brain itself
			}
		}()
	}
}

// reply sends the answer and closes the connection.
func (p pendingSync) reply(r syncReply) {
	b, _ := json.Marshal(r)
	p.conn.Write(append(b, '\n'))
	p.conn.Close()
}

// inodeOf is a file's inode number (0 when the system gives none).
func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
