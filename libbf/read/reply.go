package read

import (
	"encoding/json"

	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/reply"
)

// NoteReply is the exact read of a note or of a section (note#slug). A whole note carries
// backlinks and claims, an ACTION.md its files and linked projects, a note that gets
// reminders its tasks and review signals; a section carries its note's title, type, status
// and date. Paged fields appear when the text is paged.
type NoteReply struct {
	Backlinks        *[]graph.Group  `json:"backlinks,omitempty"`
	BacklinksOmitted int             `json:"backlinks_omitted,omitempty"`
	Brain            string          `json:"brain"`
	Claims           []reply.Claim   `json:"claims,omitempty"`
	ClaimsTruncated  bool            `json:"claims_truncated,omitempty"`
	Date             string          `json:"date,omitempty"`
	Files            []string        `json:"files,omitempty"`
	Modified         string          `json:"modified,omitempty"`
	NewLinks         int             `json:"new_links,omitempty"`
	Newer            []string        `json:"newer,omitempty"`
	Next             string          `json:"next,omitempty"`
	NextOffset       *int64          `json:"next_offset,omitempty"`
	Notice           string          `json:"notice"`
	Offset           *int64          `json:"offset,omitempty"`
	Outline          []Heading       `json:"outline,omitempty"`
	OutlineTruncated bool            `json:"outline_truncated,omitempty"`
	Problems         []reply.Problem `json:"problems,omitempty"`
	Projects         []reply.Item    `json:"projects,omitempty"`
	Ref              string          `json:"ref"`
	Review           bool            `json:"review,omitempty"`
	ReviewDue        string          `json:"review_due,omitempty"`
	ReviewReasons    []string        `json:"review_reasons,omitempty"`
	ReviewSource     string          `json:"review_source,omitempty"`
	SHA256           string          `json:"sha256"`
	Stale            []string        `json:"stale,omitempty"`
	Status           string          `json:"status,omitempty"`
	Tasks            *reply.Tasks    `json:"tasks,omitempty"`
	Text             string          `json:"text"`
	Title            string          `json:"title,omitempty"`
	TotalCharacters  *int            `json:"total_characters,omitempty"`
	Type             string          `json:"type,omitempty"`
	URI              string          `json:"uri,omitempty"`
}

// Heading is one outline entry of a paged note: a section inside the read, with its length
// in characters.
type Heading struct {
	Characters int    `json:"characters"`
	Ref        string `json:"ref"`
	Title      string `json:"title"`
}

// RecordReply is the exact read of a record: the stored record without default values
// (its time in local time, attributes and fields as stored), its source's collection
// state, the file's digest and time, backlinks and claims.
type RecordReply struct {
	Backlinks        *[]graph.Group             `json:"backlinks,omitempty"`
	BacklinksOmitted int                        `json:"backlinks_omitted,omitempty"`
	Brain            string                     `json:"brain"`
	Claims           []reply.Claim              `json:"claims,omitempty"`
	ClaimsTruncated  bool                       `json:"claims_truncated,omitempty"`
	Collection       *Collection                `json:"collection,omitempty"`
	Modified         string                     `json:"modified,omitempty"`
	NextOffset       *int64                     `json:"next_offset,omitempty"`
	Notice           string                     `json:"notice"`
	Offset           *int64                     `json:"offset,omitempty"`
	Path             string                     `json:"path,omitempty"`
	Problems         []reply.Problem            `json:"problems,omitempty"`
	Record           map[string]json.RawMessage `json:"record"`
	Ref              string                     `json:"ref"`
	SHA256           string                     `json:"sha256"`
	Stale            []string                   `json:"stale,omitempty"`
	TotalCharacters  *int                       `json:"total_characters,omitempty"`
	URI              string                     `json:"uri,omitempty"`
}

// Collection is the collection state of a record's source.
type Collection struct {
	Failed        bool          `json:"failed,omitempty"`
	Freshness     string        `json:"freshness"`
	LastCollected string        `json:"last_collected,omitempty"`
	Mode          string        `json:"mode,omitempty"`
	State         string        `json:"state"`
	Window        *reply.Window `json:"window,omitempty"`
}

// IdentityReply is the read of an identity no selected item owns: the backlinks naming it.
type IdentityReply struct {
	Backlinks        []graph.Group   `json:"backlinks"`
	BacklinksOmitted int             `json:"backlinks_omitted,omitempty"`
	Notice           string          `json:"notice"`
	Page             string          `json:"page"`
	Problems         []reply.Problem `json:"problems,omitempty"`
	Stale            []string        `json:"stale,omitempty"`
}

// RelationReply is a relation page: every item linking to the ref through the relation or
// a narrower one (those items name their own relation), newest first.
type RelationReply struct {
	Items      []reply.Item    `json:"items"`
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Page       string          `json:"page"`
	Problems   []reply.Problem `json:"problems,omitempty"`
	Ref        string          `json:"ref"`
	Relation   string          `json:"relation"`
	Stale      []string        `json:"stale,omitempty"`
	Total      int             `json:"total"`
}

// textPage is a later page of a large note read: the text slice and what identifies it.
type textPage struct {
	Brain           string          `json:"brain"`
	Modified        string          `json:"modified,omitempty"`
	NextOffset      *int64          `json:"next_offset,omitempty"`
	Notice          string          `json:"notice"`
	Offset          int64           `json:"offset"`
	Problems        []reply.Problem `json:"problems,omitempty"`
	Ref             string          `json:"ref"`
	SHA256          string          `json:"sha256"`
	Stale           []string        `json:"stale,omitempty"`
	Text            string          `json:"text"`
	TotalCharacters int             `json:"total_characters"`
	URI             string          `json:"uri,omitempty"`
}

// recordTextPage is a later page of a large record read.
type recordTextPage struct {
	Brain           string          `json:"brain"`
	Modified        string          `json:"modified,omitempty"`
	NextOffset      *int64          `json:"next_offset,omitempty"`
	Notice          string          `json:"notice"`
	Offset          int64           `json:"offset"`
	Problems        []reply.Problem `json:"problems,omitempty"`
	Record          textOnly        `json:"record"`
	Ref             string          `json:"ref"`
	SHA256          string          `json:"sha256"`
	Stale           []string        `json:"stale,omitempty"`
	TotalCharacters int             `json:"total_characters"`
	URI             string          `json:"uri,omitempty"`
}

// textOnly is a record reduced to a text slice.
type textOnly struct {
	Text string `json:"text"`
}
