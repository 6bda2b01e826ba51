package check

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/bfgo/bf/libbf/config"
)

// programs checks that every program file an enabled sensor, routine, assistant or channel
// runs from the brain is an executable regular file, and that every enabled assistant's
// prompt is a file: without it no job can be admitted.
func (c *checker) programs() {
	type program struct {
		where   string
		command config.Command
	}
	var list []program
	for _, name := range slices.Sorted(maps.Keys(c.cfg.Sensors)) {
		if s := c.cfg.Sensors[name]; s.Enabled {
			list = append(list, program{"sensors." + name + ".command", s.Command})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.cfg.Routines)) {
		if r := c.cfg.Routines[name]; r.Enabled {
			list = append(list, program{"routines." + name + ".command", r.Command})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.cfg.Assistants)) {
		if a := c.cfg.Assistants[name]; a.Enabled {
			list = append(list, program{"assistants." + name + ".command", a.Command})
			list = append(list, program{"assistants." + name + ".gate", a.Gate})
			c.prompt(name, a)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.cfg.Channels)) {
		ch := c.cfg.Channels[name]
		for _, op := range []struct {
			name string
			cap  *config.Capability
		}{{"send", ch.Send}, {"read", ch.Read}, {"stream", ch.Stream}} {
			if op.cap != nil {
				list = append(list, program{"channels." + name + "." + op.name + ".command", op.cap.Command})
			}
		}
	}
	checked := map[string]bool{}
	for _, p := range list {
		for _, file := range p.command.Paths() {
			if checked[p.where+file] {
				continue
			}
			checked[p.where+file] = true
			st, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(file)))
			switch {
			case err != nil || !st.Mode().IsRegular():
				c.problem("bf.yaml", "%s: %s is not a file in the brain; add it or fix the command", p.where, file)
			case st.Mode()&0o111 == 0:
				c.problem("bf.yaml", "%s: %s is not executable; run chmod +x %s", p.where, file, file)
			}
		}
	}
}

// prompt reports an enabled assistant whose prompt file is missing or unreadable: its
// channel inputs would admit no message, and its schedules and runs could not start.
func (c *checker) prompt(name string, a *config.Assistant) {
	where := "assistants." + name + ".prompt"
	f, err := os.Open(filepath.Join(c.root, filepath.FromSlash(a.Prompt)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.problem("bf.yaml", "%s: %s is not a file in the brain; create it or name another file with prompt:", where, a.Prompt)
		} else {
			c.problem("bf.yaml", "%s: %s cannot be read; check its permissions", where, a.Prompt)
		}
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		c.problem("bf.yaml", "%s: %s is not a file in the brain; create it or name another file with prompt:", where, a.Prompt)
	}
}
