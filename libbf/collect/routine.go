package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/durable"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Routine run outcomes.
const (
	statusRan     = "ran"     // the routine succeeded (and wrote its action, if any)
	statusSkipped = "skipped" // it succeeded but that day's action folder already existed
)

// routineResult is what one routine run did.
type routineResult struct {
	status string
	action string // brain-relative ACTION.md written, or ""
}

// routine runs routine name over w and records the run in the history.
//
// A log routine's stdout goes to its log. An action routine's stdout, when it holds more
// than white space, must be a valid ACTION.md (the checks bf validate applies to one) and
// becomes actions/YYYY-MM-DD_NAME/ACTION.md, dated by the run's local start day; a folder
// that already exists for that day is never touched, and the run reports skipped.
func (r *runner) routine(ctx context.Context, name string, w history.Window) (*routineResult, error) {
	return r.routineWith(ctx, name, w, nil, nil)
}

// routineWith is routine with stdin piped to the program and args appended to its command
// (bf run). An action routine with keep then prunes its older untouched actions.
func (r *runner) routineWith(ctx context.Context, name string, w history.Window, stdin []byte, args []string) (*routineResult, error) {
	rt := r.b.Config.Routines[name]
	l, err := r.programLock(ctx, "routine", name)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	started := r.now()
	log := proc.LogPath(name)
	fail := func(err error) (*routineResult, error) {
		r.recordFailure(ctx, history.Routines, name, started, err, log)
		return nil, err
	}
	cmd := rt.Command
	if len(args) > 0 {
		cmd = append(append(config.Command{}, cmd...), args...)
	}
	spec := r.spec(name, cmd, w, rt.Timeout, rt.MaxBytes)
	spec.Stdin = stdin
	spec.LogStdout = rt.Output == config.OutputLog
	res, err := proc.Run(ctx, spec)
	if err != nil {
		return fail(fmt.Errorf("routine %s failed: %w", name, err))
	}
	out := &routineResult{status: statusRan}
	if rt.Output == config.OutputAction && len(bytes.TrimSpace(res.Stdout)) > 0 {
		day := timestamp.Day(started.In(r.loc))
		rel := ActionPath(day, name)
		written, err := WriteAction(r.b.Root, rel, res.Stdout)
		if err != nil {
			return fail(fmt.Errorf("routine %s: %w; see %s", name, err, log))
		}
		if written {
			out.action = rel
			stampAction(r.b.Root, rel)
			if err := pruneActions(r.b.Root, name, rt.Keep); err != nil {
				return fail(fmt.Errorf("routine %s wrote %s but could not remove its older actions (keep: %d): %w", name, rel, rt.Keep, err))
			}
		} else {
			out.status = statusSkipped
		}
	}
	o := history.Outcome{Started: started, Start: w.Start, End: w.End, Log: log, Action: out.action,
		Elapsed: res.Elapsed, OutputBytes: int64(len(res.Stdout))}
	if _, err := history.Record(context.WithoutCancel(ctx), r.state, history.Routines, name,
		func(e history.Entry) history.Entry { return e.Succeed(o) }); err != nil {
		return nil, fmt.Errorf("routine %s ran but local run history could not be saved; its next run may repeat this window: %w", name, err)
	}
	return out, nil
}

// ActionPath is the brain-relative ACTION.md a routine writes on a local day.
func ActionPath(day, routine string) string {
	return "actions/" + day + "_" + routine + "/ACTION.md"
}

// WriteAction checks data as an ACTION.md (CheckAction) and writes it as rel, an
// actions/FOLDER/ACTION.md of brain root, into a new folder. It reports whether it wrote:
// false when the folder already existed, which is left exactly as it was.
func WriteAction(root, rel string, data []byte) (bool, error) {
	if _, err := CheckAction(rel, data); err != nil {
		return false, err
	}
	actions := filepath.Join(root, "actions")
	if err := os.Mkdir(actions, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("cannot create the actions folder: %w", err)
	}
	// The folder must be the brain's own: a symbolic link could lead outside the brain.
	if st, err := os.Lstat(actions); err != nil || !st.IsDir() {
		return false, errors.New("actions is not a folder inside the brain (a symbolic link or a file); nothing was written")
	}
	folder := filepath.Join(root, filepath.FromSlash(filepath.Dir(rel)))
	if err := os.Mkdir(folder, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("cannot create %s: %w", filepath.ToSlash(filepath.Dir(rel)), err)
	}
	if err := durable.WriteFile(filepath.Join(folder, "ACTION.md"), data, 0o644); err != nil {
		// Leave no empty folder: it would make the next run of the day skip.
		os.RemoveAll(folder)
		return false, fmt.Errorf("cannot write %s: %w; nothing was written", rel, err)
	}
	return true, nil
}

// CheckAction applies the checks of an ACTION.md at rel: a note that search can index and
// that breaks no rule of its kind. It returns the parsed note. The error names the problem
// and its line, never its text.
func CheckAction(rel string, data []byte) (*note.Note, error) {
	n, err := note.Parse(rel, data, note.KindOf(rel))
	if err != nil {
		return nil, fmt.Errorf("printed an action that is not a valid note: %w; nothing was written", err)
	}
	problems := append(append([]note.Problem(nil), n.Problems...), n.Check()...)
	if len(problems) == 0 {
		return n, nil
	}
	p := problems[0]
	where := ""
	if p.Line > 0 {
		where = fmt.Sprintf(" (line %d)", p.Line)
	}
	return nil, fmt.Errorf("printed an action that is not a valid note: %s%s; nothing was written", p.Error(), where)
}
