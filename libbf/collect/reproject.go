package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/store"
)

// maxReprojectFailures bounds the failures a reprojection lists.
const maxReprojectFailures = 200

// ReprojectReply is what bf build --reproject SENSOR prints.
type ReprojectReply struct {
	Changed int  `json:"changed"`
	DryRun  bool `json:"dry_run,omitempty"`
	Failed  int  `json:"failed"`
	// Failures are the first maxReprojectFailures records that failed, in file order.
	Failures  []ReprojectFailure `json:"failures,omitempty"`
	Records   int                `json:"records"`
	Sensor    string             `json:"sensor"`
	Unchanged int                `json:"unchanged"`
}

// ReprojectFailure is one stored record the current declarations refuse.
type ReprojectFailure struct {
	Error string `json:"error"`
	File  string `json:"file"`
	ID    string `json:"id,omitempty"`
}

// Reproject applies the sensor's current field mappings and the declared fields' default
// pointers to the records it stored, as if they had just been collected, so a changed
// mapping or declaration reaches old records without running the sensor. Fields no longer
// declared are dropped first (they came from earlier declarations); every value is then
// checked again. Records whose fields change are written in one transaction and the search
// cache refreshed, unless dryRun or any record fails: then nothing is written, and the
// reply lists the failures.
func Reproject(ctx context.Context, b *brain.Brain, sensor string, dryRun bool) (*ReprojectReply, error) {
	s := b.Config.Sensors[sensor]
	if s == nil {
		return nil, &reply.InputError{Argument: "reproject",
			Err: fmt.Errorf("no sensor of this brain is called %s; its bf.yaml declares %s", sensor, names(b.Config.Sensors))}
	}
	stored, err := store.Read(ctx, b.Root, sensor)
	if err != nil {
		return nil, err
	}
	out := &ReprojectReply{Sensor: sensor, DryRun: dryRun, Records: len(stored)}
	var changed []record.Record
	for _, st := range stored {
		fail := func(err error) {
			out.Failed++
			if len(out.Failures) < maxReprojectFailures {
				out.Failures = append(out.Failures, ReprojectFailure{File: st.File, ID: st.Record.ID, Error: err.Error()})
			}
		}
		if st.Err != nil {
			fail(st.Err)
			continue
		}
		r := st.Record
		before := r.Fields
		r.Fields = map[string]any{}
		for name, v := range before {
			if b.Config.Fields[name] != nil {
				r.Fields[name] = v
			}
		}
		if err := mapFields(b.Config, s, &r, st.Data); err != nil {
			fail(err)
			continue
		}
		if err := r.Validate(); err != nil {
			fail(err)
			continue
		}
		if sameFields(before, r.Fields) {
			out.Unchanged++
			continue
		}
		out.Changed++
		changed = append(changed, r)
	}
	if dryRun || out.Failed > 0 || len(changed) == 0 {
		return out, nil
	}
	if _, err := store.Commit(ctx, b.Root, sensor, changed, store.Options{Wait: store.DefaultWait}); err != nil {
		return nil, err
	}
	if _, err := refresh(ctx, b); err != nil {
		return out, fmt.Errorf("the reprojected records of %s were stored but the search cache could not be refreshed; the next search or bf build refreshes it: %w", sensor, err)
	}
	return out, nil
}

// sameFields compares fields as they are stored: as JSON, no fields and empty fields alike.
func sameFields(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
