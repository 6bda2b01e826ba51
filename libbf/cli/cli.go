// Package cli is the plumbing every bf binary shares: flag parsing, exit codes, `bf: `
// diagnostics and the one JSON document a command prints.
//
// Exit codes are decided here and nowhere else: 0 success, 1 failure or failed check, 2
// invalid input, 130 cancelled.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3"

	"github.com/bfgo/bf/libbf/dispatch"
	"github.com/bfgo/bf/libbf/release"
	"github.com/bfgo/bf/libbf/reply"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitCancelled = 130
)

// UsageError marks invalid input: a bad argument, flag or ref. The message names the
// argument and the fix.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ErrCheckFailed reports a failed check whose document was already printed: the command
// exits 1 without a further message.
var ErrCheckFailed = errors.New("check failed")

// Command is one verb: its name as users type it, a usage text and the function that runs it.
type Command struct {
	Name  string // e.g. "validate"
	Usage string // first line "bf validate [--brain B]", then a short description and flags
	Flags func(fs *flag.FlagSet)
	Run   func(ctx context.Context, env *Env, args []string) error
	// Refused, when set, answers a command line its flags refused instead of the usual
	// diagnostic and exit 2: a hook for an agent host must exit 0 even then. It gets the
	// arguments as given and the refusal, and returns nil or the error to report.
	Refused func(ctx context.Context, env *Env, args []string, err error) error
	// ProgramArgs, when set, receives what follows the first -- of the command line: the
	// arguments of a program the command runs (bf run NAME -- ARGS…), never parsed as flags.
	ProgramArgs *[]string
}

// Env is what a command sees of the world; tests replace its fields.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	Getwd          func() (string, error)
}

// OSEnv is the process environment.
func OSEnv() *Env {
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv, Getwd: os.Getwd}
}

// ExitOnSignal makes SIGINT and SIGTERM (and SIGHUP unless ignored) end the process at
// once with ExitCancelled, even in the middle of a request: for servers that answer a
// client over stdio (bf mcp, bf lsp), whose work a cancelled context would not stop soon.
func ExitOnSignal() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(sig, syscall.SIGHUP)
	}
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "bf: cancelled")
		os.Exit(ExitCancelled)
	}()
}

// Main runs the command argv asks for among cmds (see Run) and exits the process with its code.
func Main(cmds ...*Command) {
	os.Exit(Run(context.Background(), OSEnv(), os.Args, cmds...))
}

// Run is Main without exiting: it returns the exit code.
//
// The dispatcher runs a binary with argv[0] "bf VERB", naming the verb. Run directly, a
// binary serving one verb takes ARGS as that verb would, and one serving several takes the
// verb first: `bf-index build` is `bf build`.
func Run(ctx context.Context, env *Env, argv []string, cmds ...*Command) int {
	cmd, rest, code, ok := pick(env, argv, cmds)
	if !ok {
		return code
	}
	if cmd.ProgramArgs != nil {
		if i := slices.Index(rest, "--"); i >= 0 {
			rest, *cmd.ProgramArgs = rest[:i], append([]string{}, rest[i+1:]...)
		}
	}
	if len(rest) == 1 && (rest[0] == "--version" || rest[0] == "-version") {
		fmt.Fprintf(env.Stdout, "%s %s\n", program(argv[0]), release.Version())
		return ExitOK
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	fs := flag.NewFlagSet("bf "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if cmd.Flags != nil {
		cmd.Flags(fs)
	}
	strict(fs)
	args, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, helpText(cmd, fs))
			return ExitOK
		}
		var refusal error = &UsageError{Err: errors.New(flagMessage(err, cmd.Name, argv[1:]))}
		if m := badValue().FindStringSubmatch(err.Error()); m != nil {
			refusal = &UsageError{Err: fmt.Errorf("invalid input: %s: %s", m[1], valueReason(m[2]))}
		}
		if cmd.Refused != nil {
			return report(env, cmd.Refused(ctx, env, rest, refusal))
		}
		return report(env, refusal)
	}
	for _, a := range args {
		if !utf8.ValidString(a) {
			return report(env, &UsageError{Err: fmt.Errorf("invalid input: argument %s is not valid UTF-8; write arguments in UTF-8", strconv.Quote(a))})
		}
	}
	err = cmd.Run(ctx, env, args)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(env.Stderr, "bf: cancelled")
		return ExitCancelled
	}
	return report(env, err)
}

