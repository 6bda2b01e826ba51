package keeper

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/internal/keepsync"
	"github.com/bfgo/bf/libbf/scan"
	"golang.org/x/sys/unix"
)

// Watch masks: every change to an entry of a brain folder; the root's entries (bf.yaml,
// the top folders); and in .bf/ the cookies, the live generation's file and writer.lock.
const (
	folderMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_MOVED_FROM |
		unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	rootMask = folderMask &^ (unix.IN_DELETE_SELF | unix.IN_MOVE_SELF)
	bfMask   = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
)

// notice is one notification: the watched folder (brain-relative, "" the root, ".bf" the
// cache folder), the entry's name and the event mask.
type notice struct {
	wd           int32
	folder, name string
	mask         uint32
}

// notifier is one inotify instance over a brain.
type notifier struct {
	fd      int
	root    string
	folders map[int32]string // watch descriptor → brain-relative folder
}

// watch adds (or keeps) the watch of one brain-relative folder.
func (n *notifier) watch(rel string, mask uint32) error {
	wd, err := unix.InotifyAddWatch(n.fd, filepath.Join(n.root, filepath.FromSlash(rel)), mask)
	if err != nil {
		return err
	}
	n.folders[int32(wd)] = rel
	return nil
}

// watchTree watches an authored folder and every real folder below it (not hidden ones,
// which the listing skips), or a memories folder and its sources.
func (n *notifier) watchTree(rel string) error {
	if top(rel) == "memories" && rel != "memories" {
		return n.watch(rel, folderMask) // a source: its subfolders hold no records
	}
	full := filepath.Join(n.root, filepath.FromSlash(rel))
	sources := rel == "memories"
	return filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile: its removal was notified
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		sub, _ := filepath.Rel(n.root, p)
		sub = filepath.ToSlash(sub)
		if p != full && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if strings.Count(sub, "/") > scan.MaxDepth {
			return filepath.SkipDir
		}
		if err := n.watch(sub, folderMask); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				return nil
			}
			return err
		}
		if sources && p != full {
			return filepath.SkipDir // a source's subfolders hold no records
		}
		return nil
	})
}

// top is the brain folder at the root holding rel, if it is one the cache lists.
func top(rel string) string {
	t, _, _ := strings.Cut(rel, "/")
	if t == "memories" || t == "projects" || t == "actions" || t == "concepts" {
		return t
	}
	return ""
}

// watchAll sets every watch: the root, .bf and the brain's folders.
func (n *notifier) watchAll() error {
	if err := n.watch("", rootMask); err != nil {
		return err
	}
	if err := n.watch(cache.Dir, bfMask); err != nil {
		return err
	}
	for _, t := range append(append([]string{}, scan.Authored...), "memories") {
		if err := n.watchTree(t); err != nil {
			return err
		}
	}
	return nil
}

// read sends the notifications in order until ctx ends, then closes out. Their folders
// are resolved by the keeper's loop, which alone uses the watch table.
func (n *notifier) read(ctx context.Context, out chan<- []notice) {
	defer close(out)
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{{Fd: int32(n.fd), Events: unix.POLLIN}}
	for ctx.Err() == nil {
		if _, err := unix.Poll(fds, 200); err != nil && err != unix.EINTR {
			return
		}
		k, err := unix.Read(n.fd, buf)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		if err != nil || k <= 0 {
			return
		}
		var batch []notice
		for b := buf[:k]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:4]))
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := int(binary.NativeEndian.Uint32(b[12:16]))
			if unix.SizeofInotifyEvent+size > len(b) {
				break
			}
			name := string(b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+size])
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[unix.SizeofInotifyEvent+size:]
			batch = append(batch, notice{wd: wd, name: name, mask: mask})
		}
		select {
		case out <- batch:
		case <-ctx.Done():
			return
		}
	}
}

// onNotices is called with each batch the keeper handles (tests inject overflows).
var onNotices func([]notice) []notice

