//go:build !unix

package queue

import (
	"os"
	"testing"
)

// Crash tests kill their children with SIGKILL, which only Unix systems have.
const (
	crashDirEnv = "BF_QUEUE_TEST_CRASH_DIR"
	crashAtEnv  = "BF_QUEUE_TEST_CRASH_AT"
)

func crashChild(dir string) { os.Exit(2) }

func leaveHotJournal(t *testing.T, dir string) { t.Skip("crash children need SIGKILL") }
