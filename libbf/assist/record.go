package assist

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/store"
	"github.com/bfgo/bf/libbf/timestamp"
)

// runRecord is the record of one completed run in memories/NAME/: the answer as text, and
// the request and harness facts as attributes. Its ID is the job's, so a run repeated
// after an interruption replaces its record rather than adding one.
func runRecord(name, job string, in Input, argv0 string, started time.Time, elapsed time.Duration, say string) record.Record {
	attrs := map[string]any{"kind": in.Kind, "job": job, "harness": argv0, "elapsed_seconds": elapsed.Round(time.Millisecond).Seconds()}
	if in.Schedule != "" {
		attrs["schedule"] = in.Schedule
	}
	if in.Slot != "" {
		attrs["slot"] = in.Slot
	}
	if in.Channel != "" {
		attrs["channel"] = in.Channel
		attrs["conversation"] = firstConversation(in)
	}
	var request []string
	for _, m := range in.Messages {
		request = append(request, m.Sender+": "+m.Text)
	}
	if in.Stdin != "" {
		request = append(request, in.Stdin)
	}
	if len(request) > 0 {
		attrs["input"] = strings.Join(request, "\n")
	}
	title := fmt.Sprintf("%s: %s run at %s", name, in.Kind, timestamp.Canonical(started))
	return record.Record{ID: job, Title: title, Text: say, Time: timestamp.Canonical(started), Attributes: attrs}
}

// storeRun commits r to memories/NAME/, then, with keep, removes the oldest run records
// beyond the newest keep (by time) in a second commit. It never touches other files.
func storeRun(ctx context.Context, root, name string, r record.Record, keep int) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("assistant %s: its run record is invalid: %w", name, err)
	}
	if _, err := store.Commit(ctx, root, name, []record.Record{r}, store.Options{Wait: 120 * time.Second}); err != nil {
		return fmt.Errorf("assistant %s: cannot store its run in memories/%s: %w", name, name, err)
	}
	if keep <= 0 {
		return nil
	}
	dir := filepath.Join(root, "memories", name)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return nil
	}
	var all []record.Record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("assistant %s: cannot read memories/%s to apply keep: %w", name, name, err)
		}
		rec, err := record.Parse(data)
		if err != nil {
			return fmt.Errorf("assistant %s: memories/%s/%s is not a record; keep removes only run records: %w", name, name, e.Name(), err)
		}
		all = append(all, rec)
	}
	if len(all) <= keep {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Time != all[j].Time {
			return all[i].Time > all[j].Time
		}
		return all[i].ID > all[j].ID
	})
	_, err = store.Commit(ctx, root, name, all[:keep], store.Options{Mode: config.ModeSnapshot, AllowRemoval: true, Wait: 120 * time.Second})
	if err != nil {
		return fmt.Errorf("assistant %s: cannot remove its oldest runs (keep: %d): %w", name, keep, err)
	}
	return nil
}
