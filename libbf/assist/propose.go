package assist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/timestamp"
)

// proposalPath is the brain-relative ACTION.md a proposing assistant's run at started
// writes: the action folder of the run's local day and the assistant's name.
func proposalPath(name string, started time.Time) string {
	return collect.ActionPath(timestamp.Day(started.In(time.Local)), name)
}

// checkProposal validates say as the ACTION.md draft rel: a valid action note whose status
// is draft, at a path no other action holds. It reports whether rel already holds exactly
// say (a run repeated after an interruption), which then needs no write.
func checkProposal(root, rel, say string) (bool, error) {
	n, err := collect.CheckAction(rel, []byte(say))
	if err != nil {
		return false, err
	}
	if n.Meta.Status != "draft" {
		return false, errors.New("printed a proposal without status: draft in its front matter; a proposal is a draft ACTION.md until you accept it; nothing was written")
	}
	old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case err == nil && bytes.Equal(old, []byte(say)):
		return true, nil
	case err == nil || !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("proposed %s, which already exists; a proposal never replaces an action: accept or move the existing one; nothing was written", rel)
	}
	if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(filepath.Dir(rel)))); err == nil {
		return false, fmt.Errorf("proposed %s, whose folder already exists; a proposal never replaces an action: accept or move the existing one; nothing was written", rel)
	}
	return false, nil
}

// propose writes say as the draft ACTION.md rel, unless it is already there.
func propose(root, rel, say string) error {
	done, err := checkProposal(root, rel, say)
	if err != nil || done {
		return err
	}
	written, err := collect.WriteAction(root, rel, []byte(say))
	if err != nil {
		return err
	}
	if !written {
		return fmt.Errorf("proposed %s, whose folder appeared meanwhile; nothing was written", rel)
	}
	return nil
}
