package collect

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// RunOptions tune a routine run by hand (bf run).
type RunOptions struct {
	Options
	// Stdin is piped to the routine (bf run --stdin); nil: stdin is /dev/null.
	Stdin []byte
	// Args are appended to the routine's command (bf run NAME -- ARGS…).
	Args []string
}

// RunRoutine runs routine name now, whatever its refresh (manual routines included), over
// the window a scheduled run would read, and records the run. It is bf run ROUTINE. A
// disabled routine is refused before anything runs. With DryRun nothing runs: the reply
// has status due and the window.
func RunRoutine(ctx context.Context, b *brain.Brain, name string, opt RunOptions) (*RoutineRun, error) {
	rt := b.Config.Routines[name]
	if rt == nil {
		return nil, &reply.InputError{Argument: "name",
			Err: fmt.Errorf("no routine or assistant of this brain is called %s; its bf.yaml declares %s", name, names(b.Config.Routines))}
	}
	if !rt.Enabled {
		return nil, fmt.Errorf("routine %s is disabled in bf.yaml; set enabled: true to run it", name)
	}
	r, err := newRunner(b, opt.Options)
	if err != nil {
		return nil, err
	}
	h, _ := history.Load(r.env, b)
	w := history.RoutineWindow(rt, h.Routine(name), r.now())
	when := func(t time.Time) string { return reply.Local(history.Instant(t), r.loc) }
	run := &RoutineRun{Routine: name, Start: when(w.Start), End: when(w.End)}
	if opt.DryRun {
		run.Status = statusDue
		return run, nil
	}
	res, err := r.routineWith(ctx, name, w, opt.Stdin, opt.Args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		run.Status, run.Error = StatusFailed, err.Error()
		return run, nil
	}
	run.Status, run.Action = res.status, res.action
	return run, nil
}

// HookReply is what bf run --hook EVENT prints.
type HookReply struct {
	Hook     string       `json:"hook"`
	OK       bool         `json:"ok"`
	Routines []RoutineRun `json:"routines"`
}

// RunHook runs, by name, every enabled routine of b that lists event in its hooks, and
// reports whether all succeeded. A brain without such a routine runs nothing and is ok.
func RunHook(ctx context.Context, b *brain.Brain, event string, opt RunOptions) (*HookReply, error) {
	if !ref.ValidRoutineName(event) {
		return nil, &reply.InputError{Argument: "hook", Err: fmt.Errorf("expected an event name such as pre-push: lowercase letters, digits and hyphens")}
	}
	out := &HookReply{Hook: event, OK: true, Routines: []RoutineRun{}}
	for _, name := range slices.Sorted(maps.Keys(b.Config.Routines)) {
		rt := b.Config.Routines[name]
		if !rt.Enabled || !slices.Contains(rt.Hooks, event) {
			continue
		}
		run, err := RunRoutine(ctx, b, name, opt)
		if err != nil {
			return nil, err
		}
		if run.Status == StatusFailed {
			out.OK = false
		}
		out.Routines = append(out.Routines, *run)
	}
	return out, nil
}

// pruneActions keeps the newest keep untouched actions of routine name: folders
// actions/YYYY-MM-DD_NAME holding only the ACTION.md the routine wrote, unchanged since
// (WriteAction gives the file and its folder one modification time; an edit moves one of
// them). Older untouched ones are removed; touched ones are never removed.
func pruneActions(root, name string, keep int) error {
	if keep <= 0 {
		return nil
	}
	dir := filepath.Join(root, "actions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var untouched []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || len(n) != len("YYYY-MM-DD_")+len(name) || !strings.HasSuffix(n, "_"+name) {
			continue
		}
		if isUntouched(filepath.Join(dir, n)) {
			untouched = append(untouched, n)
		}
	}
	sort.Strings(untouched)
	for len(untouched) > keep {
		if err := os.RemoveAll(filepath.Join(dir, untouched[0])); err != nil {
			return err
		}
		untouched = untouched[1:]
	}
	return nil
}

func isUntouched(folder string) bool {
	entries, err := os.ReadDir(folder)
	if err != nil || len(entries) != 1 || entries[0].Name() != "ACTION.md" {
		return false
	}
	fi, err := os.Lstat(filepath.Join(folder, "ACTION.md"))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	di, err := os.Lstat(folder)
	return err == nil && di.ModTime().Equal(fi.ModTime())
}

// stampAction gives a new action file and its folder one modification time, the mark of
// an action nobody touched since.
func stampAction(root, rel string) {
	file := filepath.Join(root, filepath.FromSlash(rel))
	t := time.Now()
	os.Chtimes(file, t, t)
	os.Chtimes(filepath.Dir(file), t, t)
}
