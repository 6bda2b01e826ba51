package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProgramArgs: what follows the first -- reaches the command's program unparsed, with
// the flags before it parsed as usual; without ProgramArgs, -- only ends the flags.
func TestProgramArgs(t *testing.T) {
	for _, tt := range []struct {
		argv          []string
		takes         bool
		code          int
		args, program []string
		limit         int
	}{
		{argv: []string{"bf-run", "name", "--limit", "3", "--", "one", "--limit", "--"}, takes: true,
			args: []string{"name"}, program: []string{"one", "--limit", "--"}, limit: 3},
		{argv: []string{"bf-run", "name", "--"}, takes: true, args: []string{"name"}, program: []string{}, limit: 10},
		{argv: []string{"bf-run", "name"}, takes: true, args: []string{"name"}, limit: 10},
		// A flag refused before -- is refused as ever.
		{argv: []string{"bf-run", "name", "--bogus", "--", "x"}, takes: true, code: 2, program: []string{"x"}, limit: 10},
		{argv: []string{"bf-run", "name", "--", "one", "--limit"}, args: []string{"name", "one", "--limit"}, limit: 10},
	} {
		var args, program []string
		limit := 0
		cmd := testCommand(&args, &limit, &Optional{})
		cmd.Name = "run"
		if tt.takes {
			cmd.ProgramArgs = &program
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, tt.argv, cmd)
		if code != tt.code {
			t.Errorf("%q: code %d, want %d (stderr %q)", tt.argv, code, tt.code, errb.String())
		}
		if diff := cmp.Diff(tt.args, args); diff != "" {
			t.Errorf("%q: args (-want +got):\n%s", tt.argv, diff)
		}
		if diff := cmp.Diff(tt.program, program); diff != "" {
			t.Errorf("%q: program args (-want +got):\n%s", tt.argv, diff)
		}
		if limit != tt.limit {
			t.Errorf("%q: limit %d, want %d", tt.argv, limit, tt.limit)
		}
	}
}
