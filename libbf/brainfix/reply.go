package brainfix

import (
	"testing"

	"github.com/bfgo/bf/libbf/reply"
)

// JSON is v as a command prints it (reply.Marshal), for comparing a reply with its
// expected text.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := reply.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Field declarations that tests compose a bf.yaml from, each an entry of its fields:
// section, indented as there.
const (
	OwnerField = `  owner:
    description: Person or team responsible for the subject.
    type: identity
    cardinality: many
    relation: true
`
	KindField = `  kind:
    description: What sort of item this is.
    type: string
`
	DependsOnField = `  depends-on:
    description: What the subject needs.
    type: identity
    cardinality: many
    relation: true
    broader: related-to
`
	RelatedToField = `  related-to:
    description: Anything related.
    type: identity
    cardinality: many
    relation: true
`
	PhaseField = `  phase:
    description: Project phase.
    type: string
`
)
