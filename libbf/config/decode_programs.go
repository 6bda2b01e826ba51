// Decoding of the sensors and routines sections: the programs bf runs, their limits and mappings.

package config

import (
	"maps"
	"slices"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

func (d *decoder) sensors(top map[string]any) error {
	c, raw := d.c, child(top, "sensors")
	for _, name := range slices.Sorted(maps.Keys(c.Sensors)) {
		p := yamlx.Join("sensors", name)
		if !ref.ValidName(name) {
			return d.fail(p, nameRule)
		}
		s := declared(c.Sensors, name)
		r := child(raw, name)
		if err := d.program(&s.Program, r, p); err != nil {
			return err
		}
		if err := d.word(r, p, "mode", &s.Mode); err != nil {
			return err
		}
		if err := integer(d, r, p, "overlap", &s.Overlap); err != nil {
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
			if err := integer(d, rr, rp, "refresh", &s.Reconcile.Refresh); err != nil {
				return err
			}
			if err := integer(d, rr, rp, "lookback", &s.Reconcile.Lookback); err != nil {
				return err
			}
		}
		if err := d.word(r, p, "priority", &s.Priority); err != nil {
			return err
		}
		if err := integer(d, r, p, "silent_after", &s.SilentAfter); err != nil {
			return err
		}
		if err := d.mappings(s, child(r, "fields"), p+".fields"); err != nil {
			return err
		}
	}
	return nil
}

// program checks the settings a sensor or routine at p shares and fills their defaults.
func (d *decoder) program(g *Program, r map[string]any, p string) error {
	if err := d.command(programKind, g.Command, r, p, "command"); err != nil {
		return err
	}
	d.flag(r, p, "enabled", &g.Enabled)
	if err := integer(d, r, p, "timeout", &g.Timeout); err != nil {
		return err
	}
	if err := integer(d, r, p, "max_bytes", &g.MaxBytes); err != nil {
		return err
	}
	if err := integer(d, r, p, "refresh", &g.Refresh); err != nil {
		return err
	}
	return integer(d, r, p, "lookback", &g.Lookback)
}

func (d *decoder) mappings(s *Sensor, raw map[string]any, p string) error {
	for _, name := range slices.Sorted(maps.Keys(s.Fields)) {
		mp := yamlx.Join(p, name)
		f := d.c.Fields[name]
		if f == nil {
			return d.fail(mp, "not declared in fields")
		}
		m := declared(s.Fields, name)
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
	for _, name := range slices.Sorted(maps.Keys(c.Routines)) {
		p := yamlx.Join("routines", name)
		if !ref.ValidRoutineName(name) {
			return d.fail(p, routineNameRule)
		}
		if _, clash := c.Sensors[name]; clash {
			return d.fail(p, distinctNamesError)
		}
		rt := declared(c.Routines, name)
		r := child(raw, name)
		if err := d.program(&rt.Program, r, p); err != nil {
			return err
		}
		if len(rt.Hooks) > maxHooks {
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
		if err := d.word(r, p, "output", &rt.Output); err != nil {
			return err
		}
		if set(r, "keep") && rt.Output != OutputAction {
			return d.fail(p+".keep", "keep applies to output: action only")
		}
		if err := integer(d, r, p, "keep", &rt.Keep); err != nil {
			return err
		}
	}
	return nil
}