// parseInterspersed lets flags follow positional arguments (`bf search QUERY --limit 5`), as
// users of other command-line tools expect; `--` ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := ff.Parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if len(rest) == 0 || (consumed > 0 && args[consumed-1] == "--") {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// Optional is a string flag that remembers whether it was given, so an explicit empty value
// (`--brain ""`) can be refused instead of read as absent.
type Optional struct {
	Value string
	Given bool
}

func (o *Optional) String() string { return o.Value }

// Set records the value.
func (o *Optional) Set(s string) error { o.Value, o.Given = s, true; return nil }

// pick finds the command argv asks for and its arguments. When it cannot, it has already
// printed help (exit 0) or a diagnostic (exit 2) and ok is false.
func pick(env *Env, argv []string, cmds []*Command) (cmd *Command, args []string, code int, ok bool) {
	if verb, found := strings.CutPrefix(argv[0], dispatch.Prefix); found {
		for _, c := range cmds {
			if c.Name == verb {
				return c, argv[1:], 0, true
			}
		}
		fmt.Fprintf(env.Stderr, "bf: this binary does not serve bf %s; it serves %s\n", Escape(verb), verbList(cmds))
		return nil, nil, ExitUsage, false
	}
	if len(cmds) == 1 {
		return cmds[0], argv[1:], 0, true
	}
	prog := program(argv[0])
	if len(argv) > 1 {
		for _, c := range cmds {
			if c.Name == argv[1] {
				return c, argv[2:], 0, true
			}
		}
		switch argv[1] {
		case "-h", "-help", "--help", "help":
			fmt.Fprint(env.Stdout, servesText(prog, cmds))
			return nil, nil, ExitOK, false
		case "-version", "--version":
			fmt.Fprintf(env.Stdout, "%s %s\n", prog, release.Version())
			return nil, nil, ExitOK, false
		}
		fmt.Fprintf(env.Stderr, "bf: %s serves %s, not %q: run %s VERB [ARGS…] (see %s --help)\n",
			prog, verbList(cmds), Escape(argv[1]), prog, prog)
		return nil, nil, ExitUsage, false
	}
	fmt.Fprint(env.Stderr, servesText(prog, cmds))
	return nil, nil, ExitUsage, false
}

// program is the name a binary was run as: "bf-index", or "bf search" from the dispatcher.
func program(argv0 string) string {
	if strings.HasPrefix(argv0, dispatch.Prefix) {
		return argv0
	}
	if i := strings.LastIndexAny(argv0, `/\`); i >= 0 {
		argv0 = argv0[i+1:]
	}
	return argv0
}

// servesText is a multi-verb binary's own help: the verbs it serves.
func servesText(prog string, cmds []*Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s VERB [ARGS…]\n\n%s serves %s; %s VERB is bf VERB.\nRun %s VERB --help for one verb's flags.\n\nVerbs:\n", prog, prog, verbList(cmds), prog, prog)
	for _, c := range cmds {
		first, _, _ := strings.Cut(strings.TrimPrefix(c.Usage, "usage: "), "\n")
		fmt.Fprintf(&b, "  %s\n", first)
	}
	return b.String()
}

// verbList names the verbs of cmds: "validate, build, eval and schema".
func verbList(cmds []*Command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func report(env *Env, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, ErrCheckFailed) {
		return ExitFailure
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(env.Stderr, "bf: cancelled")
		return ExitCancelled
	}
	fmt.Fprintln(env.Stderr, "bf: "+Escape(err.Error()))
	var u *UsageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	return ExitFailure
}

// badValue matches the flag package's report of a value a flag refused.
var badValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:error parsing commandline arguments: )?invalid (?:(?:boolean )?value ".*" for flag -|boolean flag )([\w-]+): (.*)$`)
})

// valueReason words the flag package's own parse failures like bf's other reasons.
func valueReason(reason string) string {
	switch reason {
	case "parse error", "value out of range":
		return "expected an integer"
	}
	return reason
}

