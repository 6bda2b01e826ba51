// Decoding of the fields section: declared front-matter fields, their types, relations and values.

package config

import (
	"errors"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

func (d *decoder) fields(top map[string]any) error {
	c, raw := d.c, child(top, "fields")
	names := slices.Sorted(maps.Keys(c.Fields))
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
		f := declared(c.Fields, name)
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
	if f.Description == "" || utf8.RuneCountInString(f.Description) > maxDescription {
		return d.fail(p+".description", "expected 1-4096 characters")
	}
	if !set(raw, "type") {
		return d.fail(p+".type", "required")
	}
	if !slices.Contains(fieldTypes, string(f.Type)) {
		return d.fail(p+".type", "expected %s", orList(fieldTypes))
	}
	card := string(f.Cardinality)
	if err := d.word(raw, p, "cardinality", &card); err != nil {
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
		if len(f.Targets) == 0 || len(f.Targets) > maxTargets {
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
	if len(f.Examples) > maxExamples {
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
