package config

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // schedules name IANA zones; the answer must not depend on the machine
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

// Limits of the top-level sections.
const (
	MaxBrains          = 32
	MaxBrainPathChars  = 4096
	MaxDescription     = 4096
	MaxForbidPatterns  = 64
	MaxPatternChars    = 4096
	MaxIndexNoteChars  = 4096
	minWatchInterval   = 5
	maxWatchInterval   = 86_400
	minPollInterval    = 0.2
	maxPollInterval    = 60
	maxWatchCooldown   = 86_400
	nameRule           = "expected a name: a lowercase letter, then up to 63 lowercase letters, digits or hyphens"
	routineNameRule    = "expected a routine name: lowercase letters and digits in words joined by single hyphens, starting with a letter, at most 64 characters"
	pointerRule        = "expected a JSON Pointer such as /attributes/name, at most 4096 characters"
	markdownPathRule   = "expected a brain-relative path to a .md file"
	distinctNamesError = "sensor and routine names must be distinct; they share logs and locks"
)

// Notification settings of bf watch.
var Notifications = []string{"off", "failure", "success", "all"}

// Statuses of OKF notes, which validate.required_status may list.
var Statuses = []string{"draft", "stable", "deprecated"}

// decoder checks a Config that yamlx.Assign filled and applies its defaults. raw maps are
// the parsed YAML, consulted to tell a key that is absent (or null) from one set to a zero
// value.
type decoder struct {
	file string
	c    *Config
}

func (d *decoder) fail(path, format string, args ...any) error {
	return yamlx.Errorf(d.file, path, format, args...)
}

