package fuse

import (
	"context"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// The tests run in a fixed zone, on 2026-10-20 at noon.
var (
	zone = time.FixedZone("CEST", 2*3600)
	now  = time.Date(2026, 10, 20, 12, 0, 0, 0, zone)
)

// fixture is a brain exercising every strategy and exclusion rule.
var fixture = map[string]string{
	"bf.yaml": `version: 8
name: acme
fields:
  supersedes:
    description: The note this one replaces.
    type: identity
    cardinality: many
    relation: true
  depends-on:
    description: What the subject needs.
    type: identity
    cardinality: many
    relation: true
`,
	"projects/ledger.md":  "---\ntype: project\nupdated: 2026-10-18\n---\n# Ledger migration\n\nMove invoices to the ledger. The [cutover](../concepts/cutover.md) runs in one night.\n",
	"concepts/cutover.md": "---\ntype: concept\nupdated: 2026-09-01\n---\n# Cutover runbook\n\nFreeze writes, copy balances, compare totals.\n",
	"concepts/private.md": "---\ntype: concept\nupdated: 2026-09-01\n---\n# Salary bands\n\nConfidential compensation table.\n",
	"projects/agent-draft.md": "---\ntype: project\nreview: unreviewed\nupdated: 2026-10-19\n---\n# Ledger notes from an agent\n\nThe ledger is described in [bands](../concepts/private.md) too.\n\n" +
		"[Newer ledger](bf://acme/projects/ledger.md?rel=supersedes)\n",
	"projects/old-plan.md":   "---\ntype: project\nupdated: 2026-06-01\n---\n# Ledger rollout plan\n\nRoll the ledger out region by region.\n",
	"projects/new-plan.md":   "---\ntype: project\nupdated: 2026-08-01\n---\n# Rollout plan, second version\n\nPer customer instead. [Replaces](bf://acme/projects/old-plan.md?rel=supersedes)\n",
	"projects/third-plan.md": "---\ntype: project\nupdated: 2026-10-01\n---\n# Rollout plan, third version\n\nPer cohort. [Replaces](bf://acme/projects/new-plan.md?rel=supersedes)\n",
	"projects/archive.md":    "---\ntype: project\nstatus: deprecated\nupdated: 2026-10-10\n---\n# Ledger archive\n\nThe old ledger export.\n",
}

// newBrain is a brain holding files, bf.yaml among them.
func newBrain(t *testing.T, files map[string]string) *brain.Brain {
	t.Helper()
	return brainfix.New(t, brainfix.Spec{Config: files["bf.yaml"], Notes: files}).Open()
}

// fusedSearch runs a fused request over b in the test zone and time.
func fusedSearch(t *testing.T, b *brain.Brain, req Request) *search.Reply {
	t.Helper()
	req.Search.Brains = []*brain.Brain{b}
	req.Search.Now, req.Search.Location = now, zone
	out, err := Run(context.Background(), req)
	if err != nil {
		t.Fatalf("fused search %q: %v", req.Search.Query, err)
	}
	return out
}

func refs(items []reply.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Ref)
	}
	return out
}
