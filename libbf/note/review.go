package note

import "strings"

// Review states a note declares with the front matter key review.
const (
	// ReviewUnreviewed marks content an agent wrote that no person has reviewed yet: fused
	// search leaves it out unless the caller lowers the trust floor, and never walks the
	// links it states.
	ReviewUnreviewed = "unreviewed"
	// ReviewReviewed marks agent-written content a person has reviewed (the same as
	// writing no review key).
	ReviewReviewed = "reviewed"
)

// Review is the note's review state: ReviewUnreviewed, ReviewReviewed, or "" when the
// note declares none. Any value other than the two states counts as unreviewed, so a
// misspelt marker never raises trust.
func (f *FrontMatter) Review() string {
	v, ok := f.Extra["review"]
	if !ok {
		return ""
	}
	s, _ := v.(string)
	if strings.ToLower(strings.TrimSpace(s)) == ReviewReviewed {
		return ReviewReviewed
	}
	return ReviewUnreviewed
}
