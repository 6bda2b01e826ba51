package messaging

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// A Messenger sends, reads, queues and retries a brain's messages on one machine, at one
// clock and in one zone; the package-level functions use the zero value (this machine,
// the real time, the local zone).
type Messenger struct {
	// Env is the machine (trust, state folder, home); nil: brain.System().
	Env *brain.Env
	// Queue holds the queue's clock and limits; zero fields take their defaults.
	Queue queue.Options
	// Now is the clock of --since and --until; nil: time.Now.
	Now func() time.Time
	// Location is the zone replies show instants in, and of days in --since and
	// --until; nil: time.Local.
	Location *time.Location
}

func (o Messenger) env() brain.Env { return brain.EnvOrSystem(o.Env) }

func (o Messenger) now() time.Time { return timestamp.Clock(o.Now) }

func (o Messenger) loc() *time.Location { return timestamp.Zone(o.Location) }

// access says how a command uses the queue.
type access int

const (
	// existing opens the queue only when the brain has one; nothing is created.
	existing access = iota + 1
	// create opens the queue, creating it when needed.
	create
)

// opened is a brain's queue opened for a command, or none (q nil) when the brain has no
// queue and the command did not need one.
type opened struct {
	q     *queue.Queue
	state string // the brain's state folder; "" when it was not created
}

func (o *opened) close() {
	if o.q != nil {
		o.q.Close()
	}
}

// binding is what the brain's queue is bound to: its resolved path and its name.
func binding(b *brain.Brain) (queue.Binding, error) {
	path, err := resolved(b)
	if err != nil {
		return queue.Binding{}, err
	}
	return queue.Binding{Path: path, Name: b.Name}, nil
}

// resolved is the brain folder's path with symbolic links resolved.
func resolved(b *brain.Brain) (string, error) {
	path, err := filepath.EvalSymlinks(b.Root)
	if err != nil {
		return "", fmt.Errorf("%s: cannot resolve the brain folder: %w", b.Root, err)
	}
	return path, nil
}

// openQueue opens b's queue for a command that may change it. It adopts a state folder
// left under an earlier device number first, then checks trust when the command runs
// programs (trusted), creates the state folder when needed, opens the queue (rolling back
// an interrupted write, rebinding a moved brain) and, when record is set, records the
// attempts of dead processes and removes the context files they left behind.
func (o Messenger) openQueue(b *brain.Brain, how access, trusted, record bool) (*opened, error) {
	env := o.env()
	bind, dir, err := o.adopt(b)
	if err != nil {
		return nil, err
	}
	if trusted {
		if err := env.RequireTrust(b.Root, collect.ErrUntrusted); err != nil {
			return nil, err
		}
	}
	if how == existing {
		if _, err := os.Lstat(filepath.Join(dir, queue.FileName)); errors.Is(err, fs.ErrNotExist) {
			return &opened{}, nil
		}
	}
	if dir, err = env.BrainStateDir(b.ID); err != nil {
		return nil, err
	}
	q, err := queue.Open(dir, bind, o.Queue)
	if err != nil {
		return nil, err
	}
	if record {
		if _, err := q.Recover(); err != nil {
			q.Close()
			return nil, err
		}
		if err := sweepContexts(q, dir); err != nil {
			q.Close()
			return nil, err
		}
	}
	return &opened{q: q, state: dir}, nil
}

// adopt adopts b's state folder left under an earlier device number, and returns the
// queue's binding and the path of b's state folder, which it does not create.
func (o Messenger) adopt(b *brain.Brain) (queue.Binding, string, error) {
	path, err := resolved(b)
	if err != nil {
		return queue.Binding{}, "", err
	}
	dir, err := o.env().BrainStatePath(b.ID)
	if err != nil {
		return queue.Binding{}, "", err
	}
	if _, err := queue.Adopt(filepath.Dir(dir), b.ID.Dev, b.ID.Ino, path); err != nil {
		return queue.Binding{}, "", err
	}
	bind := queue.Binding{Path: path, Name: b.Name}
	if b.ConfigErr != nil {
		if bind.Name, err = o.boundName(dir, path, b.ConfigErr); err != nil {
			return queue.Binding{}, "", err
		}
	}
	return bind, dir, nil
}

// boundName is the name of a brain whose bf.yaml does not load (why): the name its queue
// in dir is bound to under its path, so listing, opening and cancelling work, which run
// no program. Without a queue the name is left empty (there is nothing to list); a queue
// bound elsewhere, or one that cannot be read, needs bf.yaml fixed first.
func (o Messenger) boundName(dir, path string, why error) (string, error) {
	q, err := queue.OpenReadOnly(dir, o.Queue)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w; fix bf.yaml so bf queue can open the assistant queue", why)
	}
	defer q.Close()
	bound := q.Binding()
	if bound.Path != path || bound.Name == "" {
		return "", fmt.Errorf("%w; fix bf.yaml: its assistant queue is bound to another path", why)
	}
	return bound.Name, nil
}

// stateDir creates and returns b's state folder, after adopting an earlier one.
func (o Messenger) stateDir(b *brain.Brain) (string, error) {
	if _, _, err := o.adopt(b); err != nil {
		return "", err
	}
	return o.env().BrainStateDir(b.ID)
}

// endpoint opens channel name of b for operation op. An unknown channel or a missing
// capability is invalid input naming the channel.
func (o Messenger) endpoint(b *brain.Brain, name, op string) (*channel.Endpoint, *config.Capability, error) {
	e, err := channel.Open(b, o.env().Home, name)
	if err != nil {
		var declared map[string]*config.Channel
		if b.Config != nil {
			declared = b.Config.Channels
		}
		return nil, nil, &reply.InputError{Argument: "channel",
			Err: fmt.Errorf("no channel of this brain is called %s; its bf.yaml declares %s", name, names(declared))}
	}
	c := e.Config.Capability(op)
	if c == nil {
		return nil, nil, &reply.InputError{Argument: "channel",
			Err: fmt.Errorf("channel %s declares no %s; add %s: to it in bf.yaml", name, op, op)}
	}
	return e, c, nil
}

// snapshot is the queue's snapshot of a send capability.
func snapshot(c *config.Capability) *queue.Send {
	if c == nil {
		return nil
	}
	return &queue.Send{Command: append([]string{}, c.Command...), Idempotent: c.Idempotent}
}

// names lists map keys in order: "a", "a and b", "a, b and c", or "none".
func names[V any](m map[string]V) string {
	keys := slices.Sorted(maps.Keys(m))
	switch len(keys) {
	case 0:
		return "none"
	case 1:
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
}
