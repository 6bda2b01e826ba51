package messaging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/timestamp"
)

// inputErrorsFile holds, in a brain's state folder, each channel's current read or stream
// error, so bf status shows it until a read or stream of that channel succeeds again.
const inputErrorsFile = "channels.json"

// InputError is a channel's current transport error.
type InputError struct {
	Error string `json:"error"`
	Since string `json:"since"`
}

var inputErrorsMu sync.Mutex

// SaveInputError records err as channel ch's current read or stream error, or clears it
// when err is nil. A failure to save is ignored: the error was reported already.
func SaveInputError(state, ch string, err error, now time.Time) {
	inputErrorsMu.Lock()
	defer inputErrorsMu.Unlock()
	errs := LoadInputErrors(state)
	if err == nil {
		if _, ok := errs[ch]; !ok {
			return
		}
		delete(errs, ch)
	} else {
		if old, ok := errs[ch]; ok && old.Error == err.Error() {
			return
		}
		errs[ch] = InputError{Error: err.Error(), Since: timestamp.Canonical(now)}
	}
	data, _ := json.Marshal(errs)
	durable.WriteFile(filepath.Join(state, inputErrorsFile), append(data, '\n'), 0o600)
}

// LoadInputErrors reads the current errors of a brain's channels; none when unreadable.
func LoadInputErrors(state string) map[string]InputError {
	out := map[string]InputError{}
	data, err := os.ReadFile(filepath.Join(state, inputErrorsFile))
	if err != nil || len(data) > 1<<20 {
		return out
	}
	if json.Unmarshal(data, &out) != nil {
		return map[string]InputError{}
	}
	return out
}
