package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestHelpListsVerbs(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb, nil); code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, v := range verbs {
		if !strings.Contains(out.String(), "  "+v.name+" ") {
			t.Errorf("help lacks %s:\n%s", v.name, out.String())
		}
	}
}

// TestVerbListMarksMissing marks exactly the verbs whose binary the lookup lacks.
func TestVerbListMarksMissing(t *testing.T) {
	installed := map[string]bool{"bf-search": true, "bf-index": true}
	got := verbList(func(b string) (string, error) {
		if installed[b] {
			return "/bin/" + b, nil
		}
		return "", errors.New("missing")
	})
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		name := strings.Fields(line)[0]
		binary, _ := binaryOf(name)
		marked := strings.HasSuffix(line, " [not installed: "+binary+"]")
		if marked == installed[binary] {
			t.Errorf("%s (%s installed %v): %q", name, binary, installed[binary], line)
		}
	}
}

func TestBinaryOf(t *testing.T) {
	tests := []struct {
		verb, binary string
		known        bool
	}{
		{"search", "bf-search", true},
		{"queue", "bf-queue", true},
		{"register", "bf-init", true},
		{"build", "bf-index", true},
		{"export", "bf-read", true},
		{"status", "bf-collect", true},
		{"frob", "bf-frob", false},
	}
	for _, tt := range tests {
		if b, k := binaryOf(tt.verb); b != tt.binary || k != tt.known {
			t.Errorf("binaryOf(%q) = %q, %v", tt.verb, b, k)
		}
	}
}

func TestUnknownVerb(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"frobnicate-xyz"}, &out, &errb, nil)
	if code != 2 || errb.String() != "bf: unknown verb \"frobnicate-xyz\"; see bf --help\n" {
		t.Errorf("code %d stderr %q", code, errb.String())
	}
}

func TestNoVerb(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb, nil); code != 2 || !strings.HasPrefix(errb.String(), "usage: bf VERB") {
		t.Errorf("code %d stderr %q", code, errb.String())
	}
}

func TestHelpTakesOneVerb(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"help", "a", "b"}, &out, &errb, nil); code != 2 || errb.String() != "bf: bf help takes one VERB; see bf --help\n" {
		t.Errorf("code %d stderr %q", code, errb.String())
	}
}
