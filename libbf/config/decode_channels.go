// Decoding of the channels section: adapter capabilities and the references assistants make to them.

package config

import (
	"maps"
	"slices"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

// channelRef checks that name is a declared channel with capability op.
func (d *decoder) channelRef(name, op, path string) error {
	ch := d.c.Channels[name]
	if ch == nil {
		return d.fail(path, "expected a declared channel")
	}
	if ch.Capability(op) == nil {
		return d.fail(path, "channel %s declares no %s; add %s: to it, or name a channel that has one", name, op, op)
	}
	return nil
}

func (d *decoder) channels(top map[string]any) error {
	c, raw := d.c, child(top, "channels")
	for _, name := range slices.Sorted(maps.Keys(c.Channels)) {
		p := yamlx.Join("channels", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		ch := declared(c.Channels, name)
		if ch.Send == nil && ch.Read == nil && ch.Stream == nil {
			return d.fail(p, "a channel needs at least one of send, read or stream")
		}
		r := child(raw, name)
		for _, op := range []string{OpSend, OpRead, OpStream} {
			capa := ch.Capability(op)
			if capa == nil {
				continue
			}
			if err := d.capability(op, capa, child(r, op), yamlx.Join(p, op)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *decoder) capability(op string, capa *Capability, r map[string]any, p string) error {
	kind := sendKind
	switch op {
	case OpRead:
		kind = readKind
	case OpStream:
		kind = streamKind
	}
	if err := d.command(kind, capa.Command, r, p, "command"); err != nil {
		return err
	}
	if err := integer(d, r, p, "timeout", &capa.Timeout); err != nil {
		return err
	}
	if err := integer(d, r, p, "max_bytes", &capa.MaxBytes); err != nil {
		return err
	}
	if _, present := r["idempotent"]; present && op != OpSend {
		return d.fail(p+".idempotent", "idempotent applies to send only")
	}
	return nil
}
