package watch

import (
	"errors"
	"os/exec"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// step is one cycle seen by a notifier: its failures, whether it did work, and how long
// after the previous cycle it ended.
type step struct {
	errs  []string
	did   bool
	after time.Duration
}

func TestNotifierRules(t *testing.T) {
	fail1, fail2 := []string{"sensor mail failed"}, []string{"sensor mail failed", "assistant bot: failed"}
	cases := []struct {
		name     string
		mode     string
		cooldown time.Duration
		steps    []step
		want     []string // the text sent after each step, "" when none
	}{
		{"off says nothing", notifyOff, 0,
			[]step{{errs: fail1}, {}, {did: true}},
			[]string{"", "", ""}},
		{"failure: new, repeated, changed, recovered, idle", notifyFailure, 0,
			[]step{{errs: fail1}, {errs: fail1}, {errs: fail2}, {did: true}, {did: true}, {}},
			[]string{"Brain collection failed", "", "Brain collection failed", "Brain collection recovered", "", ""}},
		{"success: work and recovery, never failures", notifySuccess, 0,
			[]step{{did: true}, {}, {errs: fail1}, {did: true}},
			[]string{"Brain collection completed", "", "", "Brain collection recovered"}},
		{"all: both", notifyAll, 0,
			[]step{{did: true}, {errs: fail1}, {}},
			[]string{"Brain collection completed", "Brain collection failed", "Brain collection recovered"}},
		{"cooldown spaces attempts", notifyAll, 300 * time.Second,
			[]step{{did: true}, {did: true, after: 60 * time.Second}, {errs: fail1, after: 60 * time.Second}, {did: true, after: 300 * time.Second}},
			[]string{"Brain collection completed", "", "", "Brain collection recovered"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)
			var sent [][]string
			n := NewNotifier(c.mode, c.cooldown)
			n.now = func() time.Time { return now }
			n.lookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil }
			n.run = func(root string, argv []string) error {
				if root != "/brain" {
					t.Errorf("notification run from %q, want the brain root", root)
				}
				sent = append(sent, argv)
				return nil
			}
			var got []string
			for _, s := range c.steps {
				now = now.Add(s.after)
				got = append(got, n.cycle("/brain", s.errs, s.did, func(w string) { t.Errorf("unexpected warning %q", w) }))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("sent %q, want %q", got, c.want)
			}
			for _, argv := range sent {
				if runtime.GOOS != "darwin" && !reflect.DeepEqual(argv[:2], []string{"notify-send", "bf"}) {
					t.Errorf("argv %q, want notify-send with literal arguments", argv)
				}
			}
		})
	}
}

func TestNotifierWarnsOnce(t *testing.T) {
	for _, c := range []struct {
		name     string
		lookPath func(string) (string, error)
		run      error
	}{
		{"no command", func(string) (string, error) { return "", exec.ErrNotFound }, nil},
		{"the command fails", func(n string) (string, error) { return "/usr/bin/" + n, nil }, errors.New("no session bus")},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := NewNotifier(notifyAll, 0)
			n.lookPath = c.lookPath
			n.run = func(string, []string) error { return c.run }
			var warnings []string
			warn := func(w string) { warnings = append(warnings, w) }
			for _, errs := range [][]string{{"a"}, nil, {"b"}, nil} {
				if got := n.cycle("/brain", errs, true, warn); got != "" {
					t.Errorf("reported %q as sent", got)
				}
			}
			want := []string{"desktop notifications are unavailable here; bf watch goes on without them"}
			if !reflect.DeepEqual(warnings, want) {
				t.Errorf("warnings %q, want %q", warnings, want)
			}
		})
	}
}

func TestNotifyCommands(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("notify-send and gdbus are the commands outside macOS")
	}
	found := map[string]bool{}
	n := NewNotifier(notifyAll, 0)
	n.lookPath = func(name string) (string, error) {
		if found[name] {
			return "/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	if got := n.command("Brain collection failed"); got != nil {
		t.Errorf("without a desktop command: %q, want none", got)
	}
	found["gdbus"] = true
	if got := n.command("Brain collection failed"); len(got) == 0 || got[0] != "gdbus" || got[len(got)-4] != "Brain collection failed" {
		t.Errorf("gdbus argv %q", got)
	}
	found["notify-send"] = true
	if got, want := n.command("Brain collection failed"), []string{"notify-send", "bf", "Brain collection failed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("argv %q, want %q", got, want)
	}
}
