package jsontext

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestReadString(t *testing.T) {
	tests := []struct {
		in   string
		want string
		next int
		err  error
	}{
		{`"plain"`, "plain", 7, nil},
		{`"a\"b\\c\/d" tail`, `a"b\c/d`, 12, nil},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t", 12, nil},
		{`"\u00e9\u20ac"`, "é€", 14, nil},
		{`"\ud83d\ude00"`, "😀", 14, nil},
		{`"é"`, "é", 4, nil},
		{`"\ud83d"`, "", 0, ErrUnicode},
		{`"\ude00"`, "", 0, ErrUnicode},
		{`"\ud83d\u0041"`, "", 0, ErrUnicode},
		{"\"\xff\"", "", 0, ErrUnicode},
		{"\"a\x01\"", "", 0, errSyntax},
		{`"\x"`, "", 0, errSyntax},
		{`"\u12"`, "", 0, errSyntax},
		{`"open`, "", 0, errSyntax},
		{`plain`, "", 0, errSyntax},
	}
	for _, tt := range tests {
		got, next, err := ReadString([]byte(tt.in), 0)
		if !errors.Is(err, tt.err) {
			t.Errorf("ReadString(%q) error %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && (got != tt.want || next != tt.next) {
			t.Errorf("ReadString(%q) = %q, %d; want %q, %d", tt.in, got, next, tt.want, tt.next)
		}
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x01\x1f", `"\u0001\u001f"`},
		{"<&> \u2028 \x7f é", "\"<&> \u2028 \x7f é\""},
	}
	for _, tt := range tests {
		got := string(AppendString(nil, tt.in))
		if got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tt.in {
			t.Errorf("%s does not read back as %q: %q, %v", got, tt.in, back, err)
		}
	}
}

func FuzzReadString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"\ud83d\ude00"`, `"\u00e9"`, "\"\xff\"", `"\x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ReadString(data, 0)
		if err != nil {
			return
		}
		// What reads as a string quotes back to JSON that reads as the same string.
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil || back != s {
			t.Fatalf("%q: round trip gave %q, %v", s, back, err)
		}
	})
}

func TestArray(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, "[]"},
		{[]string{}, "[]"},
		{[]string{"a", `q"<`}, `["a","q\"\u003c"]`},
	} {
		if got := Array(tc.in); got != tc.want {
			t.Errorf("Array(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestInt64s(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		want string
	}{
		{nil, "[]"},
		{[]int64{7}, "[7]"},
		{[]int64{-1, 0, 9223372036854775807}, "[-1,0,9223372036854775807]"},
	} {
		if got := Int64s(tc.in); got != tc.want {
			t.Errorf("Int64s(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
