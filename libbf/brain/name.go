package brain

import (
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/bfgo/bf/libbf/ref"
)

// NameFromFolder derives the name bf init gives a brain from its folder (~ expanded,
// relative to the working directory): the folder's base name lowercased, with accents
// folded (é → e), compatibility forms unified (ﬁ → fi, full-width letters → ASCII), each
// run of characters outside [a-z0-9-] replaced by one -, and leading and trailing -
// removed. ~/Team Brain gives team-brain. A result that is not a valid brain name fails
// with invalid input asking for --name.
func NameFromFolder(path string) (string, error) { return System().NameFromFolder(path) }

// NameFromFolder is NameFromFolder with e's home and working directory.
func (e Env) NameFromFolder(path string) (string, error) {
	if path == "" {
		return "", invalidf("PATH: empty value; pass the folder of the new brain")
	}
	abs, err := e.abs(path, "")
	if err != nil {
		return "", err
	}
	name := FoldName(filepath.Base(abs))
	if !ref.ValidName(name) {
		return "", invalidf("cannot derive a brain name from the folder name; pass --name NAME (a lowercase letter, then up to 63 lowercase letters, digits or -)")
	}
	return name, nil
}

var dropMarks = runes.Remove(runes.In(unicode.Mn))

// FoldName applies the folding rules of NameFromFolder to a folder's base name without
// checking the result.
func FoldName(base string) string {
	folded, _, err := transform.String(transform.Chain(norm.NFKD, dropMarks), base)
	if err != nil {
		folded = base
	}
	folded = strings.ToLower(folded)
	// Lowercasing can produce combining marks again (İ → i + dot above).
	if again, _, err := transform.String(transform.Chain(norm.NFKD, dropMarks), folded); err == nil {
		folded = again
	}
	var b strings.Builder
	run := false
	for _, c := range folded {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteRune(c)
			run = false
			continue
		}
		if !run {
			b.WriteByte('-')
			run = true
		}
	}
	return strings.Trim(b.String(), "-")
}
