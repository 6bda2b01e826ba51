package graph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/reply"
)

// The tests present times two hours east of UTC.
var zone = time.FixedZone("CEST", 2*3600)

const baseConfig = `version: 8
name: %s
fields:
` + brainfix.DependsOnField + brainfix.RelatedToField + brainfix.PhaseField + `  labels:
    description: Free labels.
    type: string
    cardinality: many
sensors:
  brief:
    command: [sensors/brief.sh]
    refresh: 3600
`

// newBrain is a brain called name holding files; config "" is baseConfig.
func newBrain(t *testing.T, name, config string, files map[string]string) *brainfix.Brain {
	t.Helper()
	if config == "" {
		config = fmt.Sprintf(baseConfig, name)
	}
	return brainfix.New(t, brainfix.Spec{Name: name, Config: config, Notes: files})
}

// open opens the brains' caches as one set.
func open(t *testing.T, brains ...*brainfix.Brain) (*Opened, *reply.Problems) {
	t.Helper()
	var bs []*brain.Brain
	for _, b := range brains {
		bs = append(bs, b.Open())
	}
	probs := &reply.Problems{}
	o, err := Open(context.Background(), bs, probs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	o.Location = zone
	o.Local = len(brains) == 1
	return o, probs
}

// jsonOf is v as a command prints it.
func jsonOf(t *testing.T, v any) string { return brainfix.JSON(t, v) }

// atlasBrain links to projects/atlas.md in every way.
func atlasBrain(t *testing.T) *brainfix.Brain {
	b := newBrain(t, "work", "", map[string]string{
		"projects/atlas.md": "---\nupdated: 2026-09-20\nentity: bf://work/things/atlas\n" +
			"aliases: [repo:github.com/team/atlas]\ntags: [website]\nfields:\n  phase: build\n  labels: [a, b]\n---\n" +
			"# Atlas\n\nAtlas uses SQLite, see [the stack](bf://work/concepts/stack.md?rel=depends-on).\n\n" +
			"## Budget\n\nThe budget is 4200 credits, [below](#budget).\n",
		"concepts/stack.md": "---\nupdated: 2026-09-25\ntitle: Stack\nsources:\n  - resource: ../projects/atlas.md\n---\n" +
			"The stack serves [Atlas](../projects/atlas.md#budget).\n",
		"concepts/deep.md": "---\nupdated: 2026-09-26\ntitle: Deep\nfields:\n  phase: study\n---\n" +
			"Deep work relates to [Atlas](bf://work/things/atlas?rel=related-to).\n",
		"concepts/plain.md": "---\nupdated: 2026-09-10\ntitle: Plain\n---\nSee [the repo](repo:github.com/team/atlas) and [again](../projects/atlas.md).\n",
	})
	b.Record("brief", "r1", `"title":"Needs Atlas","text":"A brief that depends on Atlas.","time":"2026-09-27T08:00:00Z",`+
		`"fields":{"depends-on":["repo:github.com/team/atlas"]}`)
	b.Record("brief", "r2", `"title":"Mentions Atlas","text":"Untyped mention.","time":"2026-09-11T08:00:00Z",`+
		`"links":["bf://work/projects/atlas.md"]`)
	return b
}
