package channel

import (
	"cmp"
	"errors"
	"slices"
	"time"
)

// maxBatch is the most messages one read may return.
const maxBatch = 1000

// errTooMany is a read whose window holds more than maxBatch messages. A manual read
// fails with it; a read input catches up in smaller parts (Poll).
var errTooMany = errors.New("more than 1000 messages")

const (
	reasonArray      = "expected a JSON array"
	reasonBatchKey   = "unknown key; a batch holds only messages, and every page must be read before printing it"
	reasonOutside    = "outside the requested window"
	reasonDuplicated = "duplicate ID; each message appears once in a batch"
)

// parseBatch reads a read command's output: one strict JSON object {"messages": [...]}
// whose messages are valid envelopes with distinct IDs, all within [start, end). Any other
// key (a next-page token, an "incomplete" flag) fails the whole batch, since a partial
// batch must never pass for a complete one. More than maxBatch messages return errTooMany
// as soon as the 1,001st is reached. Other failures are *fieldError. Messages come back
// oldest first, ties by ID.
func parseBatch(data []byte, start, end time.Time) ([]Message, error) {
	d, err := newDecoder(data)
	if err != nil {
		return nil, err
	}
	if d.peek() != '{' {
		return nil, &fieldError{Reason: "expected a JSON object holding messages"}
	}
	var msgs []Message
	found := false
	err = d.object("", func(key string) error {
		if key != "messages" {
			return &fieldError{Field: FieldName(key), Reason: reasonBatchKey}
		}
		found = true
		if d.peek() != '[' {
			return &fieldError{Field: "messages", Reason: reasonArray}
		}
		ids := map[string]bool{}
		return d.array("messages", func(n int) error {
			if n >= maxBatch {
				return errTooMany
			}
			field := index("messages", n)
			m, err := d.message(field)
			if err != nil {
				return err
			}
			if m.Time.Before(start) || !m.Time.Before(end) {
				return &fieldError{Field: field + ".time", Reason: reasonOutside}
			}
			if ids[m.ID] {
				return &fieldError{Field: field + ".id", Reason: reasonDuplicated}
			}
			ids[m.ID] = true
			msgs = append(msgs, m)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &fieldError{Field: "messages", Reason: reasonRequired}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	sortMessages(msgs)
	return msgs, nil
}

func sortMessages(msgs []Message) {
	slices.SortStableFunc(msgs, func(a, b Message) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID, b.ID))
	})
}
