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
	maxBrains          = 32
	maxBrainPathChars  = 4096
	maxDescription     = 4096
	maxForbidPatterns  = 64
	maxPatternChars    = 4096
	maxIndexNoteChars  = 4096
	nameRule           = "expected a name: a lowercase letter, then up to 63 lowercase letters, digits or hyphens"
	routineNameRule    = "expected a routine name: lowercase letters and digits in words joined by single hyphens, starting with a letter, at most 64 characters"
	pointerRule        = "expected a JSON Pointer such as /attributes/name, at most 4096 characters"
	markdownPathRule   = "expected a brain-relative path to a .md file"
	distinctNamesError = "sensor and routine names must be distinct; they share logs and locks"
)

// Notification settings of bf watch.
var Notifications = []string{"off", "failure", "success", "all"}

// statuses of OKF notes, which validate.required_status may list.
var statuses = []string{"draft", "stable", "deprecated"}

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

// integer fills the default of the integer setting at path.key when raw lacks it, or
// checks its range, both as Settings describe it.
func integer[T int | int64](d *decoder, raw map[string]any, path, key string, dst *T) error {
	p := yamlx.Join(path, key)
	s := described(p)
	if !set(raw, key) {
		def, _ := s.Default.(int64)
		*dst = T(def)
		return nil
	}
	if float64(*dst) < s.Min || float64(*dst) > s.Max {
		return d.fail(p, "expected an integer from %d to %d", int64(s.Min), int64(s.Max))
	}
	return nil
}

// number is integer for a setting that takes any number.
func (d *decoder) number(raw map[string]any, path, key string, dst *float64) error {
	p := yamlx.Join(path, key)
	s := described(p)
	if !set(raw, key) {
		*dst, _ = s.Default.(float64)
		return nil
	}
	if !(*dst >= s.Min && *dst <= s.Max) {
		return d.fail(p, "expected a number from %g to %g", s.Min, s.Max)
	}
	return nil
}

// flag fills the default of the boolean setting at path.key when raw lacks it.
func (d *decoder) flag(raw map[string]any, path, key string, dst *bool) {
	if !set(raw, key) {
		*dst, _ = described(yamlx.Join(path, key)).Default.(bool)
	}
}

// word is integer for a setting that takes one of its Words.
func (d *decoder) word(raw map[string]any, path, key string, dst *string) error {
	p := yamlx.Join(path, key)
	s := described(p)
	if !set(raw, key) {
		*dst, _ = s.Default.(string)
		return nil
	}
	if !slices.Contains(s.Words, *dst) {
		return d.fail(p, "expected %s", orList(s.Words))
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
	if len(c.Brains) > maxBrains {
		return d.fail("brains", "expected at most %d brains", maxBrains)
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
		if b.Path == "" || utf8.RuneCountInString(b.Path) > maxBrainPathChars {
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
	if err := integer(d, r, "watch", "interval", &w.Interval); err != nil {
		return err
	}
	if err := d.number(r, "watch", "poll_interval", &w.PollInterval); err != nil {
		return err
	}
	if err := d.word(r, "watch", "notifications", &w.Notifications); err != nil {
		return err
	}
	return integer(d, r, "watch", "notification_cooldown", &w.NotificationCooldown)
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
	if len(m.Scopes) > maxScopes {
		return d.fail("memory.scopes", "expected at most %d scopes", maxScopes)
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
