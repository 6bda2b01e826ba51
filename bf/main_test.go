package main

import (
	"bytes"
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
