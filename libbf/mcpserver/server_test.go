package mcpserver_test

// The protocol as a host sees it: the server runs in process on pipes (Serve), driven by
// mcp-go's client or by JSON-RPC lines, over a copy of the example brain. Each tool's
// result is compared with what the command prints for the same request, made by the libbf
// calls the command makes (cli below); bf-mcp's own tests run the binaries.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/mcpserver"
	"github.com/bfgo/bf/libbf/mcptest"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/search"
)

// fixture is a copy of the example brain with a private home, plus one large note whose
// text comes back in pages.
type fixture struct {
	brain, home string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	tmp := t.TempDir()
	f := &fixture{brain: filepath.Join(tmp, "brain"), home: filepath.Join(tmp, "home")}
	if err := os.CopyFS(f.brain, os.DirFS(filepath.Join("..", "..", "examples", "brain"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.home, 0o700); err != nil {
		t.Fatal(err)
	}
	// The server and the commands read the machine from the process environment.
	t.Setenv("HOME", f.home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "BF_BRAIN"} {
		t.Setenv(k, "")
	}
	mcptest.WriteLargeNote(t, f.brain)
	return f
}

// appendConfig adds text at the end of the brain's bf.yaml.
func (f *fixture) appendConfig(t *testing.T, text string) {
	t.Helper()
	path := filepath.Join(f.brain, "bf.yaml")
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(cfg, text...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server is bf mcp --brain BRAIN as the command builds it.
func (f *fixture) server(t *testing.T) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{Brain: f.brain, BrainGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// serve answers the JSON-RPC lines of in, as bf mcp does until its stdin ends, and
// returns what it wrote.
func (f *fixture) serve(t *testing.T, in string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errLog bytes.Buffer
	if err := f.server(t).Serve(ctx, strings.NewReader(in), &out, &errLog); err != nil {
		t.Fatalf("serve: %v; log %q", err, errLog.String())
	}
	return out.Bytes()
}

// cli is what bf search or bf read (name bf-search or bf-read) prints for args, without
// the final newline: the reply of the libbf calls the command makes. Its flags are
// --limit, --offset, --scope and --rel, each with a value.
func (f *fixture) cli(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var words []string
	flags := map[string]string{}
	for i := 0; i < len(args); i++ {
		if k, ok := strings.CutPrefix(args[i], "--"); ok && i+1 < len(args) {
			flags[k] = args[i+1]
			i++
			continue
		}
		words = append(words, args[i])
	}
	number := func(k string, def int64) int64 {
		if flags[k] == "" {
			return def
		}
		n, err := strconv.ParseInt(flags[k], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	sel, err := brain.Select(brain.Request{Purpose: brain.Retrieval, Brain: f.brain, BrainGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var res any
	switch name {
	case "bf-search":
		res, err = search.Run(ctx, search.Request{Query: strings.Join(words, " "), Scope: flags["scope"],
			Limit: int(number("limit", search.DefaultLimit)), Offset: number("offset", 0), Brains: sel.Brains, Problems: sel.Problems})
	case "bf-read":
		req := read.Request{Rel: flags["rel"], Offset: number("offset", 0), Brains: sel.Brains, Problems: sel.Problems}
		if len(words) > 0 {
			req.Ref = words[0]
		}
		res, err = read.Run(ctx, req)
	default:
		t.Fatalf("no command %s", name)
	}
	if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	b, err := reply.Encode(res)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// start serves the brain in process and opens a session with mcp-go's client over pipes.
func (f *fixture) start(t *testing.T) *mcptest.Session {
	t.Helper()
	srv := f.server(t)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(ctx, toServer, fromServer, io.Discard)
		fromServer.Close()
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader(""))))
	t.Cleanup(func() {
		c.Close()
		fromClient.Close()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		cancel()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return mcptest.Initialize(t, c)
}

func TestServer(t *testing.T) {
	f := newFixture(t)
	s := f.start(t)

	// Two read-only tools (search, read) and the three memory tools, which write, each with
	// a title, a description, an input schema and its reply schema. Without providers no
	// tool uses the network (bf-mcp's TestEffects checks every annotation against what calls do).
	for _, tl := range s.Tools(t, "brief", "read", "recall", "remember", "search") {
		readOnly := tl.Name == "search" || tl.Name == "read"
		if tl.Title == "" || tl.Description == "" || tl.Annotations.ReadOnlyHint == nil || *tl.Annotations.ReadOnlyHint != readOnly ||
			tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("tool %s: %+v", tl.Name, tl)
		}
	}

	// Search, then its continuation, each the CLI's JSON.
	first := mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"invoice","limit":2}`), f.cli(t, "bf-search", "invoice", "--limit", "2"))
	next, ok := first["next_offset"].(float64)
	if !ok {
		t.Fatalf("no next_offset in %v", first)
	}
	n := strconv.FormatInt(int64(next), 10)
	mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"invoice","limit":2,"offset":`+n+`}`), f.cli(t, "bf-search", "invoice", "--limit", "2", "--offset", n))
	// Integral numbers count as integers.
	mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"ledger postings","limit":3.0,"offset":0.0,"scope":"concepts"}`),
		f.cli(t, "bf-search", "ledger postings", "--limit", "3", "--scope", "concepts"))

	// Reads: home, a page, a note, a section, a relation page, and a large note in text pages.
	mcptest.SameAsCLI(t, s.Call(t, "read", `{}`), f.cli(t, "bf-read"))
	mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"projects"}`), f.cli(t, "bf-read", "projects"))
	mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/ledger.md"}`), f.cli(t, "bf-read", "concepts/ledger.md"))
	mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/ledger.md","rel":"links"}`), f.cli(t, "bf-read", "concepts/ledger.md", "--rel", "links"))
	page := mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/retention.md"}`), f.cli(t, "bf-read", "concepts/retention.md"))
	for i := 0; ; i++ {
		next, ok := page["next_offset"].(float64)
		if !ok {
			if i == 0 {
				t.Fatalf("the large note came back in one page: %v", page)
			}
			break
		}
		n := strconv.FormatInt(int64(next), 10)
		page = mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"concepts/retention.md","offset":`+n+`}`), f.cli(t, "bf-read", "concepts/retention.md", "--offset", n))
	}

	// Arguments outside the input schema: bf's own words, naming the argument and the value.
	for _, c := range []struct{ tool, args, want string }{
		{"search", `{"query":"invoice","limit":0}`, "invalid input: limit: must be 1 to 50 (got 0)"},
		{"search", `{"query":"invoice","limit":51}`, "invalid input: limit: must be 1 to 50 (got 51)"},
		{"search", `{"query":"invoice","limit":1e400}`, "invalid input: limit: must be 1 to 50 (got 1e400)"},
		{"search", `{"query":"invoice","limit":-1e400}`, "invalid input: limit: must be 1 to 50 (got -1e400)"},
		{"search", `{"query":"invoice","limit":2.5}`, "invalid input: limit: must be an integer (got 2.5)"},
		{"search", `{"query":"invoice","limit":"5"}`, `invalid input: limit: must be an integer (got "5")`},
		{"search", `{"query":"invoice","offset":-1}`, "invalid input: offset: must be 0 to 9007199254740991 (got -1)"},
		{"search", `{"query":"invoice","brain":"x"}`, "invalid input: unknown argument brain"},
		{"search", `{"query":"invoice","foo":1,"bar":2}`, "invalid input: unknown argument bar"},
		{"search", `{"limit":5}`, "invalid input: query: required"},
		{"search", `{"query":7}`, "invalid input: query: must be a string (got 7)"},
		{"search", `{"query":"` + strings.Repeat("é", 4097) + `"}`, "invalid input: query: must be at most 4096 characters (got 4097)"},
		{"read", `{"ref":"projects","offset":true}`, "invalid input: offset: must be an integer (got true)"},
		{"read", `{"ref":"projects","page":2}`, "invalid input: unknown argument page"},
		{"read", `{"ref":"projects","offset":9007199254740992}`, "invalid input: offset: must be 0 to 9007199254740991 (got 9007199254740992)"},
		{"read", `[1]`, "invalid input: arguments: must be an object"},
	} {
		mcptest.WantError(t, s.Call(t, c.tool, c.args), func(m string) bool { return m == c.want }, c.tool+" "+c.args+": "+c.want)
	}
	// Values the schema allows pass: 5.0 is the integer 5.
	mcptest.SameAsCLI(t, s.Call(t, "search", `{"query":"invoice","limit":5.0}`), f.cli(t, "bf-search", "invoice", "--limit", "5"))

	// Values the tools reject: invalid input naming the argument.
	exact := func(want string) func(string) bool { return func(got string) bool { return got == want } }
	prefix := func(want string) func(string) bool {
		return func(got string) bool { return strings.HasPrefix(got, want) }
	}
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"2026-13"}`), exact("invalid input: ref: invalid period: 2026-13"), "an invalid period")
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"tasks#open"}`), exact("invalid input: ref: pages have no sections; read the page without #section"), "a page section")
	mcptest.WantError(t, s.Call(t, "search", `{"query":""}`), prefix("invalid input: query: "), "an empty query")
	mcptest.WantError(t, s.Call(t, "search", `{"query":"invoice","scope":"2026-13"}`), prefix("invalid input: scope: "), "an invalid scope")
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"concepts/ledger.md","rel":"nope"}`),
		func(m string) bool {
			return strings.HasPrefix(m, "invalid input: rel: unknown relation; use one of ") && strings.Contains(m, "links") && strings.Contains(m, "cites")
		}, "an unknown relation with the choices")

	// Other failures: the CLI's message, naming the tools instead of commands.
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"projects/nothing.md"}`),
		prefix("reference not found; use the search tool to locate it, or the read tool to browse pages"), "not found, naming the tools")
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"concepts/ledger.md#nothing"}`), exact("section not found; read the whole note to see its headings"), "a missing section")
	// Control characters are escaped.
	mcptest.WantError(t, s.Call(t, "read", `{"ref":"projects/a\u001b[2J.md"}`),
		func(m string) bool { return !strings.ContainsRune(m, 0x1b) }, "no raw control characters")

	// The selection is resolved again for each call: once the brain is gone, a call fails
	// with its path shown as <brain>, and the server keeps serving.
	moved := f.brain + ".moved"
	if err := os.Rename(f.brain, moved); err != nil {
		t.Fatal(err)
	}
	mcptest.WantError(t, s.Call(t, "search", `{"query":"invoice"}`),
		func(m string) bool { return strings.Contains(m, "<brain>") && !strings.Contains(m, f.brain) }, "the missing brain as <brain>")
	if err := os.Rename(moved, f.brain); err != nil {
		t.Fatal(err)
	}
	mcptest.SameAsCLI(t, s.Call(t, "read", `{"ref":"projects"}`), f.cli(t, "bf-read", "projects"))
}