// child returns the mapping under key, or nil.
func child(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// set reports a key present with a non-null value. A null setting means its default, as
// an empty section means nothing.
func set(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v != nil
}

func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// integer applies a default or checks a range for one integer setting.
func integer[T int | int64](d *decoder, raw map[string]any, path, key string, dst *T, def, lo, hi T) error {
	if !set(raw, key) {
		*dst = def
		return nil
	}
	if *dst < lo || *dst > hi {
		return d.fail(yamlx.Join(path, key), "expected an integer from %d to %d", lo, hi)
	}
	return nil
}

// enum applies a default or checks one word setting.
func (d *decoder) enum(raw map[string]any, path, key string, dst *string, def string, allowed []string) error {
	if !set(raw, key) {
		*dst = def
		return nil
	}
	if !slices.Contains(allowed, *dst) {
		return d.fail(yamlx.Join(path, key), "expected %s", orList(allowed))
	}
	return nil
}

func (d *decoder) command(k commandKind, c Command, raw map[string]any, path, key string) error {
	if sub, reason := k.check(c, set(raw, key)); reason != "" {
		p := yamlx.Join(path, key)
		if sub != "" {
			p = yamlx.Join(p, sub)
		}
		return d.fail(p, "%s", reason)
	}
	return nil
}

func (d *decoder) finish(top map[string]any) error {
	c := d.c
	if !set(top, "name") {
		return d.fail("name", "required")
	}
	if !ref.ValidName(c.Name) {
		return d.fail("name", nameRule)
	}
	for _, step := range []func(map[string]any) error{
		// Channels come before the assistants that name them.
		d.brains, d.fields, d.sensors, d.routines, d.watch, d.channels, d.assistants, d.validate, d.memory, d.embeddings, d.ask,
	} {
		if err := step(top); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) brains(top map[string]any) error {
	c, raw := d.c, child(top, "brains")
	if len(c.Brains) > MaxBrains {
		return d.fail("brains", "expected at most %d brains", MaxBrains)
	}
	for _, name := range sortedKeys(c.Brains) {
		p := yamlx.Join("brains", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		if name == c.Name {
			return d.fail(p, "a brain cannot reference its own name")
		}
		b := c.Brains[name]
		if b == nil {
			b = &Brain{}
			c.Brains[name] = b
		}
		if !set(child(raw, name), "path") {
			return d.fail(p+".path", "required")
		}
		if b.Path == "" || utf8.RuneCountInString(b.Path) > MaxBrainPathChars {
			return d.fail(p+".path", "expected 1-4096 characters")
		}
		if hasControl(b.Path) {
			return d.fail(p+".path", "path contains a control character")
		}
	}
	return nil
}

func (d *decoder) fields(top map[string]any) error {
	c, raw := d.c, child(top, "fields")
	names := sortedKeys(c.Fields)
	for _, name := range names {
		p := yamlx.Join("fields", name)
		switch name {
		case RelCites:
			return d.fail(p, "cites is built in: OKF sources and ?rel=cites links assert it; it cannot be declared")
		case RelTaggedWith:
			return d.fail(p, "tagged-with is reserved for tag membership; add tags to notes instead of declaring it")
		case RelLinks:
			return d.fail(p, "links names the backlink group of untyped links; choose another relation name")
		}
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		f := c.Fields[name]
		if f == nil {
			f = &Field{}
			c.Fields[name] = f
		}
		if err := d.field(f, child(raw, name), p); err != nil {
			return err
		}
	}
	for _, name := range names {
		f := c.Fields[name]
		if f.Broader == "" {
			continue
		}
		p := yamlx.Join("fields", name) + ".broader"
		o := c.Fields[f.Broader]
		switch {
		case f.Broader == name:
			return d.fail(p, "a relation cannot be broader than itself")
		case o == nil || !o.Relation:
			return d.fail(p, "expected another declared relation")
		case o.Broader != "":
			return d.fail(p, "expected a relation without a broader of its own; broader relations nest one level only")
		}
	}
	return nil
}

var fieldTypes = []string{"string", "integer", "number", "boolean", "timestamp", "identity"}

func (d *decoder) field(f *Field, raw map[string]any, p string) error {
	if !set(raw, "description") {
		return d.fail(p+".description", "required")
	}
	if f.Description == "" || utf8.RuneCountInString(f.Description) > MaxDescription {
		return d.fail(p+".description", "expected 1-4096 characters")
	}
	if !set(raw, "type") {
		return d.fail(p+".type", "required")
	}
	if !slices.Contains(fieldTypes, string(f.Type)) {
		return d.fail(p+".type", "expected %s", orList(fieldTypes))
	}
	card := string(f.Cardinality)
	if err := d.enum(raw, p, "cardinality", &card, string(Optional), []string{"one", "optional", "many"}); err != nil {
		return err
	}
	f.Cardinality = Cardinality(card)
	if f.Relation && f.Type != TypeIdentity {
		return d.fail(p, "relation fields require type: identity")
	}
	if f.Broader != "" && !f.Relation {
		return d.fail(p+".broader", "broader requires relation: true")
	}
	if set(raw, "broader") && f.Broader == "" {
		return d.fail(p+".broader", "expected another declared relation")
	}
	if set(raw, "targets") {
		if !f.Relation {
			return d.fail(p+".targets", "targets require relation: true")
		}
		if len(f.Targets) == 0 || len(f.Targets) > MaxTargets {
			return d.fail(p+".targets", "expected 1-64 prefixes")
		}
		for i, t := range f.Targets {
			if !validTarget(t) {
				return d.fail(yamlx.Join(p+".targets", i), "expected an identity prefix such as person:email/, at most 1024 characters without whitespace")
			}
		}
	}
	if set(raw, "default") && !validPointer(f.Default) {
		return d.fail(p+".default", pointerRule)
	}
	if len(f.Examples) > MaxExamples {
		return d.fail(p+".examples", "expected at most 20 examples")
	}
	for i, ex := range f.Examples {
		n, err := f.Normalize(ex)
		if err != nil {
			return d.valueError(yamlx.Join(p+".examples", i), err)
		}
		f.Examples[i] = n
	}
	if len(f.Examples) == 0 {
		f.Examples = nil
	}
	return nil
}

// valueError locates a Normalize error, down to the list item.
func (d *decoder) valueError(path string, err error) error {
	var ve *ValueError
	if errors.As(err, &ve) {
		path = yamlx.Join(path, ve.Index)
	}
	return d.fail(path, "%s", err.Error())
}

func (d *decoder) sensors(top map[string]any) error {
	c, raw := d.c, child(top, "sensors")
	for _, name := range sortedKeys(c.Sensors) {
		p := yamlx.Join("sensors", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		s := c.Sensors[name]
		if s == nil {
			s = &Sensor{}
			c.Sensors[name] = s
		}
		r := child(raw, name)
		if err := d.command(programKind, s.Command, r, p, "command"); err != nil {
			return err
		}
		if !set(r, "enabled") {
			s.Enabled = true
		}
		if err := d.programSettings(r, p, &s.Timeout, &s.MaxBytes, DefaultSensorBytes, MaxSensorBytes, &s.Refresh, &s.Lookback); err != nil {
			return err
		}
		if err := d.enum(r, p, "mode", &s.Mode, ModeWindow, []string{ModeWindow, ModeSnapshot}); err != nil {
			return err
		}
		if err := integer(d, r, p, "overlap", &s.Overlap, DefaultOverlap, 0, MaxSeconds); err != nil {
			return err
		}
		if s.Reconcile != nil {
			rp := p + ".reconcile"
			if s.Mode != ModeWindow {
				return d.fail(rp, "reconcile applies to window mode only")
			}
			rr := child(r, "reconcile")
			for _, k := range []string{"refresh", "lookback"} {
				if !set(rr, k) {
					return d.fail(yamlx.Join(rp, k), "required")
				}
			}
			if err := integer(d, rr, rp, "refresh", &s.Reconcile.Refresh, 0, 1, MaxSeconds); err != nil {
				return err
			}
			if err := integer(d, rr, rp, "lookback", &s.Reconcile.Lookback, 0, 1, MaxSeconds); err != nil {
				return err
			}
		}
		if err := d.enum(r, p, "priority", &s.Priority, PriorityNormal, []string{PriorityNormal, PriorityLow}); err != nil {
			return err
		}
		if err := integer(d, r, p, "silent_after", &s.SilentAfter, 0, 1, MaxSeconds); err != nil {
			return err
		}
		if err := d.mappings(s, child(r, "fields"), p+".fields"); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) programSettings(r map[string]any, p string, timeout *int, maxBytes *int64, defBytes, maxB int64, refresh, lookback *int) error {
	if err := integer(d, r, p, "timeout", timeout, DefaultTimeout, 1, MaxTimeout); err != nil {
		return err
	}
	if err := integer(d, r, p, "max_bytes", maxBytes, defBytes, 1, maxB); err != nil {
		return err
	}
	if err := integer(d, r, p, "refresh", refresh, 0, 0, MaxSeconds); err != nil {
		return err
	}
	return integer(d, r, p, "lookback", lookback, DefaultLookback, 1, MaxSeconds)
}

func (d *decoder) mappings(s *Sensor, raw map[string]any, p string) error {
	for _, name := range sortedKeys(s.Fields) {
		mp := yamlx.Join(p, name)
		f := d.c.Fields[name]
		if f == nil {
			return d.fail(mp, "not declared in fields")
		}
		m := s.Fields[name]
		if m == nil {
			m = &Mapping{}
			s.Fields[name] = m
		}
		r := child(raw, name)
		_, hasValue := r["value"]
		if hasValue && r["value"] == nil {
			return d.fail(mp+".value", "expected a non-null value")
		}
		if set(r, "path") == hasValue {
			return d.fail(mp, "expected exactly one of path or value")
		}
		if hasValue {
			n, err := f.Normalize(m.Value)
			if err != nil {
				return d.valueError(mp+".value", err)
			}
			m.Value = n
			continue
		}
		if !validPointer(m.Path) {
			return d.fail(mp+".path", pointerRule)
		}
	}
	return nil
}

func (d *decoder) routines(top map[string]any) error {
	c, raw := d.c, child(top, "routines")
	for _, name := range sortedKeys(c.Routines) {
		p := yamlx.Join("routines", name)
		if !ref.ValidRoutineName(name) {
			return d.fail(p, routineNameRule)
		}
		if _, clash := c.Sensors[name]; clash {
			return d.fail(p, distinctNamesError)
		}
		rt := c.Routines[name]
		if rt == nil {
			rt = &Routine{}
			c.Routines[name] = rt
		}
		r := child(raw, name)
		if err := d.command(programKind, rt.Command, r, p, "command"); err != nil {
			return err
		}
		if !set(r, "enabled") {
			rt.Enabled = true
		}
		if err := d.programSettings(r, p, &rt.Timeout, &rt.MaxBytes, DefaultRoutineBytes, MaxRoutineBytes, &rt.Refresh, &rt.Lookback); err != nil {
			return err
		}
		if len(rt.Hooks) > MaxHooks {
			return d.fail(p+".hooks", "expected at most 16 hooks")
		}
		for i, h := range rt.Hooks {
			if !ref.ValidRoutineName(h) {
				return d.fail(yamlx.Join(p+".hooks", i), "expected a hook name such as pre-push")
			}
			if slices.Contains(rt.Hooks[:i], h) {
				return d.fail(yamlx.Join(p+".hooks", i), "duplicate hook")
			}
		}
		if len(rt.Hooks) == 0 {
			rt.Hooks = nil
		}
		if err := d.enum(r, p, "output", &rt.Output, OutputLog, []string{OutputLog, OutputAction}); err != nil {
			return err
		}
		if set(r, "keep") && rt.Output != OutputAction {
			return d.fail(p+".keep", "keep applies to output: action only")
		}
		if err := integer(d, r, p, "keep", &rt.Keep, 0, 1, MaxKeep); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) watch(top map[string]any) error {
	w, r := &d.c.Watch, child(top, "watch")
	def := DefaultWatch()
	if err := integer(d, r, "watch", "interval", &w.Interval, def.Interval, minWatchInterval, maxWatchInterval); err != nil {
		return err
	}
	if !set(r, "poll_interval") {
		w.PollInterval = def.PollInterval
	} else if !(w.PollInterval >= minPollInterval && w.PollInterval <= maxPollInterval) {
		return d.fail("watch.poll_interval", "expected a number from 0.2 to 60")
	}
	if err := d.enum(r, "watch", "notifications", &w.Notifications, def.Notifications, Notifications); err != nil {
		return err
	}
	return integer(d, r, "watch", "notification_cooldown", &w.NotificationCooldown, def.NotificationCooldown, 0, maxWatchCooldown)
}

var atRE = regexp.MustCompile(`^(?:[01][0-9]|2[0-3]):[0-5][0-9]$`)

func (d *decoder) assistants(top map[string]any) error {
	c, raw := d.c, child(top, "assistants")
	for _, name := range sortedKeys(c.Assistants) {
		p := yamlx.Join("assistants", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		_, s := c.Sensors[name]
		_, r := c.Routines[name]
		if s || r {
			return d.fail(p, "assistant names must differ from sensor and routine names; they share logs, locks and memories")
		}
		a := c.Assistants[name]
		if a == nil {
			a = &Assistant{}
			c.Assistants[name] = a
		}
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
	switch {
	case set(r, "text") && set(r, "prompt"):
		return d.fail(p, "expected at most one of text or prompt")
	case set(r, "text"):
		if strings.TrimSpace(a.Text) == "" {
			return d.fail(p+".text", "expected a nonempty prompt")
		}
		if len(a.Text) > MaxPromptBytes {
			return d.fail(p+".text", "prompt exceeds %d bytes", MaxPromptBytes)
		}
		if strings.IndexByte(a.Text, 0) >= 0 {
			return d.fail(p+".text", "prompt contains a NUL character")
		}
	case set(r, "prompt"):
		if !markdownPath(a.Prompt) {
			return d.fail(p+".prompt", markdownPathRule)
		}
	default:
		a.Prompt = defaultPrompt(name)
	}
	if !set(r, "enabled") {
		a.Enabled = true
	}
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
		if len(w.Sources) > MaxWhenSources {
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
	if err := integer(d, r, p, "retries", &a.Retries, DefaultRetries, 1, MaxRetries); err != nil {
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
	if err := integer(d, r, p, "keep", &a.Keep, 0, 1, MaxKeep); err != nil {
		return err
	}
	if err := integer(d, r, p, "timeout", &a.Timeout, DefaultTimeout, 1, MaxTimeout); err != nil {
		return err
	}
	return integer(d, r, p, "max_bytes", &a.MaxBytes, DefaultAssistantBytes, 1, MaxAssistantBytes)
}

func defaultPrompt(name string) string { return "prompts/" + name + ".md" }

func (d *decoder) schedules(a *Assistant, raw map[string]any, p string) error {
	if len(a.Schedules) > MaxSchedules {
		return d.fail(p, "expected at most %d schedules", MaxSchedules)
	}
	for _, name := range sortedKeys(a.Schedules) {
		sp := yamlx.Join(p, name)
		if !ref.ValidName(name) {
			return d.fail(sp, nameRule)
		}
		s := a.Schedules[name]
		if s == nil {
			s = &Schedule{}
			a.Schedules[name] = s
		}
		r := child(raw, name)
		if set(r, "every") == set(r, "at") {
			return d.fail(sp, "expected exactly one of every or at")
		}
		if set(r, "every") {
			if err := integer(d, r, sp, "every", &s.Every, 0, 1, MaxSeconds); err != nil {
				return err
			}
			for _, k := range []string{"days", "timezone"} {
				if set(r, k) {
					return d.fail(yamlx.Join(sp, k), "%s applies to at schedules only", k)
				}
			}
			continue
		}
		if !atRE.MatchString(s.At) {
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
	if len(a.Inputs) > MaxInputs {
		return d.fail(p, "expected at most %d inputs", MaxInputs)
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
			if err := integer(d, ir, ip, "every", &in.Every, 0, 1, MaxSeconds); err != nil {
				return err
			}
		}
	}
	if len(a.Inputs) == 0 {
		a.Inputs = nil
	}
	return nil
}

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
	for _, name := range sortedKeys(c.Channels) {
		p := yamlx.Join("channels", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		ch := c.Channels[name]
		if ch == nil {
			ch = &Channel{}
			c.Channels[name] = ch
		}
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
	kind, timeout, lo, def, hi := sendKind, DefaultTimeout, int64(1), int64(DefaultChannelBytes), int64(MaxChannelBytes)
	switch op {
	case OpRead:
		kind = readKind
	case OpStream:
		kind, timeout, lo, def, hi = streamKind, DefaultStreamTimeout, MinFrameBytes, DefaultFrameBytes, MaxFrameBytes
	}
	if err := d.command(kind, capa.Command, r, p, "command"); err != nil {
		return err
	}
	if err := integer(d, r, p, "timeout", &capa.Timeout, timeout, 1, MaxTimeout); err != nil {
		return err
	}
	if err := integer(d, r, p, "max_bytes", &capa.MaxBytes, def, lo, hi); err != nil {
		return err
	}
	if _, present := r["idempotent"]; present && op != OpSend {
		return d.fail(p+".idempotent", "idempotent applies to send only")
	}
	return nil
}

func (d *decoder) validate(top map[string]any) error {
	v := d.c.Validate
	if v == nil {
		return nil
	}
	r := child(top, "validate")
	if set(r, "index_note") && (!markdownPath(v.IndexNote) || utf8.RuneCountInString(v.IndexNote) > MaxIndexNoteChars) {
		return d.fail("validate.index_note", markdownPathRule)
	}
	for i, s := range v.RequiredStatus {
		if !slices.Contains(Statuses, s) {
			return d.fail(yamlx.Join("validate.required_status", i), "expected %s", orList(Statuses))
		}
		if slices.Contains(v.RequiredStatus[:i], s) {
			return d.fail(yamlx.Join("validate.required_status", i), "duplicate status")
		}
	}
	if len(v.RequiredStatus) == 0 {
		v.RequiredStatus = nil
	}
	if len(v.ForbidPatterns) > MaxForbidPatterns {
		return d.fail("validate.forbid_patterns", "expected at most %d patterns", MaxForbidPatterns)
	}
	for i, pat := range v.ForbidPatterns {
		if pat == "" || utf8.RuneCountInString(pat) > MaxPatternChars {
			return d.fail(yamlx.Join("validate.forbid_patterns", i), "expected 1-4096 characters")
		}
		if _, err := regexp.Compile(pat); err != nil {
			// The compiler's message quotes the pattern: keep only the verdict.
			return d.fail(yamlx.Join("validate.forbid_patterns", i), "invalid regular expression (Go RE2 syntax)")
		}
	}
	if len(v.ForbidPatterns) == 0 {
		v.ForbidPatterns = nil
	}
	return nil
}

// validPointer implements ^/(?:[^~]|~[01])*$ with at most 4096 characters.
func validPointer(s string) bool {
	if !strings.HasPrefix(s, "/") || !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxPointer {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

// validTarget implements ^[a-z][a-z0-9+.-]*:\S*$ with at most 1024 characters; Unicode
// spaces and control characters count as whitespace.
func validTarget(t string) bool {
	if !utf8.ValidString(t) || utf8.RuneCountInString(t) > MaxTargetChars {
		return false
	}
	scheme, rest, ok := strings.Cut(t, ":")
	if !ok || scheme == "" || scheme[0] < 'a' || scheme[0] > 'z' {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	for _, r := range rest {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) {
			return false
		}
	}
	return true
}

// markdownPath reports a clean brain-relative path of a .md file.
func markdownPath(p string) bool {
	return cleanRelPath(p) && !strings.ContainsRune(p, '\\') && strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "/.md")
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// memory checks memory.scopes: distinct nonblank strings without control characters; the
// scope grammar itself is the memory package's and bf review applies it.
func (d *decoder) memory(map[string]any) error {
	m := d.c.Memory
	if m == nil {
		return nil
	}
	if len(m.Scopes) > MaxScopes {
		return d.fail("memory.scopes", "expected at most %d scopes", MaxScopes)
	}
	for i, s := range m.Scopes {
		if s == "" || len(s) > 256 || hasControl(s) {
			return d.fail(yamlx.Join("memory.scopes", i), "expected a scope such as channel:deploy, at most 256 characters")
		}
		if slices.Contains(m.Scopes[:i], s) {
			return d.fail(yamlx.Join("memory.scopes", i), "duplicate scope")
		}
	}
	if len(m.Scopes) == 0 {
		m.Scopes = nil
	}
	return nil
}