// Keep keeps the brain's cache fresh from file-system notifications until ctx ends,
// answering the syncs of every Open (package keepsync). It returns ErrKept when another
// keeper runs, ErrNoKeeper (wrapped) when the brain cannot be watched, and nil when ctx
// ends. It never builds the cache: until a build made one, Opens list the brain.
func Keep(ctx context.Context, b *brain.Brain, opt Options) error {
	if opt.Settle <= 0 {
		opt.Settle = 100 * time.Millisecond
	}
	dir, err := cache.PrepareDir(b.Root)
	if err != nil {
		return err
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoKeeper, err)
	}
	n := &notifier{fd: fd, root: b.Root, folders: map[int32]string{}}
	ctx, cancel := context.WithCancel(ctx)
	notices := make(chan []notice, 64)
	defer func() {
		cancel()
		for range notices { // the reader stops within its poll timeout
		}
		unix.Close(fd)
	}()
	// Watches are set before the first comparison, so a change during it is notified.
	if err := n.watchAll(); err != nil {
		go n.read(ctx, notices)
		return fmt.Errorf("%w: %v", ErrNoKeeper, watchReason(err))
	}
	go n.read(ctx, notices)
	ln, held, err := listenKeeper(ctx, dir)
	if err != nil {
		return err
	}
	defer held.Release()
	defer ln.Close()
	syncs := make(chan keepsync.Asked)
	go keepsync.Serve(ctx, ln, syncs)

	k := &keeperState{cmp: cache.NewComparer(b), dirty: true}
	k.compareNow(ctx, dir) // an error leaves it dirty: the next sync compares again
	if opt.Ready != nil {
		opt.Ready()
	}
	var (
		pending []keepsync.Asked
		seq     uint64
	)
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	notFresh := func() {
		for _, p := range pending {
			os.Remove(filepath.Join(dir, p.Cookie))
			p.Answer(keepsync.Reply{})
		}
		pending = nil
	}
	defer notFresh()
	for {
		select {
		case <-ctx.Done():
			return nil
		case p := <-syncs:
			seq++
			p.Cookie = keepsync.CookieName(seq)
			f, err := os.OpenFile(filepath.Join(dir, p.Cookie), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err != nil {
				p.Answer(keepsync.Reply{})
				continue
			}
			f.Close()
			pending = append(pending, p)
		case <-settle.C:
			if k.dirty && !k.broken {
				k.compareNow(ctx, dir)
			}
		case batch, ok := <-notices:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%w: notifications stopped", ErrNoKeeper)
			}
			if onNotices != nil {
				batch = onNotices(batch)
			}
			for _, e := range batch {
				folder, known := n.folders[e.wd]
				if e.mask&unix.IN_IGNORED != 0 {
					delete(n.folders, e.wd)
				}
				if !known && e.mask&unix.IN_Q_OVERFLOW == 0 {
					continue // a watch removed meanwhile
				}
				e.folder = folder
				if stop := k.notice(ctx, n, dir, e, &pending); stop != nil {
					return stop
				}
			}
			if k.broken {
				// Notifications were lost: no cookie can be trusted. Watch again, then
				// compare before the next answer.
				notFresh()
				if err := n.watchAll(); err != nil {
					return fmt.Errorf("%w: %v", ErrNoKeeper, watchReason(err))
				}
				k.broken, k.dirty = false, true
			}
			if k.dirty {
				settle.Reset(opt.Settle)
			}
		}
	}
}

// notice applies one notification; it returns an error when the keeper must stop.
func (k *keeperState) notice(ctx context.Context, n *notifier, dir string, e notice, pending *[]keepsync.Asked) error {
	switch {
	case e.mask&unix.IN_Q_OVERFLOW != 0:
		k.broken, k.dirty = true, true
	case e.folder == cache.Dir:
		switch {
		case e.mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
			return errors.New("the .bf folder was removed; restart bf watch to keep the cache fresh")
		case strings.HasPrefix(e.name, keepsync.CookiePrefix) && e.mask&unix.IN_CREATE != 0:
			os.Remove(filepath.Join(dir, e.name))
			for i, p := range *pending {
				if p.Cookie != e.name {
					continue
				}
				*pending = append((*pending)[:i], (*pending)[i+1:]...)
				p.Answer(k.answer(ctx, dir, p.Request))
				break
			}
		case e.name == cache.IndexFile, e.name == cache.WriterLockFile && e.mask&unix.IN_ATTRIB != 0:
			k.dirty = true
		}
	case e.folder == "":
		switch {
		case e.name == "bf.yaml":
			k.reload()
		case top(e.name) != "":
			k.dirty = true
			if e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
				if err := n.watchTree(e.name); err != nil {
					k.broken = true
				}
			}
		}
	default:
		k.dirty = true
		if e.mask&unix.IN_ISDIR != 0 && e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 &&
			(top(e.folder) != "memories" || e.folder == "memories") && !strings.HasPrefix(e.name, ".") {
			if err := n.watchTree(e.folder + "/" + e.name); err != nil {
				k.broken = true
			}
		}
	}
	return nil
}

// watchReason explains a watch that could not be set.
func watchReason(err error) error {
	if errors.Is(err, unix.ENOSPC) {
		return errors.New("the system's limit of watched folders (fs.inotify.max_user_watches) is reached")
	}
	return durable.Cause(err)
}
