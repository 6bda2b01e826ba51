// Package provenance decides who stated a note or a record — a person, an agent, or
// collection — and so whether what it says may be trusted and its edges walked. It is the
// one place that reads and writes the marks; no other code infers provenance.
//
// A note is a person's unless its front matter says `review: unreviewed`: bf's own agent
// write paths (MCP remember, bf remember without --reviewed) write that mark, and a person
// clears it with bf review --accept. A record is collection's only when collection wrote
// its exact bytes: every record transaction appends the names and SHA-256 digests of the
// files it wrote to a ledger inside the source folder (see Ledger), which travels with the
// brain, so records collected on another machine count as collected here. A record file
// that no ledger names with its current digest — written by hand, by an agent, or changed
// since — is unconfirmed.
//
// Whatever is unreviewed or unconfirmed stays out of fused search, bf ask and MCP
// resources at the default trust floor, and no edge it states or identity it claims is
// ever walked, at any floor. A malformed mark counts as the lower trust, never the higher.
package provenance

import (
	"fmt"
	"strings"
)

// Key is the front matter key holding a note's review state.
const Key = "review"

// Review states a note's front matter declares under Key.
const (
	// Unreviewed marks what an agent wrote that no person reviewed yet.
	Unreviewed = "unreviewed"
	// reviewed marks agent-written content a person reviewed: trusted like a person's.
	reviewed = "reviewed"
)

// By is who stated an item.
type By string

// Who can state an item.
const (
	person     By = "person"
	agent      By = "agent"
	collection By = "collection"
)

// Stated is an item's provenance: who stated it and whether it may be trusted.
type Stated struct {
	By By
	// Trusted is false for an agent's unreviewed note and for a record collection did not
	// write: such an item is left out at the default trust floor and never walked.
	Trusted bool
}

// OfNote is the provenance of a note from the review key of its front matter (the
// front matter's keys beyond the format's own; nil for none). A value other than the two
// states, or of another type, counts as unreviewed.
func OfNote(extra map[string]any) Stated {
	v, ok := extra[Key]
	if !ok {
		return Stated{By: person, Trusted: true}
	}
	if s, isStr := v.(string); isStr && s == reviewed {
		return Stated{By: agent, Trusted: true}
	}
	return Stated{By: agent}
}

// CheckNote reports a malformed review mark: what validate says of the field, "" when the
// note declares none or one of the two states.
func CheckNote(extra map[string]any) string {
	v, ok := extra[Key]
	if !ok {
		return ""
	}
	if s, isStr := v.(string); isStr && (s == reviewed || s == Unreviewed) {
		return ""
	}
	return fmt.Sprintf("expected %s or %s; the note counts as unreviewed until the mark is fixed (bf review --accept REF)", Unreviewed, reviewed)
}

// State is how the cache stores an item's review state: Unreviewed for an untrusted
// item, "" for a trusted one.
func (s Stated) State() string {
	if s.Trusted {
		return ""
	}
	return Unreviewed
}

// Mark sets or clears a note's review mark in the front matter text of a note file
// (between its --- lines), changing nothing else: accepting or rejecting changes only the
// marker. It returns the new file text; data without front matter fails.
func Mark(data []byte, unreviewed bool) ([]byte, error) {
	text := string(data)
	nl := "\n"
	if strings.HasPrefix(text, "---\r\n") {
		nl = "\r\n"
	} else if !strings.HasPrefix(text, "---\n") {
		return nil, fmt.Errorf("no front matter: the file does not start with a --- line")
	}
	start := len("---" + nl)
	end := -1
	for i := start; i <= len(text); {
		j := strings.Index(text[i:], "\n")
		line := text[i:]
		if j >= 0 {
			line = text[i : i+j+1]
		}
		if strings.TrimRight(line, "\r\n") == "---" {
			end = i
			break
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	if end < 0 {
		return nil, fmt.Errorf("front matter is not closed by a --- line")
	}
	var kept []string
	head := text[start:end]
	inMark := false
	for head != "" {
		line := head
		if j := strings.Index(head, "\n"); j >= 0 {
			line, head = head[:j+1], head[j+1:]
		} else {
			head = ""
		}
		// A malformed mark may hold a block value: its indented or listed lines go with it.
		if inMark && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "-")) {
			continue
		}
		inMark = isMarkLine(line)
		if inMark {
			continue
		}
		kept = append(kept, line)
	}
	if unreviewed {
		kept = append(kept, Key+": "+Unreviewed+nl)
	}
	return []byte(text[:start] + strings.Join(kept, "") + text[end:]), nil
}

// isMarkLine reports a top-level front matter line setting Key.
func isMarkLine(line string) bool {
	k, _, ok := strings.Cut(line, ":")
	return ok && (k == Key || k == `"`+Key+`"` || k == `'`+Key+`'`)
}
