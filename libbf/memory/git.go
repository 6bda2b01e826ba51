package memory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// git runs git through proc in one repository; its runs are logged in the brain's
// logs/git.log like every program bf runs.
type git struct {
	BrainRoot string // proc's root: where the log goes
	Dir       string // the repository's working folder
}

const gitTimeout = 20 * time.Second

func (g git) run(ctx context.Context, args ...string) (string, error) {
	out, err := g.output(ctx, args...)
	return strings.TrimSpace(out), err
}

// output is git's stdout as it printed it.
func (g git) output(ctx context.Context, args ...string) (string, error) {
	if g.Dir == "" {
		return "", errors.New("no repository")
	}
	cmd := append(config.Command{"git", "-C", g.Dir}, args...)
	res, err := proc.Run(ctx, proc.Spec{Name: "git", Root: g.BrainRoot, Command: cmd, Timeout: gitTimeout, MaxBytes: 1 << 20})
	if err != nil {
		return "", err
	}
	return string(res.Stdout), nil
}

// Dirty reports whether the working tree has changes nobody committed, leaving out the
// brain's own folder: a brain kept inside the repository changes with every save. A tree
// git cannot read counts as changed.
func (g git) Dirty(ctx context.Context) bool {
	top, err := g.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return true
	}
	st, err := g.output(ctx, "status", "--porcelain=v1", "-z")
	if err != nil {
		return true
	}
	brainRoot := realPath(g.BrainRoot)
	fields := strings.Split(st, "\x00")
	for i := 0; i < len(fields); i++ {
		entry := fields[i]
		if len(entry) < 4 {
			continue
		}
		if entry[0] == 'R' || entry[0] == 'C' {
			i++ // the path it was renamed or copied from follows
		}
		p := realPath(filepath.Join(top, filepath.FromSlash(strings.TrimSuffix(entry[3:], "/"))))
		if brainRoot == "" || (p != brainRoot && !strings.HasPrefix(p, brainRoot+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

// realPath is p with symbolic links resolved where it exists, so git's paths and the
// brain's compare; "" stays "".
func realPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// Head returns the current commit and the repository's root commit, or ok false outside a
// repository (or one without commits).
func (g git) Head(ctx context.Context) (head, project string, ok bool) {
	head, err := g.run(ctx, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil || head == "" {
		return "", "", false
	}
	roots, err := g.run(ctx, "rev-list", "--max-parents=0", "HEAD")
	if err != nil || roots == "" {
		return "", "", false
	}
	// The oldest root names the project, stable across later merges of other histories.
	list := strings.Fields(roots)
	return head, list[len(list)-1], true
}

// short is the 8-character form a line shows.
func short(c string) string {
	if len(c) > 8 {
		return c[:8]
	}
	return c
}

// CommitLine says whether a stamped memory is still current against the tree, or "" when
// no line applies (no stamp, no repository, another project's memory). dirty tells
// whether the tree has uncommitted changes; it is asked only of a memory stored at HEAD.
func (g git) CommitLine(ctx context.Context, m *Memory, head, project string, dirty func() bool) string {
	if m.Commit == "" || !stamped(m.Type) || head == "" {
		return ""
	}
	if m.Project != "" && project != "" && m.Project != project {
		return ""
	}
	short := short(m.Commit)
	notHere := fmt.Sprintf("stored at %s, which is not in this tree — re-check against source", short)
	if _, err := g.run(ctx, "merge-base", "--is-ancestor", m.Commit, "HEAD"); err != nil {
		return notHere
	}
	out, err := g.run(ctx, "rev-list", "--count", m.Commit+"..HEAD")
	if err != nil {
		return notHere
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return notHere
	}
	if n == 0 && dirty() {
		return fmt.Sprintf("tree has uncommitted changes since stored (%s) — re-check against source", short)
	}
	if n == 0 {
		return fmt.Sprintf("tree unchanged since stored (%s)", short)
	}
	return fmt.Sprintf("%d commits since stored (%s) — re-check against source", n, short)
}

// Status is the live state of the code for the brief: branch, head and changed files.
//
// The commit and its subject come from one git process; the branch and the tree's state
// are then asked of two at once (git status reads every tracked file's state: with 5,000
// memories committed, the slowest part of a brief).
func (g git) Status(ctx context.Context) []string {
	last, err := g.output(ctx, "log", "-1", "--format=%H%n%s")
	head, subject, _ := strings.Cut(strings.TrimSpace(last), "\n")
	if err != nil || head == "" {
		return nil
	}
	var branch, st string
	var stErr error
	var both sync.WaitGroup
	both.Go(func() { branch, _ = g.run(ctx, "rev-parse", "--abbrev-ref", "HEAD") })
	both.Go(func() { st, stErr = g.run(ctx, "status", "--porcelain") })
	both.Wait()
	lines := []string{fmt.Sprintf("branch %s at %s: %s", branch, short(head), subject)}
	if stErr == nil && st != "" {
		lines = append(lines, fmt.Sprintf("%d uncommitted changes", len(strings.Split(st, "\n"))))
	} else if stErr == nil {
		lines = append(lines, "working tree clean")
	}
	return lines
}
