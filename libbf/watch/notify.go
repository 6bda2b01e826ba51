package watch

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Notification modes (watch.notifications in bf.yaml, --notify).
const (
	NotifyOff     = "off"
	NotifyFailure = "failure"
	NotifySuccess = "success"
	NotifyAll     = "all"
)

// Notifier sends desktop notifications with the system's own command (osascript on macOS;
// notify-send, else gdbus, elsewhere), literal argv and a 5 s timeout. It says only
// generic sentences, never names or paths. Without a desktop it warns once.
type Notifier struct {
	Mode     string
	Cooldown time.Duration

	mu       sync.Mutex
	failing  string // the failure set last notified, joined
	last     time.Time
	warned   bool
	lookPath func(string) (string, error)
	run      func(argv []string) error
}

// NewNotifier returns a notifier for mode with cooldown between notifications.
func NewNotifier(mode string, cooldown time.Duration) *Notifier {
	return &Notifier{Mode: mode, Cooldown: cooldown, lookPath: exec.LookPath, run: func(argv []string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return exec.CommandContext(ctx, argv[0], argv[1:]...).Run()
	}}
}

// cycle decides after each cycle whether to notify: failure mode on a new or changed
// failure set and on recovery, success mode on a cycle that did work and on recovery.
func (n *Notifier) cycle(errs []string, did bool, warn func(string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Mode == NotifyOff || n.Mode == "" {
		return
	}
	set := strings.Join(errs, "\n")
	var text string
	switch {
	case set != "" && set != n.failing && (n.Mode == NotifyFailure || n.Mode == NotifyAll):
		text = "Brain collection failed"
	case set == "" && n.failing != "":
		text = "Brain collection recovered"
	case set == "" && did && (n.Mode == NotifySuccess || n.Mode == NotifyAll):
		text = "Brain collection completed"
	}
	n.failing = set
	if text == "" || time.Since(n.last) < n.Cooldown {
		return
	}
	n.last = time.Now()
	argv := n.command(text)
	if argv == nil || n.run(argv) != nil {
		if !n.warned && warn != nil {
			warn("desktop notifications are unavailable here; bf watch goes on without them")
		}
		n.warned = true
	}
}

func (n *Notifier) command(text string) []string {
	if runtime.GOOS == "darwin" {
		if p, err := n.lookPath("osascript"); err == nil {
			return []string{p, "-e", `display notification "` + text + `" with title "bf"`}
		}
		return nil
	}
	if p, err := n.lookPath("notify-send"); err == nil {
		return []string{p, "bf", text}
	}
	if p, err := n.lookPath("gdbus"); err == nil {
		return []string{p, "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
			"/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
			"bf", "0", "", "bf", text, "[]", "{}", "5000"}
	}
	return nil
}
