package yamlx

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"
)

// unmarshaler is implemented by types that read themselves from a parsed value, such as a
// setting that may be written either as a string or as a mapping.
type unmarshaler interface {
	FromYAML(v any, path string) error
}

// Mode says what Decode does with keys the target type does not declare.
type Mode int

const (
	// Strict refuses unknown keys, as bf.yaml and the registry require.
	Strict Mode = iota
	// lenient ignores unknown keys, as note front matter requires (OKF keeps them as data).
	lenient
)

// Decode parses data and stores it into dst, a pointer to a struct, map or slice whose
// fields carry `json` tags. Types are strict: no value is coerced into another kind.
func Decode(file string, data []byte, dst any, mode Mode) error {
	v, err := Parse(file, data)
	if err != nil {
		return err
	}
	return Assign(file, v, dst, mode)
}

// Assign stores an already parsed value into dst with the rules of Decode.
func Assign(file string, v any, dst any, mode Mode) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("yamlx: Assign needs a non-nil pointer")
	}
	a := assigner{file: file, mode: mode}
	return a.assign(rv.Elem(), v, "")
}

type assigner struct {
	file string
	mode Mode
}

var unmarshalerType = reflect.TypeFor[unmarshaler]()

func (a assigner) errorf(path, format string, args ...any) error {
	return Errorf(a.file, path, format, args...)
}

func (a assigner) assign(dst reflect.Value, v any, path string) error {
	if dst.CanAddr() && dst.Addr().Type().Implements(unmarshalerType) {
		if err := dst.Addr().Interface().(unmarshaler).FromYAML(v, path); err != nil {
			if _, ok := err.(*Error); ok {
				return err
			}
			return a.errorf(path, "%s", err.Error())
		}
		return nil
	}
	if dst.Kind() == reflect.Pointer {
		if v == nil {
			dst.SetZero()
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := a.assign(p.Elem(), v, path); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	}
	if dst.Kind() == reflect.Interface {
		if v != nil {
			dst.Set(reflect.ValueOf(v))
		} else {
			dst.SetZero()
		}
		return nil
	}
	if v == nil {
		// An empty value means "nothing": collections stay empty, scalars stay unset.
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return a.errorf(path, "expected a string")
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return a.errorf(path, "expected true or false")
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := v.(int64)
		if !ok || dst.OverflowInt(i) {
			return a.errorf(path, "expected an integer")
		}
		dst.SetInt(i)
	case reflect.Float32, reflect.Float64:
		switch n := v.(type) {
		case int64:
			dst.SetFloat(float64(n))
		case *big.Int:
			f, _ := new(big.Float).SetInt(n).Float64()
			dst.SetFloat(f)
		case float64:
			if math.IsNaN(n) || math.IsInf(n, 0) {
				return a.errorf(path, "expected a finite number")
			}
			dst.SetFloat(n)
		default:
			return a.errorf(path, "expected a number")
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return a.errorf(path, "expected a list")
		}
		out := reflect.MakeSlice(dst.Type(), len(list), len(list))
		for i, item := range list {
			if err := a.assign(out.Index(i), item, Join(path, i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return a.errorf(path, "expected a mapping")
		}
		if dst.Type().Key().Kind() != reflect.String {
			panic("yamlx: map keys must be strings")
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := a.assign(ev, m[k], Join(path, k)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
		}
		dst.Set(out)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return a.errorf(path, "expected a mapping")
		}
		fields := structFields(dst.Type())
		for _, k := range slices.Sorted(maps.Keys(m)) {
			idx, known := fields[k]
			if !known {
				if a.mode == Strict {
					return a.errorf(Join(path, k), "unknown key")
				}
				continue
			}
			if err := a.assign(dst.FieldByIndex(idx), m[k], Join(path, k)); err != nil {
				return err
			}
		}
	default:
		panic(fmt.Sprintf("yamlx: unsupported field kind %s", dst.Kind()))
	}
	return nil
}

// structFields maps each `json` key of t to its field's index path. An embedded struct
// without a key of its own lends t the keys t does not name itself, as encoding/json reads it.
func structFields(t reflect.Type) map[string][]int {
	out := make(map[string][]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, idx := range structFields(f.Type) {
				if _, own := out[k]; !own {
					out[k] = append([]int{i}, idx...)
				}
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = []int{i}
	}
	return out
}
