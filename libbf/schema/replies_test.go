package schema_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/internal/brainfix"
	"github.com/bfgo/bf/libbf/memory"
)

// TestRememberRepliesValidate saves memories through bf remember's function and validates
// each reply, keys sorted, against remember-reply.
func TestRememberRepliesValidate(t *testing.T) {
	b := brainfix.New(t, brainfix.Spec{Name: "test"})
	t.Setenv("HOME", b.Env.Home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(b.Env.Home, "state"))
	t.Setenv("BF_NOW", "2026-01-01T00:00:00Z")
	s := &memory.Store{Brain: b.Open()}
	check := newReplyCheck(t, "remember-reply")
	save := func(req memory.RememberRequest) *memory.RememberReply {
		t.Helper()
		r, err := s.Remember(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := memory.RememberRequest{Type: "infra", Title: "Staging box is stage-3", Body: "stage-3 runs staging.", Importance: 4}
	check.check("created", save(first), `"action":"created"`, `"review":`, `"said":[`, `"tier":"B"`)
	first.Body, first.Update = "stage-4 runs staging.", true
	check.check("updated", save(first), `"action":"updated"`, `"history":`)
}
