package channel

import (
	"errors"
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
	"github.com/bfgo/bf/libbf/ref"
)

// Sentinels for errors.Is, so commands can tell a wrong argument (exit 2) from a failure.
var (
	// errUndeclared is a channel name that bf.yaml does not declare.
	errUndeclared = errors.New("channel not declared")
	// errNoCapability is an operation the channel does not declare.
	errNoCapability = errors.New("channel lacks the capability")
	// ErrWindow is a read window that is empty or reversed.
	ErrWindow = errors.New("invalid read window")
)

// Endpoint is one declared channel of one brain, ready to run its commands.
type Endpoint struct {
	// Name is the channel's name in bf.yaml.
	Name string
	// Root is the absolute brain folder: working directory of every command and {{brain}}.
	Root string
	// Home is {{home}}; empty when unknown, which makes commands that use it fail.
	Home string
	// Config is the channel's declaration.
	Config *config.Channel
}

// Open returns the endpoint of channel name in brain b. home is the user's home folder
// for {{home}}.
func Open(b *brain.Brain, home, name string) (*Endpoint, error) {
	if !ref.ValidName(name) {
		return nil, &kindError{kind: errUndeclared,
			msg: "channel name: expected a lowercase letter, then up to 63 lowercase letters, digits or hyphens"}
	}
	var ch *config.Channel
	if b.Config != nil {
		ch = b.Config.Channels[name]
	}
	if ch == nil {
		return nil, &kindError{kind: errUndeclared, msg: fmt.Sprintf("channel %s: not declared; add it under channels: in bf.yaml", name)}
	}
	return &Endpoint{Name: name, Root: b.Root, Home: home, Config: ch}, nil
}

// capability returns the declaration of op, or an error naming what to add.
func (e *Endpoint) capability(op string) (*config.Capability, error) {
	c := e.Config.Capability(op)
	if c == nil {
		return nil, &kindError{kind: errNoCapability, msg: fmt.Sprintf("channel %s: declares no %s; add %s: to it in bf.yaml", e.Name, op, op)}
	}
	return c, nil
}

// program is the name proc runs operation op under; its stderr goes to logs/NAME.log.
func program(channel, op string) string { return "channel." + channel + "." + op }

// log is the brain-relative log of operation op of channel.
func log(channel, op string) string { return proc.LogPath(program(channel, op)) }

// spec describes one run of operation op. Finite runs get the capability's runtime limit
// and output cap; a stream has neither, its frames being bounded one by one instead.
func (e *Endpoint) spec(op string, c *config.Capability, vars proc.Vars) proc.Spec {
	s := proc.Spec{
		Name:    program(e.Name, op),
		Root:    e.Root,
		Command: c.Command,
		Vars:    vars,
		// Nested bf commands of the adapter then work on this brain.
		Env:  []string{"BF_BRAIN=" + e.Root},
		Role: "adapter",
	}
	s.Vars.Home = e.Home
	if op != config.OpStream {
		s.Timeout = seconds(c.Timeout, config.DefaultTimeout)
		s.MaxBytes = c.MaxBytes
		if s.MaxBytes <= 0 {
			s.MaxBytes = config.DefaultChannelBytes
		}
	}
	return s
}

// kindError is a sentence for the user that matches one of the sentinels above, so the
// sentence stays exactly as written while errors.Is still recognises it.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() error { return e.kind }

// seconds turns a configured number of seconds into a duration, def when unset.
func seconds(n, def int) time.Duration {
	if n <= 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}
