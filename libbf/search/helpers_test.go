package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests run in a fixed zone two hours east of UTC, on 2026-09-28 at noon.
var (
	zone = time.FixedZone("CEST", 2*3600)
	now  = time.Date(2026, 9, 28, 12, 0, 0, 0, zone)
)

const baseConfig = `version: 8
name: %s
fields:
` + brainfix.OwnerField + brainfix.KindField + `sensors:
  brief:
    command: [sensors/brief.sh]
    refresh: 3600
  news:
    command: [sensors/news.sh]
    priority: low
  old:
    command: [sensors/old.sh]
    enabled: false
`

// testBrain is a brain written by a test.
type testBrain = brainfix.Brain

// newBrain is a brain called name with the base configuration, holding files.
func newBrain(t *testing.T, name string, files map[string]string) *testBrain {
	t.Helper()
	return brainfix.New(t, brainfix.Spec{Name: name, Config: fmt.Sprintf(baseConfig, name), Notes: files})
}

// search runs a request over the brains in the test zone and time.
func search(t *testing.T, req Request, brains ...*testBrain) (*Reply, error) {
	t.Helper()
	for _, b := range brains {
		req.Brains = append(req.Brains, b.Open())
	}
	req.Now, req.Location = now, zone
	return Run(context.Background(), req)
}

// mustSearch is search that fails the test on an error.
func mustSearch(t *testing.T, req Request, brains ...*testBrain) *Reply {
	t.Helper()
	r, err := search(t, req, brains...)
	if err != nil {
		t.Fatalf("search %q (scope %q): %v", req.Query, req.Scope, err)
	}
	return r
}

func refs(items []reply.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Ref)
	}
	return out
}

// jsonOf is v as a command prints it.
func jsonOf(t *testing.T, v any) string { return brainfix.JSON(t, v) }

// openParts opens a test brain for the ranking functions; the parts close with the test.
func openParts(t *testing.T, b *testBrain) []*part {
	t.Helper()
	var probs reply.Problems
	var stale []string
	parts, err := open(context.Background(), []*brain.Brain{b.Open()}, zone, &probs, &stale)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeParts(parts) })
	return parts
}