// strict wraps every flag of fs so that a flag given twice is refused unless it is
// repeatable (a List), a number must be written in plain decimal (no 010, 0x10, 0b11 or
// 1_0, which the flag package would read in other bases), and no value may be anything but
// UTF-8 text.
func strict(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		v := &strictValue{Value: f.Value}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = strictBool{v}
			return
		}
		f.Value = v
	})
}

type strictValue struct {
	flag.Value
	given bool
}

// Reasons a flag's value is refused; the parse error names the flag.
var (
	errTwice   = errors.New("given more than once; give the flag once")
	errDecimal = errors.New("expected a plain decimal integer, such as 10")
	errUTF8    = errors.New("not valid UTF-8; write arguments in UTF-8")
)

// plainDecimal is an integer as people write it: an optional minus sign, then digits
// without a leading zero.
var plainDecimal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`) })

func (v *strictValue) Set(s string) error {
	if _, many := v.Value.(*List); v.given && !many {
		return errTwice
	}
	v.given = true
	if !utf8.ValidString(s) {
		return errUTF8
	}
	if g, ok := v.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			if !plainDecimal().MatchString(s) {
				return errDecimal
			}
		}
	}
	return v.Value.Set(s)
}

type strictBool struct{ *strictValue }

func (strictBool) IsBoolFlag() bool { return true }

// List is a repeatable string flag: each occurrence adds one value.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds a value.
func (l *List) Set(s string) error { *l = append(*l, s); return nil }

// Offset is the --offset flag of paged commands: a continuation offset from a reply's
// next_offset. A value out of range is refused while parsing, naming the valid range.
type Offset int64

func (o *Offset) String() string { return strconv.FormatInt(int64(*o), 10) }

// Get returns the offset, which also marks the flag as a number written in decimal.
func (o *Offset) Get() any { return int64(*o) }

// Set parses a continuation offset.
func (o *Offset) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || reply.CheckOffset(n) != nil {
		return reply.ErrOffset
	}
	*o = Offset(n)
	return nil
}

// flagMessage turns the flag package's wording into bf's. An unknown flag is named as it
// was typed, with the way to pass a word starting with - as an argument instead.
func flagMessage(err error, command string, argv []string) string {
	msg := strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		typed := "--" + name
		for _, a := range argv {
			if a == "--" {
				break
			}
			if a == "-"+name || strings.HasPrefix(a, "-"+name+"=") {
				typed = "-" + name
				break
			}
			if a == typed || strings.HasPrefix(a, typed+"=") {
				break
			}
		}
		return fmt.Sprintf("unknown flag %s (see bf %s --help); words starting with - need -- before them: bf %s -- %s", typed, command, command, typed)
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag --" + rest + " needs a value"
	}
	return fmt.Sprintf("%s (see bf %s --help)", msg, command)
}

func helpText(cmd *Command, fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(cmd.Usage, "\n"))
	b.WriteString("\n")
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		b.WriteString("\nFlags:\n")
		fs.VisitAll(func(f *flag.Flag) {
			plain := *f // the flag as declared, so its type names the value
			switch v := f.Value.(type) {
			case *strictValue:
				plain.Value = v.Value
			case strictBool:
				plain.Value = v.Value
			}
			name, usage := flag.UnquoteUsage(&plain)
			fmt.Fprintf(&b, "  --%s", f.Name)
			if name != "" {
				fmt.Fprintf(&b, " %s", name)
			}
			fmt.Fprintf(&b, "\n        %s\n", usage)
		})
	}
	return b.String()
}

// WriteJSON prints v as one compact JSON line without HTML escaping, the form every
// reply takes and the one byte budgets are measured on.
func WriteJSON(w io.Writer, v any) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Marshal encodes v as every reply prints: compact, without HTML escaping, terminal-safe.
func Marshal(v any) ([]byte, error) { return reply.Marshal(v) }

// Escape makes text safe for a one-line diagnostic (see reply.Escape).
func Escape(s string) string { return reply.Escape(s) }

// Output prints a reply when there is one, even beside an error such as a delivery that
// did not arrive, and returns the error classified for its exit code.
func Output[T any](env *Env, res *T, err error) error {
	if res != nil {
		if werr := WriteJSON(env.Stdout, res); werr != nil {
			return werr
		}
	}
	return Classify(err)
}
