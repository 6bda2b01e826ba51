package cache

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenReportsProgress: the build a first open does, and a later refresh, report every
// file they index to the context's progress, from 0 to the total.
func TestOpenReportsProgress(t *testing.T) {
	f := smallBrain(t)
	var calls []string
	ctx := WithProgress(context.Background(), func(done, total int) {
		calls = append(calls, fmt.Sprintf("%d/%d", done, total))
	})
	c, err := Open(ctx, f.brain())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if diff := cmp.Diff([]string{"0/6", "1/6", "2/6", "3/6", "4/6", "5/6", "6/6"}, calls); diff != "" {
		t.Errorf("first open (-want +got):\n%s", diff)
	}

	calls = nil
	f.write("concepts/site.md", "# Site renamed\n")
	f.touchPast("concepts/site.md")
	c, err = Open(ctx, f.brain())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if diff := cmp.Diff([]string{"0/1", "1/1"}, calls); diff != "" {
		t.Errorf("refresh (-want +got):\n%s", diff)
	}

	calls = nil
	c, err = Open(context.Background(), f.brain())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if calls != nil {
		t.Errorf("progress without WithProgress: %v", calls)
	}
}
