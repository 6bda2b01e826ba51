// Package mcpserver serves a brain to AI agents over the Model Context Protocol (stdio):
// the tools search and read, the memory tools remember, recall and brief, and ask when the
// one brain served declares a model. Each result carries the same JSON value the CLI
// prints for the same request.
//
// Each call selects the brains again (so registry changes need no restart), runs the
// request through libbf, and closes every cache it opened before answering. What each tool
// may write, run and send is worked out once at startup from the brains selected and
// their embeddings: and ask: providers (effects.go); the tools' annotations, descriptions
// and the server's instructions all say it from that one description. Notes and records
// are also resources (bf://{brain}/{path}), read as the read tool reads them. bf checks
// tool arguments itself, in its own words, and answers JSON-RPC batches under protocol
// 2025-03-26 only.
package mcpserver

import (
	"bufio"
	"context"
	"io"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/release"
)

// Server identity as hosts show it.
const (
	name  = "bf"
	title = "Brain Framework"
)

// Options configure a server.
type Options struct {
	// Brain is the --brain value, used only when BrainGiven is true.
	Brain      string
	BrainGiven bool
	// Version is reported to clients; "" uses the release version, as bf --version does.
	Version string
	// Select picks the brains of one call; nil means brain.Select with the process
	// environment. Tests replace it.
	Select func(brain.Request) (*brain.Selection, error)
	// Env locates the registry file and the home directory hidden in error text; the zero
	// value means brain.System().
	Env *brain.Env
	// Now is the clock of the memory tools; nil: time.Now.
	Now func() time.Time
}

// Server is a configured bf MCP server.
type Server struct {
	opts Options
	mcp  *server.MCPServer
	// startRoots are the brain roots selected at startup, hidden in error text too.
	startRoots []string
	// inputs are the tools' arguments, by tool name.
	inputs map[string]input
	// inOrder names the tools whose calls are answered before the next request is read.
	inOrder map[string]bool
	session session
}

// New checks the selection once, as the CLI would (its error classifies like the CLI's:
// invalid input exits 2, anything else 1), and returns a server with the tools that
// selection offers, each annotated with what it does for the brains selected.
func New(opts Options) (*Server, error) {
	if opts.Select == nil {
		opts.Select = brain.Select
	}
	if opts.Env == nil {
		env := brain.System()
		opts.Env = &env
	}
	s := &Server{opts: opts, inputs: map[string]input{}, inOrder: map[string]bool{}}
	sel, err := s.selectBrains()
	if err != nil {
		return nil, err
	}
	for _, b := range sel.Brains {
		s.startRoots = append(s.startRoots, b.Root)
	}
	version := opts.Version
	if version == "" {
		version = release.Version()
	}
	tools, err := s.offer(sel)
	if err != nil {
		return nil, err
	}
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		s.session.set(res.ProtocolVersion, server.ClientSessionFromContext(ctx))
	})
	s.mcp = server.NewMCPServer(name, version,
		server.WithTitle(title),
		server.WithInstructions(instructions(tools)),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithRecovery(),
		server.WithHooks(hooks),
	)
	s.mcp.AddResourceTemplate(s.templateResult().ResourceTemplates[0], s.readTemplate)
	for _, t := range tools {
		s.mcp.AddTool(t.tool, t.handler)
	}
	return s, nil
}

// Serve answers requests read from in on out until in ends or ctx is cancelled. When in
// ends, no further request is read, the calls in flight finish and their answers are
// written, and Serve returns nil.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer, errLog io.Writer) error {
	std := server.NewStdioServer(s.mcp)
	if errLog != nil {
		std.SetErrorLogger(newLogger(errLog))
	}
	// bf answers batches, refused arguments and resources itself; the SDK the rest. At the
	// end of input, the SDK's side waits until every request it was given is answered.
	flight := newInFlight()
	w := &lockedWriter{w: &drainOutput{w: out, flight: flight}, flight: flight}
	sdkIn, toSDK := io.Pipe()
	go s.route(ctx, in, toSDK, w)
	return std.Listen(ctx, &drainInput{ctx: ctx, r: bufio.NewReader(sdkIn), flight: flight}, w)
}

// selectBrains resolves the selection for one call, classified like the CLI's.
func (s *Server) selectBrains() (*brain.Selection, error) {
	sel, err := s.opts.Select(brain.Request{Purpose: brain.Retrieval, Brain: s.opts.Brain, BrainGiven: s.opts.BrainGiven})
	return sel, cli.Classify(err)
}
