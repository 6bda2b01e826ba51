package queue

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}
