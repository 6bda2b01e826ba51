// Command bf-mcp serves bf mcp: the search and read tools for AI agents over the Model
// Context Protocol on stdio.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/mcpserver"
)

const usage = `usage: bf mcp [--brain NAME|PATH]

Serve the brain to an AI agent host over MCP on stdin and stdout, with the read-only
tools search and read (the JSON replies of bf search and bf read; they never collect, run
programs or use the network) and the memory tools remember, recall and brief (the replies
of bf remember, bf recall and bf brief), and select the brains again
for every call. Give the host the absolute path of bf and an absolute --brain for a
stable selection (see docs/mcp.md).

Exit status: 0 when the host closes the connection, 1 failure, 2 invalid input,
130 interrupted or terminated.`

func main() {
	// SIGINT and SIGTERM end the server at once, even in the middle of a request.
	cli.ExitOnSignal()
	var brainFlag *cli.Optional
	cmd := &cli.Command{
		Name:  "mcp",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf mcp takes no arguments (see bf mcp --help)")
			}
			srv, err := mcpserver.New(mcpserver.Options{Brain: brainFlag.Value, BrainGiven: brainFlag.Given})
			if err != nil {
				return err
			}
			return srv.Serve(ctx, env.Stdin, env.Stdout, env.Stderr)
		},
	}
	cli.Main(cmd)
}