// TestSchemas reads tools/list off the wire and compiles each published schema, for a
// brain without a model (five tools) and one declaring ask: (six).
func TestSchemas(t *testing.T) {
	plain := newFixture(t)
	t.Run("five tools", func(t *testing.T) { checkSchemas(t, plain, 5) })
	withModel := newFixture(t)
	withModel.appendConfig(t, "ask:\n  command: [tools/model.sh]\n")
	t.Run("with ask", func(t *testing.T) { checkSchemas(t, withModel, 6) })
}

func checkSchemas(t *testing.T, f *fixture, tools int) {
	out := f.serve(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	var list struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"id":2`)) {
			if err := json.Unmarshal(sc.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(list.Result.Tools) != tools {
		t.Fatalf("tools/list: %s", out)
	}
	for _, tl := range list.Result.Tools {
		for kind, raw := range map[string]json.RawMessage{"input": tl.InputSchema, "output": tl.OutputSchema} {
			if _, err := mcptest.CompileSchema(tl.Name+"-"+kind, raw); err != nil {
				t.Errorf("%s %s schema does not compile: %v", tl.Name, kind, err)
			}
		}
		want, err := schema.Get(tl.Name + "-reply")
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(want, &a)
		json.Unmarshal(tl.OutputSchema, &b)
		if !cmp.Equal(a, b) {
			t.Errorf("%s outputSchema is not the %s-reply schema", tl.Name, tl.Name)
		}
	}
}

// TestClosedStdin: a host that pipes its requests and closes stdin gets every answer.
// At the end of stdin bf mcp reads nothing more, finishes the calls in flight, writes
// their results and exits 0; none is cut short as "context canceled".
func TestClosedStdin(t *testing.T) {
	f := newFixture(t)
	queries := []string{"dunning", "ledger cutover", "retention sweeper", "invoices archived", "tax rate"}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	want := map[string]string{}
	for i, q := range queries {
		id := strconv.Itoa(i + 1)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search","arguments":{"query":%q}}}`+"\n", id, q)
		want[id] = string(f.cli(t, "bf-search", q))
	}
	fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read","arguments":{"ref":"concepts/retention.md"}}}`+"\n")
	want[`"r"`] = string(f.cli(t, "bf-read", "concepts/retention.md"))
	in.WriteString(`{"jsonrpc":"2.0","id":"p","method":"ping"}`) // the last line has no newline

	out := f.serve(t, in.String())
	got := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		id := string(resp.ID)
		if _, dup := got[id]; dup {
			t.Errorf("two answers for id %s", id)
		}
		switch {
		case resp.Error != nil:
			t.Errorf("id %s: error %s", id, resp.Error.Message)
		case resp.Result.IsError:
			t.Errorf("id %s: error result %+v", id, resp.Result.Content)
		}
		got[id] = ""
		if len(resp.Result.Content) == 1 {
			got[id] = resp.Result.Content[0].Text
		}
	}
	for id, text := range want {
		if g, ok := got[id]; !ok {
			t.Errorf("id %s: no answer", id)
		} else if g != text {
			t.Errorf("id %s: answer differs from the CLI:\n got %.200s\nwant %.200s", id, g, text)
		}
	}
	if _, ok := got[`"p"`]; !ok || len(got) != len(want)+2 {
		t.Errorf("answers for %d ids, want %d (initialize, every call and the ping)", len(got), len(want)+2)
	}
}

