// Package mcptest drives a bf MCP server as a host does, for tests only (like
// net/http/httptest, it is imported by _test.go files, never by a command): initialize a
// session, list and call its tools, and hold a result to the command's reply for the same
// request.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Session is an initialized client session with a bf MCP server.
type Session struct {
	Client *client.Client
	// Instructions are the server's, from initialize.
	Instructions string
}

// Initialize opens the session on a started client and checks that the server is bf and
// its instructions say how to page and that results are evidence.
func Initialize(t testing.TB, c *client.Client) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bf-mcp-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "bf" || !strings.Contains(res.Instructions, "next_offset") || !strings.Contains(res.Instructions, "evidence") {
		t.Fatalf("initialize: server %+v instructions %q", res.ServerInfo, res.Instructions)
	}
	return &Session{Client: c, Instructions: res.Instructions}
}

// Tools lists the server's tools and checks that their names are want, in any order.
func (s *Session) Tools(t testing.TB, want ...string) []mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.Client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(names))); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	return res.Tools
}

// Call calls a tool with arguments given as JSON, so numbers keep their spelling.
func (s *Session) Call(t testing.TB, tool, argsJSON string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(argsJSON)
	res, err := s.Client.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, argsJSON, err)
	}
	return res
}

// Text is a result's one text content.
func Text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content: %+v", res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("content is not text: %+v", res.Content[0])
	}
	return tc.Text
}

// SameAsCLI checks a success result: its text is the command's document (want) byte for
// byte and its structured content the same JSON value, which it returns.
func SameAsCLI(t testing.TB, res *mcp.CallToolResult, want []byte) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("error result: %s", Text(t, res))
	}
	if got := Text(t, res); got != string(want) {
		t.Fatalf("text differs from the CLI:\n got %s\nwant %s", got, want)
	}
	var wantV, gotV map[string]any
	if err := json.Unmarshal(want, &wantV); err != nil {
		t.Fatal(err)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(structured, &gotV); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Fatalf("structured content differs from the CLI (-cli +mcp):\n%s", diff)
	}
	return gotV
}

// WantError checks an error result whose message check accepts; what says what was
// expected.
func WantError(t testing.TB, res *mcp.CallToolResult, check func(string) bool, what string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error result (%s), got %s", what, Text(t, res))
	}
	if msg := Text(t, res); !check(msg) {
		t.Fatalf("error %q: want %s", msg, what)
	}
}

// CompileSchema compiles a JSON Schema document under name.
func CompileSchema(name string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// WriteLargeNote writes concepts/retention.md into brain: a note of 60 sections, larger
// than one reply holds, so tests can page through it.
func WriteLargeNote(t testing.TB, brain string) {
	t.Helper()
	var big strings.Builder
	big.WriteString("---\ntype: concept\nstatus: stable\ntitle: Retention handbook\n---\n\n# Retention handbook\n\n")
	for i := range 60 {
		fmt.Fprintf(&big, "## Rule %d\n\n", i)
		for range 8 {
			big.WriteString("Invoices are archived for seven years, then purged by the retention sweeper. ")
		}
		big.WriteString("\n\n")
	}
	if err := os.WriteFile(filepath.Join(brain, "concepts", "retention.md"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
