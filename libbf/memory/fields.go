package memory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/timestamp"
)

// noteField describes one field of a memory note once: how bf.yaml declares it (Fields)
// and how FromNote reads it into a Memory.
type noteField struct {
	name string
	// declare is the field's declaration in a brain named brainName.
	declare func(brainName string) *config.Field
	// read stores the note's value v (present false when the note lacks the field) in m,
	// or its default, and reports each problem with the key below fields.NAME it is at ("" for
	// the field itself).
	read func(m *Memory, n *note.Note, v any, present bool, bad func(sub, message string))
}

// noteFields are the memory fields in the order FromNote reports their problems.
var noteFields = []noteField{
	{
		name:    fieldImportance,
		declare: typed("Memory importance from 1 (minor) to 5 (critical); 3 by default.", config.TypeInteger),
		read: func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
			m.Importance = defaultImportance
			if !present {
				return
			}
			if i, isInt := asInt(v); !isInt || i < 1 || i > 5 {
				bad("", "expected an integer from 1 to 5")
			} else {
				m.Importance = i
			}
		},
	},
	{
		name:    fieldConfidence,
		declare: typed("How sure a memory is: confirmed, reported or uncertain.", config.TypeString),
		read: func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
			m.Confidence = defaultConfidence
			if !present {
				return
			}
			s, _ := v.(string)
			if c := normalizeConfidence(s); c == "" {
				bad("", "expected confirmed, reported or uncertain (or high, medium, low)")
			} else {
				m.Confidence = c
			}
		},
	},
	{
		name:    fieldTrust,
		declare: typed("Where a memory came from: stated, imported or external.", config.TypeString),
		read: func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
			m.Trust = DefaultTrust
			if !present {
				return
			}
			if s, _ := v.(string); !slices.Contains(trustValues, s) {
				bad("", "expected stated, imported or external")
			} else {
				m.Trust = s
			}
		},
	},
	{
		name:    fieldScope,
		declare: typed("Where a memory applies: global or a colon path such as channel:deploy.", config.TypeString),
		read: func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
			m.Scope = DefaultScope
			if !present {
				return
			}
			s, _ := v.(string)
			if err := checkScope(s); err != nil {
				bad("", err.Error())
			} else {
				m.Scope = s
			}
		},
	},
	{
		name:    fieldPinned,
		declare: typed("A pinned memory is in every brief and doubles when browsing.", config.TypeBoolean),
		read: func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
			if !present {
				return
			}
			b, isBool := v.(bool)
			if !isBool {
				bad("", "expected true or false")
			}
			m.Pinned = b
		},
	},
	{
		name:    fieldReview,
		declare: typed("Day (YYYY-MM-DD) a memory is due to be checked again.", config.TypeString),
		read: stringRule(func(s string) bool { return checkDay(s) }, "expected a YYYY-MM-DD day",
			func(m *Memory, s string) { m.Review = s }),
	},
	{
		name:    fieldCommit,
		declare: typed("Commit a memory about the code was true at.", config.TypeString),
		read: stringRule(func(s string) bool { return commitHex().MatchString(s) }, "expected a hexadecimal commit id",
			func(m *Memory, s string) { m.Commit = s }),
	},
	{
		name:    fieldProject,
		declare: typed("Root commit of the repository a memory's commit belongs to.", config.TypeString),
		read: stringRule(func(s string) bool { return commitHex().MatchString(s) }, "expected the hexadecimal root commit of the repository",
			func(m *Memory, s string) { m.Project = s }),
	},
	{
		name:    fieldSource,
		declare: typed("Where a confirmed memory was checked or who stated it.", config.TypeString),
		read:    nonblank(func(m *Memory, s string) { m.Source = s }),
	},
	{
		name:    fieldRef,
		declare: typed("A reference backing a memory: a URL, a file, a record.", config.TypeString),
		read:    nonblank(func(m *Memory, s string) { m.SourceRef = s }),
	},
	{
		name:    fieldSaved,
		declare: typed("When a memory was last saved; its age for fading.", config.TypeTimestamp),
		read: func(m *Memory, n *note.Note, v any, present bool, bad func(string, string)) {
			if present {
				s, _ := v.(string)
				if t, err := timestamp.Parse(s); err != nil {
					bad("", "expected an ISO 8601 timestamp with a timezone")
				} else {
					m.Saved = t
				}
			} else if n.Meta.Updated != "" {
				m.Saved, _ = parseDay(n.Meta.Updated)
			}
			if m.Saved.IsZero() {
				bad("", "a memory needs fields.saved (or updated) to know its age")
			}
		},
	},
	{
		name:    fieldSupersedes,
		declare: memoryLinks("Memories this one corrects; they stay as history."),
		read:    links(func(m *Memory, r string) { m.Supersedes = append(m.Supersedes, r) }),
	},
	{
		name:    fieldDistinct,
		declare: memoryLinks("Memories with overlapping titles this one was saved beside on purpose; bf review does not report them as duplicates."),
		read:    links(func(m *Memory, r string) { m.DistinctFrom = append(m.DistinctFrom, r) }),
	},
}

// typed declares a single value of type t.
func typed(description string, t config.FieldType) func(string) *config.Field {
	return func(string) *config.Field { return &config.Field{Description: description, Type: t} }
}

// memoryLinks declares a relation to other memory notes of the brain.
func memoryLinks(description string) func(string) *config.Field {
	return func(brainName string) *config.Field {
		return &config.Field{Description: description, Type: config.TypeIdentity, Cardinality: config.Many, Relation: true,
			Targets: []string{"bf://" + brainName + "/" + Folder + "/"}}
	}
}

// stringRule reads a string that valid accepts, reporting message otherwise.
func stringRule(valid func(string) bool, message string, store func(*Memory, string)) func(*Memory, *note.Note, any, bool, func(string, string)) {
	return func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
		if !present {
			return
		}
		if s, _ := v.(string); !valid(s) {
			bad("", message)
		} else {
			store(m, s)
		}
	}
}

// nonblank reads a string with some text in it.
func nonblank(store func(*Memory, string)) func(*Memory, *note.Note, any, bool, func(string, string)) {
	return func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
		if !present {
			return
		}
		if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
			bad("", "expected a nonblank string")
		} else {
			store(m, s)
		}
	}
}

// links reads one bf:// address of a memory note, or a list of them.
func links(store func(*Memory, string)) func(*Memory, *note.Note, any, bool, func(string, string)) {
	return func(m *Memory, _ *note.Note, v any, present bool, bad func(string, string)) {
		if !present {
			return
		}
		list, isList := v.([]any)
		if !isList {
			list = []any{v}
		}
		for i, item := range list {
			s, _ := item.(string)
			if r, ok := addressRef(s); ok {
				store(m, r)
			} else {
				bad(fmt.Sprintf(".%d", i), fmt.Sprintf("expected the bf:// address of a memory note under %s/", Folder))
			}
		}
	}
}
