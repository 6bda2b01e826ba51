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
)

// verb is one entry of `bf --help`.
type verb struct {
	name, binary, summary string
}

// verbs lists what bf can do, in the order help shows them. binary is empty when the verb
// has a binary of its own (bf-NAME).
var verbs = []verb{
	{"init", "", "create a new brain in an empty folder"},
	{"register", "bf-init", "add a brain to this machine's registry"},
	{"search", "", "search notes and records: bf search WORDS"},
	{"read", "", "read a note, section, record, identity or page: bf read REF"},
	{"mcp", "", "serve search and read to agents over MCP on stdio"},
	{"collect", "bf-collect", "run one sensor now and store its records: bf collect SENSOR"},
	{"update", "bf-collect", "run the due sensors and routines, then refresh the cache"},
	{"status", "bf-collect", "show sources, routines and what needs attention"},
	{"run", "bf-watch", "run one routine or assistant now, or a hook's routines: bf run NAME"},
	{"watch", "", "keep sensors, routines and assistants running while it stays open"},
	{"channel", "", "send, read or stream through a channel by hand: bf channel send NAME --stdin"},
	{"queue", "bf-channel", "list, open, retry or cancel queued jobs and deliveries"},
	{"validate", "bf-index", "check bf.yaml, notes, links and records"},
	{"build", "bf-index", "rebuild the search cache from the brain's files"},
	{"eval", "bf-index", "run the brain's retrieval suites (evals/*.yaml)"},
	{"export", "bf-read", "print items, claims or identities as JSON Lines"},
	{"schema", "bf-index", "print the JSON Schema of bf.yaml, the registry, suites or replies"},
}

var version = "dev"

const usage = `usage: bf VERB [ARGS…]

bf searches and reads a brain: a folder of Markdown notes and JSON records.
Each verb prints one JSON document; run bf VERB --help for its flags.

Verbs:
%s
Other: bf --help, bf --version. A program bf-NAME beside bf or on PATH runs as bf NAME.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}

func run(args []string, stdout, stderr io.Writer, environ []string) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, verbList())
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprintf(stdout, usage, verbList())
		return 0
	case "--version", "-version", "version":
		fmt.Fprintf(stdout, "bf %s\n", version)
		return 0
	}
	name := args[0]
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(stderr, "bf: expected a verb before %s; see bf --help\n", quote(name))
		return 2
	}
	binary := "bf-" + name
	known := false
	for _, v := range verbs {
		if v.name == name {
			known = true
			if v.binary != "" {
				binary = v.binary
			}
		}
	}
	path, err := find(binary)
	if err != nil {
		if known {
			fmt.Fprintf(stderr, "bf: %s serves bf %s but was not found beside bf or on PATH; run make install\n", binary, name)
		} else {
			fmt.Fprintf(stderr, "bf: unknown verb %s; see bf --help\n", quote(name))
		}
		return 2
	}
	// argv[0] names the verb, so a binary serving several verbs knows which one was asked for.
	argv := append([]string{"bf-" + name}, args[1:]...)
	err = syscall.Exec(path, argv, environ)
	fmt.Fprintf(stderr, "bf: cannot run %s: %v\n", binary, err)
	return 1
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

func verbList() string {
	var b strings.Builder
	for _, v := range verbs {
		fmt.Fprintf(&b, "  %-10s %s\n", v.name, v.summary)
	}
	return b.String()
}

// quote shows a user-typed word safely in a one-line message.
func quote(s string) string { return fmt.Sprintf("%q", s) }