// wire serves the given input lines after initialize under protocol, and returns
// its output lines after initialize's response.
func (f *fixture) wire(t *testing.T, protocol string, lines ...string) []string {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	out := f.serve(t, in+strings.Join(lines, "\n")+"\n")
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) == 0 || !strings.Contains(got[0], `"protocolVersion":"`+protocol+`"`) {
		t.Fatalf("initialize: %s", out)
	}
	return got[1:]
}

// TestBatches: protocol 2025-03-26 answers a batch with an array of responses (none for
// notifications); later protocols refuse batches with one error.
func TestBatches(t *testing.T) {
	f := newFixture(t)
	batch := `[{"jsonrpc":"2.0","id":2,"method":"ping"},` +
		`{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"invoice","limit":0}}},` +
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}]`
	got := f.wire(t, "2025-03-26", batch)
	var replies []struct {
		ID     int `json:"id"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &replies) != nil || len(replies) != 3 {
		t.Fatalf("2025-03-26 batch: %q", got)
	}
	if replies[0].ID != 2 || replies[0].Result == nil || replies[0].Error != nil {
		t.Errorf("ping in a batch: %s", got[0])
	}
	if r := replies[1]; r.ID != 3 || r.Result == nil || !r.Result.IsError || r.Result.Content[0].Text != "invalid input: limit: must be 1 to 50 (got 0)" {
		t.Errorf("tools/call in a batch: %s", got[0])
	}
	if r := replies[2]; r.ID != 4 || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("initialize in a batch: %s", got[0])
	}

	for _, protocol := range []string{"2025-06-18", "2025-11-25"} {
		got := f.wire(t, protocol, batch, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"protocol ` + protocol + ` has no JSON-RPC batches (only 2025-03-26 had them); send one message per line"}}`
		if len(got) != 2 || got[0] != want || !strings.Contains(got[1], `"id":9`) {
			t.Errorf("%s batch: %q\nwant %s", protocol, got, want)
		}
	}
}

// TestResources: a note read as a resource is the same text as bf read prints for its
// address, and resources/list pages every note.
func TestResources(t *testing.T) {
	f := newFixture(t)
	s := f.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	tpl, err := s.Client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate.Raw() != "bf://{brain}/{path}" {
		t.Fatalf("resource templates: %+v %v", tpl, err)
	}

	for _, uri := range []string{"bf://acme/concepts/ledger.md", "bf://acme/concepts/ledger.md#" + "nothing-here", "bf://acme/projects"} {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := s.Client.ReadResource(ctx, req)
		if strings.Contains(uri, "#") {
			if err == nil || !strings.Contains(err.Error(), "section not found") {
				t.Errorf("%s: %v", uri, err)
			}
			continue
		}
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("%s: %+v %v", uri, res, err)
		}
		tc, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok || tc.URI != uri || tc.MIMEType != "application/json" {
			t.Fatalf("%s: %+v", uri, res.Contents[0])
		}
		if want := f.cli(t, "bf-read", uri); tc.Text != string(want) {
			t.Errorf("%s: resource text differs from bf read:\n%s\n%s", uri, tc.Text, want)
		}
	}

	// A large note continues through resources at ?offset=NEXT_OFFSET, page for page as
	// bf read --offset prints it, until the text is whole.
	const big = "bf://acme/concepts/retention.md"
	var whole strings.Builder
	textPages := 0
	for uri := big; uri != ""; textPages++ {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := s.Client.ReadResource(ctx, req)
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("%s: %+v %v", uri, res, err)
		}
		tc := res.Contents[0].(mcp.TextResourceContents)
		_, offset, _ := strings.Cut(uri, "?offset=")
		if offset == "" {
			offset = "0"
		}
		if want := f.cli(t, "bf-read", big, "--offset", offset); tc.URI != uri || tc.Text != string(want) {
			t.Fatalf("%s: resource differs from bf read --offset %s:\n%.300s\n%.300s", uri, offset, tc.Text, want)
		}
		var page struct {
			Text       string `json:"text"`
			NextOffset *int64 `json:"next_offset"`
		}
		if err := json.Unmarshal([]byte(tc.Text), &page); err != nil {
			t.Fatal(err)
		}
		whole.WriteString(page.Text)
		uri = ""
		if page.NextOffset != nil {
			uri = big + "?offset=" + strconv.FormatInt(*page.NextOffset, 10)
		}
	}
	note, err := os.ReadFile(filepath.Join(f.brain, "concepts", "retention.md"))
	if err != nil {
		t.Fatal(err)
	}
	if textPages < 2 || !strings.Contains(string(note), whole.String()) || len(whole.String()) < len(note)*9/10 {
		t.Errorf("%d text pages gave %d of the note's %d bytes", textPages, len(whole.String()), len(note))
	}
	bad := mcp.ReadResourceRequest{}
	bad.Params.URI = big + "?offset=x"
	if _, err := s.Client.ReadResource(ctx, bad); err == nil || !strings.Contains(err.Error(), "invalid input: offset: expected an integer from 0 to 9007199254740991") {
		t.Errorf("%s: %v", bad.Params.URI, err)
	}

	var uris []string
	var cursor mcp.Cursor
	pages := 0
	for {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := s.Client.ListResources(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	// The example brain's notes and the fixture's large one, each once, in path order.
	var want []string
	for _, root := range []string{"actions", "concepts", "projects"} {
		filepath.WalkDir(filepath.Join(f.brain, root), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(f.brain, p)
				want = append(want, "bf://acme/"+filepath.ToSlash(rel))
			}
			return nil
		})
	}
	if diff := cmp.Diff(want, uris); diff != "" || pages != 1+len(want)/100 {
		t.Errorf("resources/list in %d pages (-want +got):\n%s", pages, diff)
	}
}

// TestPipelinedRememberThenRecall: a host that writes a remember and then a recall without
// waiting for the first answer gets a recall that sees the memory just saved, every time.
func TestPipelinedRememberThenRecall(t *testing.T) {
	t.Setenv("BF_NOW", "2026-01-01T00:00:00Z")
	f := newFixture(t)
	const pairs = 20
	var lines []string
	for i := range pairs {
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"remember-%d","method":"tools/call","params":{"name":"remember","arguments":{"type":"fact","title":"Locker %d code","body":"Locker %d opens with code q%dz."}}}`, i, i, i, i),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"recall-%d","method":"tools/call","params":{"name":"recall","arguments":{"query":"q%dz","no_touch":true}}}`, i, i))
	}
	recalled := map[string][]string{}
	for _, line := range f.wire(t, "2025-06-18", lines...) {
		var resp struct {
			ID     string `json:"id"`
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Items []struct {
						Title string `json:"title"`
					} `json:"items"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if resp.Result.IsError {
			t.Fatalf("%s: %s", resp.ID, line)
		}
		if strings.HasPrefix(resp.ID, "recall-") {
			for _, it := range resp.Result.StructuredContent.Items {
				recalled[resp.ID] = append(recalled[resp.ID], it.Title)
			}
		}
	}
	want := map[string][]string{}
	for i := range pairs {
		want[fmt.Sprintf("recall-%d", i)] = []string{fmt.Sprintf("Locker %d code", i)}
	}
	if diff := cmp.Diff(want, recalled); diff != "" {
		t.Errorf("what each pipelined recall found (-want +got):\n%s", diff)
	}
}
