package memory

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// Git runs git through proc in one repository; its runs are logged in the brain's
// logs/git.log like every program bf runs.
type Git struct {
	BrainRoot string // proc's root: where the log goes
	Dir       string // the repository's working folder
}

const gitTimeout = 20 * time.Second

func (g Git) run(ctx context.Context, args ...string) (string, error) {
	if g.Dir == "" {
		return "", errors.New("no repository")
	}
	cmd := append(config.Command{"git", "-C", g.Dir}, args...)
	res, err := proc.Run(ctx, proc.Spec{Name: "git", Root: g.BrainRoot, Command: cmd, Timeout: gitTimeout, MaxBytes: 1 << 20})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

// Head returns the current commit and the repository's root commit, or ok false outside a
// repository (or one without commits).
func (g Git) Head(ctx context.Context) (head, project string, ok bool) {
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

// Short is the 8-character form a line shows.
func Short(c string) string {
	if len(c) > 8 {
		return c[:8]
	}
	return c
}

// CommitLine says whether a stamped memory is still current against the tree, or "" when
// no line applies (no stamp, no repository, another project's memory).
func (g Git) CommitLine(ctx context.Context, m *Memory, head, project string) string {
	if m.Commit == "" || !Stamped(m.Type) || head == "" {
		return ""
	}
	if m.Project != "" && project != "" && m.Project != project {
		return ""
	}
	short := Short(m.Commit)
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
	if n == 0 {
		return fmt.Sprintf("tree unchanged since stored (%s)", short)
	}
	return fmt.Sprintf("%d commits since stored (%s) — re-check against source", n, short)
}

// Status is the live state of the code for the brief: branch, head and changed files.
func (g Git) Status(ctx context.Context) []string {
	head, _, ok := g.Head(ctx)
	if !ok {
		return nil
	}
	branch, _ := g.run(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	subject, _ := g.run(ctx, "log", "-1", "--format=%s")
	lines := []string{fmt.Sprintf("branch %s at %s: %s", branch, Short(head), subject)}
	if st, err := g.run(ctx, "status", "--porcelain"); err == nil && st != "" {
		lines = append(lines, fmt.Sprintf("%d uncommitted changes", len(strings.Split(st, "\n"))))
	} else if err == nil {
		lines = append(lines, "working tree clean")
	}
	return lines
}
