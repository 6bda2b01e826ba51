package messaging

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/queue"
)

// RunsDir is the folder of a brain's state folder that holds the private context files of
// running jobs ({{context}} of a harness).
const RunsDir = "runs"

// ContextFile is the path of job id's private context file in state folder state. Its
// name hides the job ID, which may hold anything a file name cannot.
func ContextFile(state, id string) string {
	h := sha256.Sum256([]byte(id))
	return filepath.Join(state, RunsDir, "ctx-"+hex.EncodeToString(h[:8])+".json")
}

// sweepContexts removes the context files no running job of q owns: those a bf killed
// while its harness ran left behind, once recovery recorded the attempt. A file written
// after the sweep began is kept, as it may belong to a job starting meanwhile.
func sweepContexts(q *queue.Queue, state string) error {
	began := time.Now()
	entries, err := os.ReadDir(filepath.Join(state, RunsDir))
	if err != nil {
		return nil // no runs/ folder: nothing ever ran here
	}
	items, err := q.List()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, it := range items {
		if it.Type == "job" && it.State == queue.Running {
			keep[ContextFile(state, it.ID)] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "ctx-") || !strings.HasSuffix(name, ".json") {
			continue
		}
		file := filepath.Join(state, RunsDir, name)
		info, err := e.Info()
		if err != nil || keep[file] || !info.ModTime().Before(began) {
			continue
		}
		os.Remove(file)
	}
	return nil
}
