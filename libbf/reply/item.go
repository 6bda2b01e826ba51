package reply

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/ref"
)

// Item kinds.
const (
	KindNote   = "note"
	KindRecord = "record"
)

// Item is one note, section or record in a search result, listing, relation page or home
// section. Instants (time, updated, observed, modified) are held in the canonical UTC form
// until Present shows them in local time.
type Item struct {
	// Also names other sources' records sharing this record's URL (at most 5, by ref).
	Also  []string `json:"also,omitempty"`
	Brain string   `json:"brain,omitempty"`
	// Date is a note's updated day, YYYY-MM-DD.
	Date    string `json:"date,omitempty"`
	Excerpt string `json:"excerpt,omitempty"`
	// Explain says why a search hit ranks where it does (fused search, --explain).
	Explain *Explanation `json:"explain,omitempty"`
	// Fields are declared single-value fields, by name, as stored.
	Fields   map[string]json.RawMessage `json:"fields,omitempty"`
	Kind     string                     `json:"kind"`
	Modified string                     `json:"modified,omitempty"`
	NewLinks int                        `json:"new_links,omitempty"`
	Newer    []string                   `json:"newer,omitempty"`
	// Next is a note's first open task (listings).
	Next     string `json:"next,omitempty"`
	Observed string `json:"observed,omitempty"`
	Partial  bool   `json:"partial,omitempty"`
	Ref      string `json:"ref"`
	// Relation is the item's own relation on a relation page, when it is a narrower one.
	Relation string `json:"relation,omitempty"`
	// Relations are the claims explaining an identity-search result.
	Relations          []Claim  `json:"relations,omitempty"`
	RelationsTruncated bool     `json:"relations_truncated,omitempty"`
	Review             bool     `json:"review,omitempty"`
	ReviewDue          string   `json:"review_due,omitempty"`
	ReviewReasons      []string `json:"review_reasons,omitempty"`
	ReviewSource       string   `json:"review_source,omitempty"`
	// Sections names other matching sections of the note (at most 3, best first).
	Sections []string `json:"sections,omitempty"`
	Source   string   `json:"source,omitempty"`
	Status   string   `json:"status,omitempty"`
	// SupersededBy names the item that replaces this one (fused search).
	SupersededBy string `json:"superseded_by,omitempty"`
	// SupersededChainCut says the chain of successors was not followed to its end (longer
	// than the cap, or a cycle): SupersededBy is the last successor reached.
	SupersededChainCut bool   `json:"superseded_chain_cut,omitempty"`
	Tasks              *Tasks `json:"tasks,omitempty"`
	Time               string `json:"time,omitempty"`
	Title              string `json:"title,omitempty"`
	Type               string `json:"type,omitempty"`
	Updated            string `json:"updated,omitempty"`
	URI                string `json:"uri,omitempty"`
	URL                string `json:"url,omitempty"`
}

// Tasks counts a note's checkboxes.
type Tasks struct {
	Done int `json:"done"`
	Open int `json:"open"`
}

// Claim is one link a note or record states: subject, relation, target and the section or
// record stating it.
type Claim struct {
	Brain       string `json:"brain,omitempty"`
	Date        string `json:"date,omitempty"`
	Origin      string `json:"origin"`
	Relation    string `json:"relation,omitempty"`
	Subject     string `json:"subject"`
	Target      string `json:"target"`
	TargetRef   string `json:"target_ref,omitempty"`
	TargetTitle string `json:"target_title,omitempty"`
	Time        string `json:"time,omitempty"`
}

// Coverage is a source's collection coverage.
type Coverage struct {
	Brain         string  `json:"brain,omitempty"`
	Failed        bool    `json:"failed,omitempty"`
	Freshness     string  `json:"freshness"`
	LastCollected string  `json:"last_collected,omitempty"`
	Latest        string  `json:"latest,omitempty"`
	Mode          string  `json:"mode,omitempty"`
	Page          string  `json:"page,omitempty"`
	Records       *int    `json:"records,omitempty"`
	Source        string  `json:"source"`
	State         string  `json:"state"`
	Window        *Window `json:"window,omitempty"`
}

// Window is a collected interval.
type Window struct {
	Since string `json:"since"`
	Until string `json:"until"`
}

// Present shows the item's instants in loc's time (nil: the machine's), and drops the time
// of an item dated by a note's day.
func (it *Item) Present(loc *time.Location) {
	it.Time = Local(it.Time, loc)
	it.Updated = Local(it.Updated, loc)
	it.Observed = Local(it.Observed, loc)
	it.Modified = Local(it.Modified, loc)
	if it.Date != "" {
		it.Time = ""
	}
	for i := range it.Relations {
		it.Relations[i].Present(loc)
	}
}

// Present shows the claim's time in loc's time and drops it beside a date.
func (c *Claim) Present(loc *time.Location) {
	c.Time = Local(c.Time, loc)
	if c.Date != "" {
		c.Time = ""
	}
}

// Present shows the coverage's instants in loc's time.
func (c *Coverage) Present(loc *time.Location) {
	c.LastCollected = Local(c.LastCollected, loc)
	c.Latest = Local(c.Latest, loc)
	if c.Window != nil {
		w := Window{Since: Local(c.Window.Since, loc), Until: Local(c.Window.Until, loc)}
		c.Window = &w
	}
}

// Address is the bf:// address of a brain path or a record ref (SOURCE:ID) in brain.
func Address(brain, path string) string {
	return ref.Address{Brain: brain, Path: path}.String()
}

// SectionAddress is the bf:// address of a note's section; an empty fragment names the
// whole note.
func SectionAddress(brain, path, fragment string) string {
	return ref.Address{Brain: brain, Path: path, Fragment: fragment, HasFragment: fragment != ""}.String()
}

// Addressed returns the item as a reply naming several brains shows it: also and newer
// refs become bf:// addresses in the item's brain, and sections refs (note#fragment) too.
// The item's own brain and uri are set by whoever builds it. An item without a brain is
// returned unchanged.
func (it Item) Addressed() Item {
	if it.Brain == "" {
		return it
	}
	it.Also = addresses(it.Brain, it.Also, false)
	it.Newer = addresses(it.Brain, it.Newer, false)
	it.Sections = addresses(it.Brain, it.Sections, true)
	return it
}

// Local returns the item as a reply naming one brain shows it, without brain and uri.
func (it Item) Local() Item {
	it.Brain, it.URI = "", ""
	return it
}

// addresses rewrites refs as addresses. A section ref splits at its last '#': slugs never
// hold one, while a note path may.
func addresses(brain string, refs []string, sections bool) []string {
	if refs == nil {
		return nil
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		if sections {
			if j := strings.LastIndexByte(r, '#'); j >= 0 {
				out[i] = SectionAddress(brain, r[:j], r[j+1:])
				continue
			}
		}
		out[i] = Address(brain, r)
	}
	return out
}
