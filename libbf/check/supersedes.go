package check

import (
	"maps"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
)

// supersedesCycles reports every note or record whose chain of supersedes edges comes
// back to it: no file of a cycle is current, and fused search cannot name its successor.
func (c *checker) supersedesCycles() {
	if _, ok := c.cfg.Relation(config.RelSupersedes); !ok {
		return
	}
	replaced := c.supersedesEdges()
	for _, file := range slices.Sorted(maps.Keys(replaced)) {
		if loop := cycleFrom(file, replaced); loop != nil {
			c.problem(file, "supersedes cycle: %s; a note cannot replace what replaces it: remove one of these supersedes links", strings.Join(loop, " → "))
		}
	}
}

// supersedesEdges maps each file to the files it states it supersedes, by typed link or
// relation field, resolved within this brain.
func (c *checker) supersedesEdges() map[string][]string {
	out := map[string][]string{}
	add := func(file string, targets []string) {
		for _, t := range targets {
			if to := c.fileOf(t); to != "" && to != file && !slices.Contains(out[file], to) {
				out[file] = append(out[file], to)
			}
		}
	}
	for p, n := range c.notes {
		add(p, identities(c.relationValue(n.Meta.Fields[config.RelSupersedes])))
		add(p, typedTargets(n.Links, func(l note.Link) string { return l.Target }))
	}
	for rr, r := range c.records {
		add(recordPath(rr), identities(c.relationValue(r.Fields[config.RelSupersedes])))
		add(recordPath(rr), typedTargets(r.Links, func(l string) string { return l }))
	}
	return out
}

// relationValue is a supersedes field value normalised, nil when it is missing or invalid.
func (c *checker) relationValue(v any) any {
	if v == nil {
		return nil
	}
	n, err := c.cfg.Fields[config.RelSupersedes].Normalize(v)
	if err != nil {
		return nil
	}
	return n
}

// typedTargets are the identities of the bf://…?rel=supersedes links among links.
func typedTargets[L any](links []L, dest func(L) string) []string {
	var out []string
	for _, l := range links {
		a, err := ref.ParseAddress(dest(l))
		if err == nil && a.Rel == config.RelSupersedes {
			out = append(out, a.Identity())
		}
	}
	return out
}

// fileOf resolves a supersedes target to the note or record file it names in this brain:
// by address, entity, record ref or the one file claiming the identity; "" for none.
func (c *checker) fileOf(target string) string {
	if ref.IsAddress(target) {
		a, err := ref.ParseAddress(target)
		if err != nil || a.Brain != c.name {
			return ""
		}
		if rr, ok := a.Record(); ok {
			target = rr.String()
		} else if c.notes[a.Path] != nil {
			return a.Path
		} else {
			return c.entities[a.Path]
		}
	}
	if rr, ok := ref.ParseRecordRef(target); ok && c.records[rr] != nil {
		return recordPath(rr)
	}
	if owners := c.owners[target]; len(owners) == 1 {
		return owners[0]
	}
	return ""
}

// cycleFrom is the path from file back to itself through edges, shortest first found;
// nil when file lies on no cycle.
func cycleFrom(file string, edges map[string][]string) []string {
	prev := map[string]string{}
	queue := []string{file}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, next := range edges[cur] {
			if next == file {
				loop := []string{file}
				for at := cur; at != file; at = prev[at] {
					loop = append(loop, at)
				}
				slices.Reverse(loop[1:])
				return append(loop, file)
			}
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil
}
