// Decoding of the assistants section: harness commands, prompts, schedules and inputs.

package config

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // schedules name IANA zones; the answer must not depend on the machine

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

var atRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[01][0-9]|2[0-3]):[0-5][0-9]$`) })

func (d *decoder) assistants(top map[string]any) error {
	c, raw := d.c, child(top, "assistants")
	for _, name := range slices.Sorted(maps.Keys(c.Assistants)) {
		p := yamlx.Join("assistants", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		_, s := c.Sensors[name]
		_, r := c.Routines[name]
		if s || r {
			return d.fail(p, "assistant names must differ from sensor and routine names; they share logs, locks and memories")
		}
		a := declared(c.Assistants, name)
		if err := d.assistant(name, a, child(raw, name), p); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) assistant(name string, a *Assistant, r map[string]any, p string) error {
	c := d.c
	if err := d.command(assistantKind, a.Command, r, p, "command"); err != nil {
		return err
	}
	if set(r, "prompt") {
		if !markdownPath(a.Prompt) {
			return d.fail(p+".prompt", markdownPathRule)
		}
	} else {
		a.Prompt = defaultPrompt(name)
	}
	d.flag(r, p, "enabled", &a.Enabled)
	if err := d.schedules(a, child(r, "schedules"), p+".schedules"); err != nil {
		return err
	}
	if err := d.inputs(a, r, p+".inputs"); err != nil {
		return err
	}
	if set(r, "post") {
		if err := d.channelRef(a.Post, OpSend, p+".post"); err != nil {
			return err
		}
	}
	if a.Reply != nil {
		if !set(child(r, "reply"), "path") {
			return d.fail(p+".reply.path", "required")
		}
		if !validPointer(a.Reply.Path) {
			return d.fail(p+".reply.path", pointerRule)
		}
	}
	if a.Reply == nil {
		for i, arg := range a.Command {
			if strings.Contains(arg, PlaceholderSchema) {
				return d.fail(yamlx.Join(p+".command", i), "{{schema}} needs reply: {path: POINTER}")
			}
		}
	}
	if set(r, "gate") {
		if err := d.command(gateKind, a.Gate, r, p, "gate"); err != nil {
			return err
		}
	}
	if a.When != nil {
		w := a.When
		wp := p + ".when"
		if len(w.Sources) == 0 && !w.Review && !w.Actions && !w.Attention {
			return d.fail(wp, "expected at least one of sources, review, actions or attention")
		}
		if len(w.Sources) > maxWhenSources {
			return d.fail(wp+".sources", "expected at most 64 sources")
		}
		for i, s := range w.Sources {
			if _, ok := c.Sensors[s]; !ok {
				return d.fail(yamlx.Join(wp+".sources", i), "expected a declared sensor")
			}
			if slices.Contains(w.Sources[:i], s) {
				return d.fail(yamlx.Join(wp+".sources", i), "duplicate source")
			}
		}
	}
	if set(r, "retries") && !a.Idempotent.Any() {
		return d.fail(p+".retries", "retries apply only to idempotent run kinds")
	}
	if err := integer(d, r, p, "retries", &a.Retries); err != nil {
		return err
	}
	for _, key := range []string{"input_args", "schedule_args"} {
		args := a.InputArgs
		if key == "schedule_args" {
			args = a.ScheduleArgs
		}
		if len(a.Command)+len(args) > MaxArgs {
			return d.fail(p+"."+key, "command and %s together exceed 128 arguments", key)
		}
		if i, reason := assistantKind.checkArgs(args, 0); reason != "" {
			return d.fail(yamlx.Join(p+"."+key, i), "%s", reason)
		}
		for i, arg := range args {
			if a.Reply == nil && strings.Contains(arg, PlaceholderSchema) {
				return d.fail(yamlx.Join(p+"."+key, i), "{{schema}} needs reply: {path: POINTER}")
			}
		}
	}
	if len(a.InputArgs) == 0 {
		a.InputArgs = nil
	}
	if len(a.ScheduleArgs) == 0 {
		a.ScheduleArgs = nil
	}
	if err := integer(d, r, p, "keep", &a.Keep); err != nil {
		return err
	}
	if err := integer(d, r, p, "timeout", &a.Timeout); err != nil {
		return err
	}
	return integer(d, r, p, "max_bytes", &a.MaxBytes)
}

func defaultPrompt(name string) string { return "prompts/" + name + ".md" }

func (d *decoder) schedules(a *Assistant, raw map[string]any, p string) error {
	if len(a.Schedules) > maxSchedules {
		return d.fail(p, "expected at most %d schedules", maxSchedules)
	}
	for _, name := range slices.Sorted(maps.Keys(a.Schedules)) {
		sp := yamlx.Join(p, name)
		if !ref.ValidName(name) {
			return d.fail(sp, nameRule)
		}
		s := declared(a.Schedules, name)
		r := child(raw, name)
		if set(r, "every") == set(r, "at") {
			return d.fail(sp, "expected exactly one of every or at")
		}
		if set(r, "every") {
			if err := integer(d, r, sp, "every", &s.Every); err != nil {
				return err
			}
			for _, k := range []string{"days", "timezone"} {
				if set(r, k) {
					return d.fail(yamlx.Join(sp, k), "%s applies to at schedules only", k)
				}
			}
			continue
		}
		if !atRE().MatchString(s.At) {
			return d.fail(sp+".at", "expected HH:MM on a 24-hour clock")
		}
		for i, day := range s.Days {
			if !slices.Contains(Days, day) {
				return d.fail(yamlx.Join(sp+".days", i), "expected %s", orList(Days))
			}
			if slices.Contains(s.Days[:i], day) {
				return d.fail(yamlx.Join(sp+".days", i), "duplicate day")
			}
		}
		if len(s.Days) == 0 {
			s.Days = nil
		}
		if set(r, "timezone") && !validZone(s.Timezone) {
			return d.fail(sp+".timezone", "expected an IANA time zone such as Europe/Paris")
		}
	}
	return nil
}

func validZone(z string) bool {
	if z == "" || z == "Local" || strings.HasPrefix(z, "/") || strings.Contains(z, "..") {
		return false
	}
	_, err := time.LoadLocation(z)
	return err == nil
}

func (d *decoder) inputs(a *Assistant, r map[string]any, p string) error {
	if len(a.Inputs) > maxInputs {
		return d.fail(p, "expected at most %d inputs", maxInputs)
	}
	list, _ := r["inputs"].([]any)
	for i, in := range a.Inputs {
		ip := yamlx.Join(p, i)
		if in == nil {
			in = &Input{}
			a.Inputs[i] = in
		}
		var ir map[string]any
		if i < len(list) {
			ir, _ = list[i].(map[string]any)
		}
		if !set(ir, "channel") {
			return d.fail(ip+".channel", "required")
		}
		if !set(ir, "mode") {
			return d.fail(ip+".mode", "required")
		}
		if in.Mode != InputRead && in.Mode != InputStream {
			return d.fail(ip+".mode", "expected read or stream")
		}
		if err := d.channelRef(in.Channel, in.Mode, ip+".channel"); err != nil {
			return err
		}
		if d.c.Channels[in.Channel].Send == nil {
			return d.fail(ip+".channel", "channel declares no send, which answers its messages; add send: to it")
		}
		for _, prev := range a.Inputs[:i] {
			if prev.Channel == in.Channel {
				return d.fail(ip+".channel", "channel is already an input")
			}
		}
		switch {
		case in.Mode == InputRead && !set(ir, "every"):
			return d.fail(ip+".every", "read inputs require every")
		case in.Mode == InputStream && set(ir, "every"):
			return d.fail(ip+".every", "every applies to read inputs only")
		case in.Mode == InputRead:
			if err := integer(d, ir, ip, "every", &in.Every); err != nil {
				return err
			}
		}
	}
	if len(a.Inputs) == 0 {
		a.Inputs = nil
	}
	return nil
}
