package note

import (
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/timestamp"
)

// Messages of the OKF checks; their wording is part of the contract.
// OKF calls every knowledge document a concept, so projects and actions get the same
// type message.
const (
	msgType     = "OKF concepts require a nonempty type in YAML frontmatter"
	msgStatus   = "OKF status must be draft, stable or deprecated"
	msgIndex    = "OKF index frontmatter permits only the bundle-root okf_version"
	msgLogKeys  = "keep OKF update logs as dated Markdown, without concept metadata"
	msgLogDates = "OKF log dates must use YYYY-MM-DD"
)

// Check returns the problems bf validate reports for this note beyond Problems: the OKF
// rules of its kind and the warnings that matter for it. None of them keeps the note out
// of search. Ordinary Markdown follows no OKF rule, so it gets none.
func (n *Note) Check() []Problem {
	if n.Kind == Markdown {
		return nil
	}
	out := slices.Clone(n.Warnings)
	switch n.Kind {
	case OKF:
		if strings.TrimFunc(n.Meta.Type, isSpace) == "" {
			out = append(out, Problem{Field: "type", Message: msgType})
		}
		if n.Meta.Has("status") {
			switch n.Meta.Status {
			case "draft", "stable", "deprecated":
			default:
				out = append(out, Problem{Field: "status", Message: msgStatus})
			}
		}
	case index:
		allowed := []string(nil)
		if strings.Count(n.Path, "/") == 1 {
			allowed = []string{"okf_version"}
		}
		for _, k := range n.Meta.Keys {
			if !slices.Contains(allowed, k) {
				out = append(out, Problem{Field: k, Message: msgIndex})
				break
			}
		}
	case log:
		if len(n.Meta.Keys) > 0 {
			out = append(out, Problem{Message: msgLogKeys})
		}
		for _, s := range n.Sections {
			if s.Level != 2 {
				continue
			}
			if _, err := timestamp.ParseDay(s.Title, time.UTC); err != nil {
				out = append(out, Problem{Line: s.Line, Message: msgLogDates})
			}
		}
	}
	return out
}
