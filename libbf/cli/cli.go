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
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3"

	"github.com/bfgo/bf/libbf/dispatch"
	"github.com/bfgo/bf/libbf/release"
	"github.com/bfgo/bf/libbf/reply"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitCancelled = 130
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

// osEnv is the process environment.
func osEnv() *Env {
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv, Getwd: os.Getwd}
}

// ExitOnSignal makes SIGINT and SIGTERM (and SIGHUP unless ignored) end the process at
// once with exitCancelled, even in the middle of a request: for servers that answer a
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
		os.Exit(exitCancelled)
	}()
}

// Main runs the command argv asks for among cmds (see Run) and exits the process with its code.
func Main(cmds ...*Command) {
	if restore := deferCollection(os.Getenv); restore != nil {
		time.AfterFunc(quickStart, restore)
	}
	os.Exit(run(context.Background(), osEnv(), os.Args, cmds...))
}

// run is Main without exiting: it returns the exit code.
//
// The dispatcher runs a binary with argv[0] "bf VERB", naming the verb. Run directly, a
// binary serving one verb takes ARGS as that verb would, and one serving several takes the
// verb first: `bf-index build` is `bf build`.
func run(ctx context.Context, env *Env, argv []string, cmds ...*Command) int {
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
		return exitOK
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Run prints the help and the refusals itself: the flag set prints nothing.
	fs := flag.NewFlagSet("bf "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if cmd.Flags != nil {
		cmd.Flags(fs)
	}
	refusedValue := strict(fs)
	args, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, helpText(cmd, fs))
			return exitOK
		}
		refusal := refusedValue.err
		if refusal == nil {
			refusal = &UsageError{Err: flagRefusal(err, fs, cmd.Name)}
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
		return exitCancelled
	}
	return report(env, err)
}

// parseInterspersed lets flags follow positional arguments (`bf search QUERY --limit 5`), as
// users of other command-line tools expect; `--` ends flag parsing. A refusal is a
// *stoppedAt.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := ff.Parse(fs, args); err != nil {
			return nil, &stoppedAt{err: err, args: args, rest: fs.Args()}
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
		return nil, nil, exitUsage, false
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
			return nil, nil, exitOK, false
		case "-version", "--version":
			fmt.Fprintf(env.Stdout, "%s %s\n", prog, release.Version())
			return nil, nil, exitOK, false
		}
		fmt.Fprintf(env.Stderr, "bf: %s serves %s, not %q: run %s VERB [ARGS…] (see %s --help)\n",
			prog, verbList(cmds), Escape(argv[1]), prog, prog)
		return nil, nil, exitUsage, false
	}
	fmt.Fprint(env.Stderr, servesText(prog, cmds))
	return nil, nil, exitUsage, false
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
		return exitOK
	}
	if errors.Is(err, ErrCheckFailed) {
		return exitFailure
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(env.Stderr, "bf: cancelled")
		return exitCancelled
	}
	fmt.Fprintln(env.Stderr, "bf: "+Escape(err.Error()))
	var u *UsageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitFailure
}

// strict wraps every flag of fs so that a flag given twice is refused unless it is
// repeatable (a List), a number must be written in plain decimal (no 010, 0x10, 0b11 or
// 1_0, which the flag package would read in other bases), and no value may be anything but
// UTF-8 text. The flag package reports a refused value as text only: strict keeps the
// refusal, naming the flag and the reason, in the refusedValue it returns.
func strict(fs *flag.FlagSet) *refusedValue {
	refused := &refusedValue{}
	fs.VisitAll(func(f *flag.Flag) {
		v := &strictValue{Value: f.Value, name: f.Name, refused: refused}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = strictBool{v}
			return
		}
		f.Value = v
	})
	return refused
}

// refusedValue holds the first flag value a strictValue refused, as a UsageError.
type refusedValue struct{ err error }

type strictValue struct {
	flag.Value
	name    string
	given   bool
	refused *refusedValue
}

// Reasons a flag's value is refused; the refusal names the flag.
var (
	errTwice   = errors.New("given more than once; give the flag once")
	errDecimal = errors.New("expected a plain decimal integer, such as 10")
	errUTF8    = errors.New("not valid UTF-8; write arguments in UTF-8")
	errInteger = errors.New("expected an integer")
	errNumber  = errors.New("expected a number")
	errBoolean = errors.New("expected true or false")
)

// plainDecimal is an integer as people write it: an optional minus sign, then digits
// without a leading zero.
var plainDecimal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`) })

func (v *strictValue) Set(s string) error {
	err := v.set(s)
	if err != nil && v.refused.err == nil {
		v.refused.err = &UsageError{Err: fmt.Errorf("invalid input: %s: %w", v.name, err)}
	}
	return err
}

func (v *strictValue) set(s string) error {
	if _, many := v.Value.(*List); v.given && !many {
		return errTwice
	}
	v.given = true
	if !utf8.ValidString(s) {
		return errUTF8
	}
	var got any
	if g, ok := v.Value.(flag.Getter); ok {
		got = g.Get()
	}
	switch got.(type) {
	case int, int64, uint, uint64:
		if !plainDecimal().MatchString(s) {
			return errDecimal
		}
	}
	err := v.Value.Set(s)
	if err == nil || reflect.TypeOf(v.Value).Elem().PkgPath() != "flag" {
		return err
	}
	// The flag package's own values refuse with "parse error" or "value out of range":
	// the flag's type words the reason instead.
	switch got.(type) {
	case bool:
		return errBoolean
	case float64:
		return errNumber
	}
	return errInteger
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

// stoppedAt is where the flag package refused a command line: its error, the arguments
// of the parse it ended, and those left unparsed.
type stoppedAt struct {
	err        error
	args, rest []string
}

func (s *stoppedAt) Error() string { return s.err.Error() }
func (s *stoppedAt) Unwrap() error { return s.err }

// flagRefusal words a refused command line that strict did not refuse a value of. The flag
// package's errors are text, so the refusal is read from the argument parsing stopped
// after, which the flag set tells apart: a flag it does not define, named as it was typed
// with the way to pass a word starting with - as an argument instead; a flag that needs a
// value; else the flag package's own words (bad flag syntax).
func flagRefusal(err error, fs *flag.FlagSet, command string) error {
	see := fmt.Sprintf("(see bf %s --help)", command)
	var at *stoppedAt
	if !errors.As(err, &at) {
		return fmt.Errorf("%w %s", err, see)
	}
	if parsed := len(at.args) - len(at.rest); parsed > 0 {
		last := at.args[parsed-1]
		typed, _, hasValue := strings.Cut(last, "=")
		name := strings.TrimPrefix(strings.TrimPrefix(typed, "-"), "-")
		if strings.HasPrefix(last, "-") && name != "" && !strings.HasPrefix(name, "-") {
			f := fs.Lookup(name)
			switch {
			case f == nil:
				return fmt.Errorf("unknown flag %s %s; words starting with - need -- before them: bf %s -- %s", typed, see, command, typed)
			case !hasValue && len(at.rest) == 0 && !isBool(f):
				return fmt.Errorf("flag --%s needs a value %s", name, see)
			}
		}
	}
	// ff.Parse wraps the flag package's error in words of its own.
	cause := at.err
	if inner := errors.Unwrap(cause); inner != nil {
		cause = inner
	}
	return fmt.Errorf("%w %s", cause, see)
}

// isBool reports a flag given without a value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
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
	b, err := marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// marshal encodes v as every reply prints: compact, without HTML escaping, terminal-safe.
func marshal(v any) ([]byte, error) { return reply.Marshal(v) }

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
