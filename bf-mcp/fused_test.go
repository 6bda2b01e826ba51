package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bfgo/bf/libbf/schema"

	"github.com/bfgo/bf/libbf/mcptest"
)

// TestFusedMode runs the search tool in fused mode: the items of bf search --fused, each
// explained, and an unknown mode refused as invalid input.
func TestFusedMode(t *testing.T) {
	f := newFixture(t)
	s := f.start(t, "--brain", f.brain)
	res := s.Call(t, "search", `{"query":"ledger cutover","mode":"fused","limit":5}`)
	if res.IsError {
		t.Fatalf("error result: %s", mcptest.Text(t, res))
	}
	type page struct {
		Fused struct {
			Class string `json:"class"`
		} `json:"fused"`
		Items []struct {
			Ref     string          `json:"ref"`
			Explain json.RawMessage `json:"explain"`
		} `json:"items"`
	}
	var got, want page
	if err := json.Unmarshal([]byte(mcptest.Text(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(f.cli(t, "bf-search", "--fused", "ledger cutover", "--limit", "5"), &want); err != nil {
		t.Fatal(err)
	}
	if got.Fused.Class != "keywords" || len(got.Items) == 0 {
		t.Fatalf("fused reply: %s", mcptest.Text(t, res))
	}
	refs := func(p page) []string {
		var out []string
		for _, it := range p.Items {
			if len(it.Explain) == 0 {
				t.Errorf("%s has no explanation", it.Ref)
			}
			out = append(out, it.Ref)
		}
		return out
	}
	if diff := cmp.Diff(refs(want), refs(got)); diff != "" {
		t.Errorf("items differ from the CLI (-want +got):\n%s", diff)
	}
	mcptest.WantError(t, s.Call(t, "search", `{"query":"ledger","mode":"dense"}`),
		func(m string) bool { return strings.Contains(m, "mode") }, "an unknown mode")
}

// TestAskTool offers ask when the brain declares a model, and answers like bf ask.
func TestAskTool(t *testing.T) {
	f := newFixture(t)
	f.addModel(t, "")
	f.appendConfig(t, "ask:\n  command: [tools/model.sh]\n")
	f.trust(t)
	s := f.start(t, "--brain", f.brain)
	s.Tools(t, "ask", "brief", "read", "recall", "remember", "search")
	// Its answer satisfies the ask-reply schema, which it publishes (libbf/mcpserver TestSchemas).
	published, err := schema.Get("ask-reply")
	if err != nil {
		t.Fatal(err)
	}
	replySchema, err := mcptest.CompileSchema("ask-reply", published)
	if err != nil {
		t.Fatal(err)
	}
	res := s.Call(t, "ask", `{"question":"when does dunning stop"}`)
	if res.IsError {
		t.Fatalf("error result: %s", mcptest.Text(t, res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		t.Fatal(err)
	}
	if err := replySchema.Validate(inst); err != nil {
		t.Errorf("the ask reply does not satisfy its outputSchema: %v\n%s", err, structured)
	}
	var got struct {
		Answer    string `json:"answer"`
		Citations []struct {
			Block, Ref string
		} `json:"citations"`
	}
	if err := json.Unmarshal([]byte(mcptest.Text(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Answer != "From the notes." || len(got.Citations) != 1 || got.Citations[0].Block != "b1" || got.Citations[0].Ref == "" {
		t.Errorf("reply %s", mcptest.Text(t, res))
	}
	mcptest.WantError(t, s.Call(t, "ask", `{"question":"  "}`),
		func(m string) bool { return m == "invalid input: question: expected a question" }, "an empty question")
}

// addModel writes the brain's tools/model.sh, a model for bf ask that answers citing the
// first block it is sent; with a log file, it appends "ask" to it on every run.
func (f *fixture) addModel(t *testing.T, log string) {
	t.Helper()
	model := "#!/usr/bin/env bash\n"
	if log != "" {
		model += "echo ask >> '" + log + "'\n"
	}
	model += "input=$(cat)\nre='<block id=\\\\\"(b[0-9]+)\\\\\"'\nid=none\n" +
		"if [[ $input =~ $re ]]; then id=${BASH_REMATCH[1]}; fi\n" +
		"printf '{\"answer\":\"From the notes.\",\"citations\":[\"%s\"]}\\n' \"$id\"\n"
	writeScript(t, filepath.Join(f.brain, "tools", "model.sh"), model)
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
