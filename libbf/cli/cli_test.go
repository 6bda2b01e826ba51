package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/reply"
)

func testCommand(got *[]string, limit *int, brain *Optional) *Command {
	return &Command{
		Name:  "search",
		Usage: "bf search QUERY [--limit N]\n\nSearch the brain.",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(limit, "limit", 10, "results per page")
			fs.Var(brain, "brain", "brain `NAME|PATH`")
		},
		Run: func(ctx context.Context, env *Env, args []string) error {
			*got = args
			switch {
			case len(args) > 0 && args[0] == "bad":
				return Usagef("query: must not be bad")
			case len(args) > 0 && args[0] == "fail":
				return errors.New("cannot open\x1b[2J <brain>")
			case len(args) > 0 && args[0] == "check":
				return ErrCheckFailed
			}
			return WriteJSON(env.Stdout, map[string]any{"q": args, "html": "<a&b>"})
		},
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		argv       []string
		code       int
		args       []string
		limit      int
		brain      Optional
		stdout     string
		stderrPart string
	}{
		{argv: []string{"bf-search", "hello", "--limit", "5", "world"}, args: []string{"hello", "world"}, limit: 5, stdout: `{"html":"<a&b>","q":["hello","world"]}` + "\n"},
		{argv: []string{"bf-search", "--brain=", "x"}, args: []string{"x"}, limit: 10, brain: Optional{Given: true}, stdout: `{"html":"<a&b>","q":["x"]}` + "\n"},
		{argv: []string{"bf-search", "--", "--limit"}, args: []string{"--limit"}, limit: 10, stdout: `{"html":"<a&b>","q":["--limit"]}` + "\n"},
		{argv: []string{"bf-search", "--nope"}, code: 2, limit: 10, stderrPart: "bf: unknown flag --nope (see bf search --help); words starting with - need -- before them: bf search -- --nope\n"},
		{argv: []string{"bf-search", "-dunning"}, code: 2, limit: 10, stderrPart: "bf: unknown flag -dunning (see bf search --help); words starting with - need -- before them: bf search -- -dunning\n"},
		{argv: []string{"bf-search", "--", "-dunning"}, args: []string{"-dunning"}, limit: 10, stdout: `{"html":"<a&b>","q":["-dunning"]}` + "\n"},
		{argv: []string{"bf-search", "x", "--limit"}, code: 2, limit: 10, stderrPart: "bf: flag --limit needs a value (see bf search --help)\n"},
		// Numbers are plain decimal: the flag package would read 010 as 8 and 0x10 as 16.
		{argv: []string{"bf-search", "x", "--limit", "010"}, code: 2, limit: 10, stderrPart: "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{argv: []string{"bf-search", "x", "--limit", "0x10"}, code: 2, limit: 10, stderrPart: "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{argv: []string{"bf-search", "x", "--limit=0b11"}, code: 2, limit: 10, stderrPart: "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{argv: []string{"bf-search", "x", "--limit", "1_0"}, code: 2, limit: 10, stderrPart: "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{argv: []string{"bf-search", "x", "--limit", "+5"}, code: 2, limit: 10, stderrPart: "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{argv: []string{"bf-search", "x", "--limit", "0"}, args: []string{"x"}, stdout: `{"html":"<a&b>","q":["x"]}` + "\n"},
		{argv: []string{"bf-search", "x", "--limit", "-3"}, args: []string{"x"}, limit: -3, stdout: `{"html":"<a&b>","q":["x"]}` + "\n"},
		{argv: []string{"bf-search", "x", "--limit", "99999999999999999999"}, code: 2, limit: 9223372036854775807, stderrPart: "bf: invalid input: limit: expected an integer\n"},
		// A flag given twice is refused, even with the same value and after the arguments.
		{argv: []string{"bf-search", "--limit", "5", "x", "--limit", "6"}, code: 2, limit: 5, stderrPart: "bf: invalid input: limit: given more than once; give the flag once\n"},
		{argv: []string{"bf-search", "--brain", "a", "--brain=a", "x"}, code: 2, limit: 10, brain: Optional{Value: "a", Given: true}, stderrPart: "bf: invalid input: brain: given more than once; give the flag once\n"},
		// Arguments and values that are not UTF-8 are refused.
		{argv: []string{"bf-search", "dun\xffning"}, code: 2, limit: 10, stderrPart: "bf: invalid input: argument \"dun\\xffning\" is not valid UTF-8; write arguments in UTF-8\n"},
		{argv: []string{"bf-search", "x", "--brain", "b\xff"}, code: 2, limit: 10, stderrPart: "bf: invalid input: brain: not valid UTF-8; write arguments in UTF-8\n"},
		{argv: []string{"bf-search", "bad"}, code: 2, args: []string{"bad"}, limit: 10, stderrPart: "bf: query: must not be bad\n"},
		{argv: []string{"bf-search", "fail"}, code: 1, args: []string{"fail"}, limit: 10, stderrPart: "bf: cannot open\\x1b[2J <brain>\n"},
		{argv: []string{"bf-search", "check"}, code: 1, args: []string{"check"}, limit: 10},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		var got []string
		var limit int
		var brain Optional
		env := &Env{Stdout: &out, Stderr: &errb}
		code := run(context.Background(), env, tt.argv, testCommand(&got, &limit, &brain))
		if code != tt.code || out.String() != tt.stdout || errb.String() != tt.stderrPart {
			t.Errorf("%v: code %d stdout %q stderr %q", tt.argv, code, out.String(), errb.String())
		}
		if diff := cmp.Diff(tt.args, got); diff != "" {
			t.Errorf("%v args (-want +got):\n%s", tt.argv, diff)
		}
		if limit != tt.limit || brain != tt.brain {
			t.Errorf("%v: limit %d brain %+v", tt.argv, limit, brain)
		}
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	var got []string
	var limit int
	var brain Optional
	code := run(context.Background(), &Env{Stdout: &out, Stderr: &out}, []string{"bf-search", "--help"}, testCommand(&got, &limit, &brain))
	want := "bf search QUERY [--limit N]\n\nSearch the brain.\n\nFlags:\n  --brain NAME|PATH\n        brain NAME|PATH\n  --limit int\n        results per page\n"
	if code != 0 || out.String() != want {
		t.Errorf("help: code %d\n%s", code, out.String())
	}
}

func TestEscape(t *testing.T) {
	got := Escape("a\tb\u202ec\u200bé\n")
	if want := `a\tb\u202ec\u200bé\n`; got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
	if !strings.Contains(Escape("plain"), "plain") {
		t.Error("plain text changed")
	}
}

func TestMarshalTerminalSafe(t *testing.T) {
	got, err := marshal(map[string]string{"a": "x\u0085y\u202ez\U000E0001<&>é"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"x\u0085y\u202ez\udb40\udc01<&>é"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

// Repeatable flags take every value; other flags, booleans too, are refused a second time.
func TestRepeatedFlags(t *testing.T) {
	tests := []struct {
		argv   []string
		code   int
		names  []string
		dry    bool
		stderr string
	}{
		{argv: []string{"bf-update", "--sensor", "a", "--sensor=b", "--dry-run"}, names: []string{"a", "b"}, dry: true},
		{argv: []string{"bf-update", "--dry-run", "--dry-run"}, code: 2, dry: true, stderr: "bf: invalid input: dry-run: given more than once; give the flag once\n"},
		{argv: []string{"bf-update", "--dry-run=false", "--dry-run"}, code: 2, stderr: "bf: invalid input: dry-run: given more than once; give the flag once\n"},
	}
	for _, tt := range tests {
		var names List
		var dry bool
		cmd := &Command{
			Name: "update",
			Flags: func(fs *flag.FlagSet) {
				fs.Var(&names, "sensor", "a sensor `NAME` (repeatable)")
				fs.BoolVar(&dry, "dry-run", false, "list only")
			},
			Run: func(context.Context, *Env, []string) error { return nil },
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, tt.argv, cmd)
		if code != tt.code || errb.String() != tt.stderr || dry != tt.dry || !cmp.Equal([]string(names), tt.names) {
			t.Errorf("%v: code %d stderr %q dry %v names %q", tt.argv, code, errb.String(), dry, names)
		}
	}
}

// TestFlagRefusals words each way the flag package refuses a command line, naming the
// flag: a value its type refuses, a flag given twice, an unknown flag as it was typed, a
// flag without its value, and bad flag syntax.
func TestFlagRefusals(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"--dry-run=maybe"}, "bf: invalid input: dry-run: expected true or false\n"},
		{[]string{"--dry-run=true", "--dry-run=false"}, "bf: invalid input: dry-run: given more than once; give the flag once\n"},
		{[]string{"--pause", "soon"}, "bf: invalid input: pause: expected a number\n"},
		{[]string{"--pause=1e999"}, "bf: invalid input: pause: expected a number\n"},
		{[]string{"--cycles", "-1"}, "bf: invalid input: cycles: expected an integer\n"},
		{[]string{"--cycles", "18446744073709551616"}, "bf: invalid input: cycles: expected an integer\n"},
		{[]string{"--cycles", "x"}, "bf: invalid input: cycles: expected a plain decimal integer, such as 10\n"},
		{[]string{"--offset", "-1"}, "bf: invalid input: offset: " + reply.ErrOffset.Error() + "\n"},
		{[]string{"x", "-nope=1"}, "bf: unknown flag -nope (see bf update --help); words starting with - need -- before them: bf update -- -nope\n"},
		{[]string{"--dry-run", "--nope"}, "bf: unknown flag --nope (see bf update --help); words starting with - need -- before them: bf update -- --nope\n"},
		{[]string{"x", "--cycles"}, "bf: flag --cycles needs a value (see bf update --help)\n"},
		{[]string{"--dry-run", "---x"}, "bf: bad flag syntax: ---x (see bf update --help)\n"},
		{[]string{"-=x"}, "bf: bad flag syntax: -=x (see bf update --help)\n"},
	}
	for _, tt := range tests {
		var dry bool
		var pause float64
		var cycles uint
		var offset Offset
		cmd := &Command{
			Name: "update",
			Flags: func(fs *flag.FlagSet) {
				fs.BoolVar(&dry, "dry-run", false, "list only")
				fs.Float64Var(&pause, "pause", 0, "pause in `seconds`")
				fs.UintVar(&cycles, "cycles", 0, "cycles to run")
				fs.Var(&offset, "offset", "continuation offset")
			},
			Run: func(context.Context, *Env, []string) error { return nil },
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, append([]string{"bf-update"}, tt.args...), cmd)
		if code != exitUsage || errb.String() != tt.stderr || out.Len() != 0 {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 2, %q", tt.args, code, out.String(), errb.String(), tt.stderr)
		}
	}
}

// TestPick runs a binary serving two verbs as the dispatcher does and directly.
func TestPick(t *testing.T) {
	cmds := func(got *string) []*Command {
		mk := func(name string) *Command {
			return &Command{Name: name, Usage: "usage: bf " + name + " [ARG]\n\nDo " + name + ".",
				Run: func(ctx context.Context, env *Env, args []string) error {
					*got = name + " " + strings.Join(args, ",")
					return nil
				}}
		}
		return []*Command{mk("init"), mk("register")}
	}
	serves := "usage: bf-init VERB [ARGS…]\n\nbf-init serves init and register; bf-init VERB is bf VERB.\n" +
		"Run bf-init VERB --help for one verb's flags.\n\nVerbs:\n  bf init [ARG]\n  bf register [ARG]\n"
	tests := []struct {
		argv           []string
		code           int
		ran            string
		stdout, stderr string
	}{
		{argv: []string{"bf init", "register"}, ran: "init register"},
		{argv: []string{"bf register", "x"}, ran: "register x"},
		{argv: []string{"/usr/bin/bf-init", "register", "x"}, ran: "register x"},
		{argv: []string{"bf-init", "init", "register"}, ran: "init register"},
		{argv: []string{"bf-init", "x"}, code: 2, stderr: "bf: bf-init serves init and register, not \"x\": run bf-init VERB [ARGS…] (see bf-init --help)\n"},
		{argv: []string{"bf-init"}, code: 2, stderr: serves},
		{argv: []string{"bf-init", "--help"}, stdout: serves},
		{argv: []string{"bf-init", "--version"}, stdout: "bf-init dev\n"},
		{argv: []string{"bf-init", "register", "--version"}, stdout: "bf-init dev\n"},
		{argv: []string{"bf register", "--version"}, stdout: "bf register dev\n"},
		{argv: []string{"bf nope"}, code: 2, stderr: "bf: this binary does not serve bf nope; it serves init and register\n"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		var ran string
		code := run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, tt.argv, cmds(&ran)...)
		if code != tt.code || ran != tt.ran || out.String() != tt.stdout || errb.String() != tt.stderr {
			t.Errorf("%q: code %d ran %q stdout %q stderr %q", tt.argv, code, ran, out.String(), errb.String())
		}
	}
}

// A command with Refused answers the command lines its flags refuse; it sees the
// arguments as given and the refusal, and what it returns is what is reported.
func TestRefused(t *testing.T) {
	var got []string
	var limit int
	var brain Optional
	cmd := testCommand(&got, &limit, &brain)
	cmd.Refused = func(ctx context.Context, env *Env, args []string, err error) error {
		if len(args) > 0 && args[len(args)-1] == "x" {
			return WriteJSON(env.Stdout, map[string]string{"refused": err.Error()})
		}
		return err
	}
	tests := []struct {
		argv           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"bf-search", "--limit", "x"}, exitOK,
			`{"refused":"invalid input: limit: expected a plain decimal integer, such as 10"}` + "\n", ""},
		{[]string{"bf-search", "--limit", "y"}, exitUsage,
			"", "bf: invalid input: limit: expected a plain decimal integer, such as 10\n"},
		{[]string{"bf-search", "--bogus"}, exitUsage,
			"", "bf: unknown flag --bogus (see bf search --help); words starting with - need -- before them: bf search -- --bogus\n"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, tt.argv, cmd)
		if code != tt.code || out.String() != tt.stdout || errb.String() != tt.stderr {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want %d, %q, %q", tt.argv, code, out.String(), errb.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}
