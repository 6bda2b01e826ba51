package ref

import (
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Page path errors.
var (
	errTag      = errors.New("tag must be 1-128 characters without surrounding whitespace, slashes or dot segments")
	errMemories = errors.New("expected memories, memories/SOURCE, memories/SOURCE/PERIOD, memories/SOURCE/undated or memories/SOURCE/<sha256>.json")
)

// PageKind names a computed page.
type PageKind int

const (
	PageHome          PageKind = iota + 1 // ""
	PageTasks                             // tasks
	PageFolder                            // projects, concepts or actions
	PageTags                              // tags
	PageTag                               // tags/LABEL
	PageMemories                          // memories
	PageSource                            // memories/SOURCE
	PageSourcePeriod                      // memories/SOURCE/PERIOD
	PageSourceUndated                     // memories/SOURCE/undated
	PageRecordFile                        // memories/SOURCE/<sha256>.json
	PagePeriod                            // a period
)

// Page is a classified page path. Path is the path without a trailing '/'; the other
// fields hold the parts the kind names.
type Page struct {
	Kind   PageKind
	Path   string
	Tag    string // PageTag
	Source string // PageSource, PageSourcePeriod, PageSourceUndated, PageRecordFile
	Period string // PagePeriod, PageSourcePeriod: the period ref, to parse with ParsePeriod
	File   string // PageRecordFile
}

// authoredRoots are the folders people write notes in; each root is a listing page.
var authoredRoots = [...]string{"projects", "concepts", "actions"}

// IsAuthoredRoot reports projects, concepts or actions.
func IsAuthoredRoot(s string) bool {
	for _, r := range authoredRoots {
		if s == r {
			return true
		}
	}
	return false
}

// UnderAuthored reports a path below an authored root. If that path is a folder, it
// is a listing page like its root; only the caller can see whether it is one.
func UnderAuthored(path string) bool {
	root, rest, ok := strings.Cut(path, "/")
	return ok && rest != "" && IsAuthoredRoot(root)
}

// Reserved reports whether a brain path belongs to the computed pages: home, tasks, the
// authored roots, anything under tags/ or memories/, and anything shaped like a period.
// The whole namespace is reserved, even paths naming nothing, so no entity or alias can
// take a page's address now or when a later release adds the page.
func Reserved(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path == "" || path == "tasks" || IsAuthoredRoot(path) ||
		first == "tags" || first == "memories" || IsPeriod(path)
}

// ParsePage classifies a brain-relative page path (no leading '/'). One trailing '/', as
// shell completion adds, is ignored. ok is false for paths outside the page namespace
// (notes, folders under an authored root, entities); err is set for a path inside it
// that can never name a page, such as a bad tag label, an unknown segment under
// memories/SOURCE, or an impossible date like 2026-13.
func ParsePage(path string) (p Page, ok bool, err error) {
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	p.Path = path
	first, rest, below := strings.Cut(path, "/")
	switch {
	case path == "":
		p.Kind = PageHome
	case path == "tasks":
		p.Kind = PageTasks
	case IsAuthoredRoot(path):
		p.Kind = PageFolder
	case first == "tags" && !below:
		p.Kind = PageTags
	case first == "tags":
		if err := ValidTag(rest); err != nil {
			return Page{}, false, err
		}
		p.Kind, p.Tag = PageTag, rest
	case first == "memories":
		return memoriesPage(p, rest, below)
	case IsPeriod(path):
		if err := checkPeriod(path); err != nil {
			return Page{}, false, err
		}
		p.Kind, p.Period = PagePeriod, path
	default:
		return Page{}, false, nil
	}
	return p, true, nil
}

func memoriesPage(p Page, rest string, below bool) (Page, bool, error) {
	if !below {
		p.Kind = PageMemories
		return p, true, nil
	}
	source, leaf, hasLeaf := strings.Cut(rest, "/")
	if !ValidName(source) || strings.Contains(leaf, "/") {
		return Page{}, false, errMemories
	}
	p.Source = source
	switch {
	case !hasLeaf:
		p.Kind = PageSource
	case leaf == "undated":
		p.Kind = PageSourceUndated
	case isRecordFile(leaf):
		p.Kind, p.File = PageRecordFile, leaf
	case IsPeriod(leaf):
		if err := checkPeriod(leaf); err != nil {
			return Page{}, false, err
		}
		p.Kind, p.Period = PageSourcePeriod, leaf
	default:
		return Page{}, false, errMemories
	}
	return p, true, nil
}

// isRecordFile reports a record file name: 64 lowercase hex digits (the SHA-256 of the
// record id) and .json.
func isRecordFile(name string) bool {
	hash, ok := strings.CutSuffix(name, ".json")
	if !ok || len(hash) != 64 {
		return false
	}
	for i := 0; i < len(hash); i++ {
		if c := hash[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ValidTag checks a tag label. Labels are exact and case-sensitive; they become the last
// segment of tags/LABEL, so they hold no slash and are no dot segment, and surrounding
// whitespace is refused because nobody can see it.
func ValidTag(s string) error {
	n := utf8.RuneCountInString(s)
	if n == 0 || n > 128 || !utf8.ValidString(s) || hasControl(s) ||
		strings.ContainsAny(s, `/\`) || s == "." || s == ".." {
		return errTag
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return errTag
	}
	return nil
}

// checkPeriod validates a period's dates; only trailing windows depend on now, and their
// validity does not.
func checkPeriod(s string) error {
	_, err := ParsePeriod(s, time.Unix(0, 0), time.UTC)
	return err
}
