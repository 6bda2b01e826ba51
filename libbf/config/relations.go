package config

import (
	"maps"
	"regexp"
	"slices"
)

// isBuiltinRelation reports cites, tagged-with and links, which every brain has and none
// may declare.
func isBuiltinRelation(name string) bool {
	return name == RelCites || name == RelTaggedWith || name == RelLinks
}

// Relations returns the names of the declared relations, sorted.
func (c *Config) Relations() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Fields)) {
		if f := c.Fields[name]; f != nil && f.Relation {
			out = append(out, name)
		}
	}
	return out
}

// Relation returns the declared relation called name.
func (c *Config) Relation(name string) (*Field, bool) {
	f := c.Fields[name]
	if f == nil || !f.Relation {
		return nil, false
	}
	return f, true
}

// Narrower returns the relations that declare name as their broader relation, sorted. A
// relation page of name also lists their links.
func (c *Config) Narrower(name string) []string {
	var out []string
	for _, n := range c.Relations() {
		if c.Fields[n].Broader == name {
			out = append(out, n)
		}
	}
	return out
}

// KnownRelation reports whether a link or relation page may name rel in this brain: a
// built-in relation or a declared one.
func (c *Config) KnownRelation(rel string) bool {
	_, ok := c.Relation(rel)
	return ok || rel == RelCites || rel == RelLinks || rel == RelTaggedWith
}

// FieldNames returns the declared field names (relations included), sorted.
func (c *Config) FieldNames() []string { return slices.Sorted(maps.Keys(c.Fields)) }

// LowPriority reports whether source belongs to a sensor declared with priority: low,
// whether or not it is enabled.
func (c *Config) LowPriority(source string) bool {
	s := c.Sensors[source]
	return s != nil && s.Priority == priorityLow
}

// Mappings returns the field mappings that apply to the sensor: its own, plus a path
// mapping for every declared field with a default pointer that the sensor does not map.
// It returns nil for an unknown sensor.
func (c *Config) Mappings(sensor string) map[string]*Mapping {
	s := c.Sensors[sensor]
	if s == nil {
		return nil
	}
	out := make(map[string]*Mapping, len(s.Fields))
	for name, m := range s.Fields {
		out[name] = m
	}
	for name, f := range c.Fields {
		if _, mapped := out[name]; !mapped && f != nil && f.Default != "" {
			out[name] = &Mapping{Path: f.Default}
		}
	}
	return out
}

// Programs returns the names of every sensor and routine, sorted: they share logs/ and
// locks.
func (c *Config) Programs() []string {
	out := append(slices.Sorted(maps.Keys(c.Sensors)), slices.Sorted(maps.Keys(c.Routines))...)
	slices.Sort(out)
	return out
}

// HookRoutines returns the enabled routines listing hook, sorted.
func (c *Config) HookRoutines(hook string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Routines)) {
		if r := c.Routines[name]; r != nil && r.Enabled && slices.Contains(r.Hooks, hook) {
			out = append(out, name)
		}
	}
	return out
}

// Patterns compiles the forbid_patterns of the validate policy; Parse has checked them.
func (v *Validate) Patterns() []*regexp.Regexp {
	if v == nil {
		return nil
	}
	out := make([]*regexp.Regexp, 0, len(v.ForbidPatterns))
	for _, p := range v.ForbidPatterns {
		if re, err := regexp.Compile(p); err == nil {
			out = append(out, re)
		}
	}
	return out
}

// SingleValued reports whether name is a declared field that holds one value (cardinality
// one or optional): listings show only those beside an item.
func (c *Config) SingleValued(name string) bool {
	f := c.Fields[name]
	return f != nil && f.Cardinality != Many
}

// LowPrioritySources names, in order, the sensors whose records rank below everything else.
func (c *Config) LowPrioritySources() []string {
	var low []string
	for name := range c.Sensors {
		if c.LowPriority(name) {
			low = append(low, name)
		}
	}
	slices.Sort(low)
	return low
}
