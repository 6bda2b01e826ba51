// Command bf-mcp serves bf mcp: a brain's tools for AI agents over the Model Context
// Protocol on stdio.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/mcpserver"
)

const usage = `usage: bf mcp [--brain NAME|PATH]

Serve the brain to an AI agent host over MCP on stdin and stdout: the tools search and
read (the JSON replies of bf search and bf read), the memory tools remember, recall and
brief (the replies of bf remember, bf recall and bf brief), and ask when the one brain
served declares a model (bf ask). The brains are selected again for every call. Each
tool's annotations and description, and the server's instructions, say what it writes,
runs and sends for the brain's embeddings: and ask: providers as the server started (see
docs/mcp.md). Give the host the absolute path of bf and an absolute --brain for a stable
selection.

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
			now, err := env.Clock()
			if err != nil {
				return err
			}
			srv, err := mcpserver.New(mcpserver.Options{Brain: brainFlag.Value, BrainGiven: brainFlag.Given, Now: now})
			if err != nil {
				return err
			}
			return srv.Serve(ctx, env.Stdin, env.Stdout, env.Stderr)
		},
	}
	cli.Main(cmd)
}
