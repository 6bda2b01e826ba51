package config

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on program commands.
const (
	MaxArgs     = 128
	MaxArgChars = 16384
)

// Placeholders a command may use. Each is replaced once, as plain text, when the program
// starts; {{lines:FILE}} must be a whole argument and becomes one argument per non-blank,
// non-comment line of the brain-relative FILE.
const (
	PlaceholderBrain   = "{{brain}}"   // absolute brain root
	PlaceholderHome    = "{{home}}"    // the user's home folder
	PlaceholderStart   = "{{start}}"   // window start, canonical UTC
	PlaceholderEnd     = "{{end}}"     // window end, canonical UTC
	PlaceholderSchema  = "{{schema}}"  // assistants with reply: the reply JSON Schema
	PlaceholderContext = "{{context}}" // assistants: path of the private run context file
	linesPrefix        = "{{lines:"
)

// Command is a program's argv, run directly without a shell from the brain root.
// Its first item is a bare program name looked up on PATH or a normalised brain-relative
// path in the folder of its section (sensors/ or routines/ for sensors and routines,
// channels/ for channels, assistants/ for assistants).
type Command []string

// Lines returns the brain-relative files named by {{lines:FILE}} arguments.
func (c Command) Lines() []string {
	var out []string
	for _, a := range c {
		if f, ok := linesFile(a); ok {
			out = append(out, f)
		}
	}
	return out
}

// Paths returns the arguments that name brain-relative programs: normalised paths under
// sensors/, routines/, channels/ or assistants/, whether the program is command[0] or is
// launched through a runner such as [uv, run, sensors/x.py]. bf validate checks that each
// is an executable regular file.
func (c Command) Paths() []string {
	var out []string
	for _, a := range c {
		dir, _, ok := strings.Cut(a, "/")
		if !ok {
			continue
		}
		switch dir {
		case "sensors", "routines", "channels", "assistants":
			if cleanRelPath(a) && !strings.ContainsAny(a, "{}\\") {
				out = append(out, a)
			}
		}
	}
	return out
}

// commandKind says what a command of one section may contain.
type commandKind struct {
	dirs         []string // folders command[0] may name
	placeholders []string // placeholders allowed besides {{lines:FILE}}
	needWindow   bool     // must pass {{start}} and {{end}} (channel read)
	what         string   // "send commands", … for the placeholder message
}

var (
	programKind = commandKind{
		dirs:         []string{"sensors", "routines"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome, PlaceholderStart, PlaceholderEnd},
		what:         "commands",
	}
	sendKind = commandKind{
		dirs:         []string{"channels"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome},
		what:         "send commands",
	}
	readKind = commandKind{
		dirs:         []string{"channels"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome, PlaceholderStart, PlaceholderEnd},
		needWindow:   true,
		what:         "read commands",
	}
	streamKind = commandKind{
		dirs:         []string{"channels"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome, PlaceholderStart},
		what:         "stream commands",
	}
	assistantKind = commandKind{
		dirs: []string{"assistants"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome, PlaceholderStart, PlaceholderEnd,
			PlaceholderSchema, PlaceholderContext},
		what: "assistant commands",
	}
	gateKind = commandKind{
		dirs:         []string{"assistants"},
		placeholders: []string{PlaceholderBrain, PlaceholderHome, PlaceholderStart, PlaceholderEnd},
		what:         "gate commands",
	}
)

// checkCommand validates a whole command. It returns the path suffix (an argument index or
// "") and the reason of the first problem.
func (k commandKind) check(c Command, present bool) (string, string) {
	if !present {
		return "", "required"
	}
	if len(c) == 0 || len(c) > MaxArgs {
		return "", "expected 1-128 arguments"
	}
	if i, reason := k.checkArgs(c, 0); reason != "" {
		return i, reason
	}
	if !k.program(c[0]) {
		return "0", "expected a program on PATH or a normalised path under " + k.folders()
	}
	if k.needWindow {
		var start, end bool
		for _, a := range c {
			start = start || strings.Contains(a, PlaceholderStart)
			end = end || strings.Contains(a, PlaceholderEnd)
		}
		if !start || !end {
			return "", k.what + " must pass {{start}} and {{end}}"
		}
	}
	return "", ""
}

// checkArgs validates arguments from index first on (extra argument lists use first 0).
func (k commandKind) checkArgs(args []string, first int) (string, string) {
	for i := first; i < len(args); i++ {
		if reason := k.arg(args[i]); reason != "" {
			return strconv.Itoa(i), reason
		}
	}
	return "", ""
}

func (k commandKind) arg(a string) string {
	if len(a) > MaxArgChars && utf8.RuneCountInString(a) > MaxArgChars {
		return "argument exceeds 16384 characters"
	}
	if strings.IndexByte(a, 0) >= 0 {
		return "argument contains a NUL character"
	}
	if strings.HasPrefix(a, linesPrefix) {
		if _, ok := linesFile(a); !ok {
			return "{{lines:FILE}} must be a whole argument naming a brain-relative file"
		}
		return ""
	}
	rest := a
	for _, p := range k.placeholders {
		rest = strings.ReplaceAll(rest, p, "")
	}
	if strings.Contains(rest, linesPrefix) {
		return "{{lines:FILE}} must be a whole argument naming a brain-relative file"
	}
	if strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
		return "unknown placeholder; " + k.what + " take " + k.placeholderList()
	}
	return ""
}

func (k commandKind) placeholderList() string {
	all := append(append([]string(nil), k.placeholders...), "{{lines:FILE}}")
	return strings.Join(all[:len(all)-1], ", ") + " or " + all[len(all)-1]
}

func (k commandKind) folders() string {
	parts := make([]string, len(k.dirs))
	for i, d := range k.dirs {
		parts[i] = d + "/"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// program implements ^(?:[^/{}\\]+|(?:DIR)(?:/[^/{}\\]+)+)$ without . or .. segments.
func (k commandKind) program(s string) bool {
	if s == "" || strings.ContainsAny(s, "{}\\") || strings.IndexByte(s, 0) >= 0 {
		return false
	}
	if !strings.Contains(s, "/") {
		return s != "." && s != ".."
	}
	dir, rest, _ := strings.Cut(s, "/")
	for _, d := range k.dirs {
		if dir == d {
			return rest != "" && cleanRelPath(s)
		}
	}
	return false
}

// linesFile reads {{lines:FILE}} when it is the whole argument and FILE is a clean
// brain-relative path.
func linesFile(a string) (string, bool) {
	if !strings.HasPrefix(a, linesPrefix) || !strings.HasSuffix(a, "}}") {
		return "", false
	}
	f := a[len(linesPrefix) : len(a)-2]
	if strings.ContainsAny(f, "{}\\") || !cleanRelPath(f) {
		return "", false
	}
	return f, true
}

// cleanRelPath reports a nonempty relative slash path without empty, . or .. segments or
// control characters.
func cleanRelPath(p string) bool {
	if p == "" || len(p) > 4096 {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
