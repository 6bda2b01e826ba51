package memory

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fillAll sets every field of v, found by reflection, to a value of its own: a field added
// to parsedNote, Memory or Check and forgotten by the codec fails the round trip.
func fillAll(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d é", *seed))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*seed) * -1_000_003)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillAll(t, v.Index(i), seed)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 4, 5, 6, 7, 8+*seed, time.FixedZone("", 3600))))
			return
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("%s.%s: an unexported field the codec cannot see", v.Type(), v.Type().Field(i).Name)
			}
			fillAll(t, v.Field(i), seed)
		}
	default:
		t.Fatalf("a %s field: teach fillAll and the codec", v.Kind())
	}
}

func TestNotesCodecRoundTrip(t *testing.T) {
	seed := 0
	full := parsedNote{}
	fillAll(t, reflect.ValueOf(&full).Elem(), &seed)
	in := notesCache{Format: notesCacheFormat, Program: "/bin/bf-memory\x001\x002", Notes: []parsedNote{full, {Name: "empty.md"}}}
	data, err := encodeNotes(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeNotes(string(data), in.Format, in.Program)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	// Another format or program: nothing read past the header, and no error.
	if c, err := decodeNotes(string(data), in.Format+1, in.Program); err != nil || c.Notes != nil {
		t.Errorf("other format: %d notes, err %v; want none, nil", len(c.Notes), err)
	}
	if c, err := decodeNotes(string(data), in.Format, "other"); err != nil || c.Notes != nil {
		t.Errorf("other program: %d notes, err %v; want none, nil", len(c.Notes), err)
	}
	// Every cut of the file, a longer one and a gob file are refused, never read in part.
	for n := range len(data) {
		if _, err := decodeNotes(string(data[:n]), in.Format, in.Program); err == nil {
			t.Fatalf("the first %d of %d bytes decoded", n, len(data))
		}
	}
	if _, err := decodeNotes(string(append(data, 0)), in.Format, in.Program); err == nil {
		t.Error("a trailing byte decoded")
	}
	if _, err := decodeNotes("\x0f\xff\x81\x03\x01\x01\x0anotesCache", in.Format, in.Program); err == nil {
		t.Error("a gob file decoded")
	}
}
