package mcpserver

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
)

func TestMessage(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "brains", "team")
	env := brain.Env{Home: home, Getenv: func(string) string { return "" }}
	s := &Server{opts: Options{Env: &env}}
	reg, err := env.RegistryFile()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"reference not found; use bf search to locate it, or bf read to browse pages",
			"reference not found; use the search tool to locate it, or the read tool to browse pages"},
		{root + "/notes/a.md: bad front matter", "<brain>/notes/a.md: bad front matter"},
		{"cannot open " + root + ".", "cannot open <brain>."},
		{"other brain " + root + "2/x", "other brain ~/brains/team2/x"},
		{reg + ": line 3: bad name", "<registry>: line 3: bad name"},
		{home + "/elsewhere: missing", "~/elsewhere: missing"},
		{"/x" + home + "/y", "/x" + home + "/y"},
		{"bad\x1b[2J\u202etext", `bad\x1b[2J\u202etext`},
	}
	for _, tt := range tests {
		if got := s.message(errors.New(tt.in), []string{root}); got != tt.want {
			t.Errorf("message(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
