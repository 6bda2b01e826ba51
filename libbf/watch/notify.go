package watch

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/proc"
)

// Notification modes (watch.notifications in bf.yaml, --notify).
const (
	notifyOff     = "off"
	notifyFailure = "failure"
	notifySuccess = "success"
	notifyAll     = "all"
)

// notifyTimeout bounds one desktop notification command.
const notifyTimeout = 5 * time.Second

// notifyProgram is the name the notification command runs under (its log is
// logs/watch-notify.log).
const notifyProgram = "watch-notify"

// Notifier sends desktop notifications with the system's own command (osascript on macOS;
// notify-send, else gdbus, elsewhere), run through package proc with literal argv and a 5 s
// timeout. It says only generic sentences, never names or paths. Without a desktop (no
// command, or one that fails) it warns once and goes on.
type Notifier struct {
	Mode     string
	Cooldown time.Duration

	mu       sync.Mutex
	failing  string // the failure set last notified, joined
	last     time.Time
	warned   bool
	lookPath func(string) (string, error)
	run      func(root string, argv []string) error
	now      func() time.Time
}

// NewNotifier returns a notifier for mode with cooldown between notifications.
func NewNotifier(mode string, cooldown time.Duration) *Notifier {
	return &Notifier{Mode: mode, Cooldown: cooldown, lookPath: exec.LookPath, run: runNotify, now: time.Now}
}

// runNotify runs argv from brain root through package proc.
func runNotify(root string, argv []string) error {
	_, err := proc.Run(context.Background(), proc.Spec{Name: notifyProgram, Root: root, Command: argv,
		Timeout: notifyTimeout, MaxBytes: 64 << 10})
	return err
}

// cycle decides after each cycle of the brain at root whether to notify: failure mode on a
// new or changed failure set and on recovery, success mode on a cycle that did work and on
// recovery; identical failures and idle cycles stay quiet, and cooldown spaces the
// attempts. It returns the text it sent, or "".
func (n *Notifier) cycle(root string, errs []string, did bool, warn func(string)) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Mode == notifyOff || n.Mode == "" {
		return ""
	}
	set := strings.Join(errs, "\n")
	var text string
	switch {
	case set != "" && set != n.failing && (n.Mode == notifyFailure || n.Mode == notifyAll):
		text = "Brain collection failed"
	case set == "" && n.failing != "":
		text = "Brain collection recovered"
	case set == "" && did && (n.Mode == notifySuccess || n.Mode == notifyAll):
		text = "Brain collection completed"
	}
	n.failing = set
	now := n.now()
	if text == "" || !n.last.IsZero() && now.Sub(n.last) < n.Cooldown {
		return ""
	}
	n.last = now
	argv := n.command(text)
	if argv == nil || n.run(root, argv) != nil {
		if !n.warned && warn != nil {
			warn("desktop notifications are unavailable here; bf watch goes on without them")
		}
		n.warned = true
		return ""
	}
	return text
}

// command is the argv that shows text on this machine's desktop, or nil. Its program is
// named bare: package proc finds it on PATH.
func (n *Notifier) command(text string) []string {
	if runtime.GOOS == "darwin" {
		if _, err := n.lookPath("osascript"); err == nil {
			return []string{"osascript", "-e", `display notification "` + text + `" with title "bf"`}
		}
		return nil
	}
	if _, err := n.lookPath("notify-send"); err == nil {
		return []string{"notify-send", "bf", text}
	}
	if _, err := n.lookPath("gdbus"); err == nil {
		return []string{"gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
			"/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
			"bf", "0", "", "bf", text, "[]", "{}", "5000"}
	}
	return nil
}
