package config

import (
	"maps"
	"slices"
	"strings"
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
	for _, name := range slices.Sorted(maps.Keys(c.Brains)) {
		p := yamlx.Join("brains", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		if name == c.Name {
			return d.fail(p, "a brain cannot reference its own name")
		}
		b := declared(c.Brains, name)
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

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) {
			return true
		}
	}
	return false
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

// declared returns the settings m declares under name, storing a zero value for a name
// declared without settings (`name:` alone), so that defaults have a place to go.
func declared[T any](m map[string]*T, name string) *T {
	e := m[name]
	if e == nil {
		e = new(T)
		m[name] = e
	}
	return e
}
