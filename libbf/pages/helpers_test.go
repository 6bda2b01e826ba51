package pages

import (
	"context"
	"fmt"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

// The tests run in Paris on 2026-09-28 at noon (10:00 UTC).
var (
	paris = mustZone("Europe/Paris")
	now   = time.Date(2026, 9, 28, 12, 0, 0, 0, paris)
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

const baseConfig = `version: 8
name: %s
fields:
  kind:
    description: What sort of item this is.
    type: string
  owner:
    description: Who answers for it.
    type: identity
    cardinality: many
    relation: true
sensors:
  mail:
    command: [sensors/mail.sh]
    refresh: 3600
  news:
    command: [sensors/news.sh]
    priority: low
  old:
    command: [sensors/old.sh]
    enabled: false
routines:
  digest:
    command: [routines/digest.sh]
    refresh: 86400
  manual:
    command: [routines/manual.sh]
`

// testBrain is a brain written by a test.
type testBrain = brainfix.Brain

// newBrain is a brain called name holding files; config "" is baseConfig, whose %s is the name.
func newBrain(t *testing.T, name, config string, files map[string]string) *testBrain {
	t.Helper()
	if config == "" {
		config = baseConfig
	}
	return brainfix.New(t, brainfix.Spec{Name: name, Config: fmt.Sprintf(config, name), Notes: files})
}

// read reads a page of brains at the test time and zone.
func read(t *testing.T, path string, offset int64, brains ...*testBrain) (any, error) {
	t.Helper()
	req := Request{Path: path, Offset: offset, Now: now, Location: paris}
	for _, b := range brains {
		req.Brains = append(req.Brains, b.Open())
	}
	return Read(context.Background(), req)
}

// readJSON reads a page and returns its printed JSON.
func readJSON(t *testing.T, path string, offset int64, brains ...*testBrain) string {
	t.Helper()
	v, err := read(t, path, offset, brains...)
	if err != nil {
		t.Fatalf("read %q: %v", path, err)
	}
	return jsonOf(t, v)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := reply.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkJSON compares printed JSON.
func checkJSON(t *testing.T, name, want, got string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
