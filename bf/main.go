// Command bf is the dispatcher: `bf VERB ARGS…` runs `bf-VERB ARGS…`, found beside bf or on
// PATH, in place of itself, as git does with its subcommands. Verbs that a sibling serves
// reach it through the alias table.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/bfgo/bf/libbf/dispatch"
	"github.com/bfgo/bf/libbf/release"
)

// verb is one entry of `bf --help`.
type verb struct {
	name, binary, summary string
}

// verbs lists what bf can do, in the order help shows them. binary is empty when the verb
// has a binary of its own (bf-NAME).
var verbs = []verb{
	{"init", "", "create a new brain in an empty folder"},
	{"import", "", "copy an Obsidian vault or Markdown folder into a brain: bf import SOURCE DEST"},
	{"register", "bf-init", "add a brain to this machine's registry"},
	{"search", "", "search notes and records: bf search WORDS"},
	{"read", "", "read a note, section, record, identity or page: bf read REF"},
	{"ask", "", "answer a question from the brain through the configured model: bf ask QUESTION"},
	{"mcp", "", "serve search, read, memory and ask tools to agents over MCP on stdio"},
	{"lsp", "", "serve the brain to editors over the Language Server Protocol on stdio"},
	{"collect", "bf-collect", "run one sensor now and store its records: bf collect SENSOR"},
	{"update", "bf-collect", "run the due sensors and routines, then refresh the cache"},
	{"status", "bf-collect", "show sources, routines and what needs attention"},
	{"run", "bf-watch", "run one routine or assistant now, or a hook's routines: bf run NAME"},
	{"watch", "", "keep sensors, routines and assistants running while it stays open"},
	{"channel", "", "send, read or stream through a channel by hand: bf channel send NAME --stdin"},
	{"queue", "", "list, open, retry or cancel queued jobs and deliveries"},
	{"validate", "bf-index", "check bf.yaml, notes, links and records"},
	{"build", "bf-index", "rebuild the search cache from the brain's files"},
	{"eval", "bf-index", "run the brain's retrieval suites (evals/*.yaml)"},
	{"export", "bf-read", "print items, claims or identities as JSON Lines"},
	{"schema", "bf-index", "print the JSON Schema of bf.yaml, the registry, suites or replies"},
	{"remember", "bf-memory", "save a typed memory: bf remember --type T --title … --body …"},
	{"recall", "bf-memory", "rank the memories that match: bf recall WORDS [--scope S]"},
	{"brief", "bf-memory", "print the size-capped session brief of rules, preferences and pins"},
	{"verify", "bf-memory", "record that a memory was checked: bf verify REF --source …"},
	{"review", "bf-memory", "list reviews due, stale memories, duplicates and undeclared scopes"},
	{"forget", "bf-memory", "delete a memory that replaced nothing: bf forget REF"},
	{"scope", "bf-memory", "declare memory scopes and compare them with those stored"},
}

const usage = `usage: bf VERB [ARGS…]

bf searches and reads a brain: a folder of Markdown notes and JSON records.
Each verb prints one JSON document; run bf VERB --help (or bf help VERB) for its flags.

Verbs:
%s
Other: bf --help, bf --version. A program bf-NAME beside bf or on PATH runs as bf NAME.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}

func run(args []string, stdout, stderr io.Writer, environ []string) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, verbList(find))
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help":
		fmt.Fprintf(stdout, usage, verbList(find))
		return 0
	case "help":
		if len(args) == 1 {
			fmt.Fprintf(stdout, usage, verbList(find))
			return 0
		}
		if len(args) > 2 {
			fmt.Fprintln(stderr, "bf: bf help takes one VERB; see bf --help")
			return 2
		}
		// bf help VERB is bf VERB --help.
		args = []string{args[1], "--help"}
	case "--version", "-version", "version":
		fmt.Fprintf(stdout, "bf %s\n", release.Version())
		return 0
	}
	name := args[0]
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(stderr, "bf: expected a verb before %s; see bf --help\n", quote(name))
		return 2
	}
	binary, known := binaryOf(name)
	path, err := find(binary)
	if err != nil {
		if known {
			fmt.Fprintf(stderr, "bf: bf %s needs %s, which is not installed beside bf or on PATH; install it with make install PIECES=%s in a checkout, or go install github.com/bfgo/bf/%s@latest\n", name, binary, binary, binary)
			return 1
		}
		fmt.Fprintf(stderr, "bf: unknown verb %s; see bf --help\n", quote(name))
		return 2
	}
	// argv[0] "bf VERB" names the verb, so a binary serving several verbs knows which one
	// was asked for (run directly, such a binary takes the verb as its first argument).
	argv := append([]string{dispatch.Prefix + name}, args[1:]...)
	err = syscall.Exec(path, argv, environ)
	fmt.Fprintf(stderr, "bf: cannot run %s: %v\n", binary, err)
	return 1
}

// binaryOf names the binary serving a verb and whether the verb is one of bf's own.
func binaryOf(name string) (binary string, known bool) {
	for _, v := range verbs {
		if v.name == name {
			if v.binary != "" {
				return v.binary, true
			}
			return "bf-" + name, true
		}
	}
	return "bf-" + name, false
}

// find looks beside bf's own executable first, so one bin folder is self-contained, then on PATH.
func find(binary string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), binary)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath(binary)
	if errors.Is(err, exec.ErrDot) {
		return "", err
	}
	return p, err
}

// verbList is help's table of verbs; a verb whose binary lookup fails is marked.
func verbList(lookup func(string) (string, error)) string {
	var b strings.Builder
	for _, v := range verbs {
		binary, _ := binaryOf(v.name)
		summary := v.summary
		if _, err := lookup(binary); err != nil {
			summary += " [not installed: " + binary + "]"
		}
		fmt.Fprintf(&b, "  %-10s %s\n", v.name, summary)
	}
	return b.String()
}

// quote shows a user-typed word safely in a one-line message.
func quote(s string) string { return fmt.Sprintf("%q", s) }
