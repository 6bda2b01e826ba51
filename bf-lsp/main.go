// Command bf-lsp serves bf lsp: the brain in the editor, as a Language Server Protocol
// server on stdin and stdout.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/lsp"
)

const usage = `usage: bf lsp [--brain NAME|PATH]

Serve the brain to an editor over the Language Server Protocol on stdin and stdout:
bf validate's problems and warnings for the open note as it is typed, completion of
links, sections, records, identities, tags and relations, hover, go to definition,
references (backlinks), the heading outline and workspace symbols (bf search). The
brain is --brain, else the one enclosing the editor's workspace folder or the first
note opened; files outside it get nothing. It writes no file: a fix is an edit the
editor applies when you accept it. See docs/lsp.md for editor setup.

Exit status: 0 when the editor closes the connection or after shutdown and exit,
1 failure or exit without shutdown, 2 invalid input, 130 interrupted or terminated.`

func main() {
	// SIGINT and SIGTERM end the server at once, even in the middle of a request.
	cli.ExitOnSignal()
	var brainFlag *cli.Optional
	cmd := &cli.Command{
		Name:  "lsp",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf lsp takes no arguments (see bf lsp --help)")
			}
			srv := lsp.New(lsp.Options{Brain: brainFlag.Value, BrainGiven: brainFlag.Given, Log: env.Stderr})
			return srv.Serve(ctx, env.Stdin, env.Stdout)
		},
	}
	cli.Main(cmd)
}
