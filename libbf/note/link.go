package note

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// From says where a link was written, which fixes its origin.
type From int

const (
	// FromBody is a link, image or autolink in the Markdown body.
	FromBody From = iota
	// FromFootnote is a link inside a footnote definition; its origin is the section that
	// first cites the footnote, wherever the definition sits.
	FromFootnote
	// fromLinks is an entry of the front matter links list; its origin is the whole note.
	fromLinks
	// FromSources is a front matter sources[].resource: a cites claim of the whole note.
	FromSources
)

// Link is one link target of a note. Nothing here says whether the target exists: that
// needs the brain (see Resolve for the pure part).
type Link struct {
	// Target is the destination as written, after Markdown's own unescaping: angle
	// brackets dropped, backslash escapes and entities resolved, no percent-encoding.
	Target string
	Image  bool
	// Line is the 1-based line where the link starts; 0 for front matter links.
	Line int
	// Section is the slug of the origin section; "" is the note itself (a link before the
	// first heading, or a front matter link).
	Section string
	From    From
}

// found is a body link before its origin is known.
type found struct {
	link     Link
	pos      int
	footnote int // index of the enclosing footnote definition, 0 when none
}

// collectLinks finds every link, image and autolink in the body, in source order, and
// where each footnote is first cited.
func collectLinks(doc ast.Node, body []byte, idx lineIndex) ([]found, map[int]int) {
	var out []found
	cited := map[int]int{} // footnote index -> offset of its first citation
	footnote := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch t := n.(type) {
		case *extast.Footnote:
			footnote = 0
			if entering {
				footnote = t.Index
				if footnote <= 0 {
					footnote = -1 // defined but never cited
				}
			}
		case *extast.FootnoteLink:
			if p, ok := cited[t.Index]; entering && (!ok || t.Pos() < p) {
				cited[t.Index] = t.Pos()
			}
		case *ast.Link:
			if entering {
				out = append(out, found{Link{Target: decode(t.Destination)}, t.Pos(), footnote})
			}
		case *ast.Image:
			if entering {
				out = append(out, found{Link{Target: decode(t.Destination), Image: true}, t.Pos(), footnote})
			}
		case *ast.AutoLink:
			if entering {
				out = append(out, found{Link{Target: autoLinkURL(t, body)}, t.Pos(), footnote})
			}
		}
		return ast.WalkContinue, nil
	})
	slices.SortStableFunc(out, func(a, b found) int { return a.pos - b.pos })
	for i := range out {
		out[i].link.Line = idx.line(out[i].pos)
		if out[i].footnote != 0 {
			out[i].link.From = FromFootnote
		}
	}
	return out, cited
}

// autoLinkURL is an autolink's destination: an email address gets mailto:, as CommonMark
// renders it.
func autoLinkURL(t *ast.AutoLink, src []byte) string {
	u := string(t.URL(src))
	if t.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
		return "mailto:" + u
	}
	return u
}

// TargetKind classifies a link destination.
type TargetKind int

const (
	// Ignored is an empty destination or a bare "#": nothing to follow or check.
	Ignored TargetKind = iota
	// URI has a scheme: a bf:// address, a record ref SOURCE:ID, an identity or a URL.
	URI
	// File is a path in the brain, with an optional section fragment.
	File
)

// Target is a classified link destination.
type Target struct {
	Kind TargetKind
	// URI is the destination as written, for Kind URI.
	URI string
	// Path is the brain-relative slash path for Kind File, percent-decoded and cleaned;
	// "." is the brain root.
	Path        string
	Fragment    string // percent-decoded section slug
	HasFragment bool   // a nonempty fragment was written
}

// ErrLeavesBrain is wrapped by Resolve when a relative path climbs above the brain root.
var ErrLeavesBrain = errors.New("link leaves the brain")

var schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })

// Resolve classifies dest, written in the note at notePath, without looking at the disk.
//
// A destination with a scheme is a URI and stays as written. Anything else is a path
// relative to the note's folder: it is split at its first '#' before percent-decoding (so
// data%231.csv names data#1.csv), and a leading '/' in a project or concept note starts
// from that folder's root (the OKF bundle root). Actions have no bundle root, so there a
// leading '/' is an absolute path, which leaves the brain like any path that climbs
// above its root: "link leaves the brain: DEST".
func Resolve(notePath, dest string) (Target, error) {
	if dest == "" || dest == "#" {
		return Target{}, nil
	}
	if schemeRE().MatchString(dest) {
		return Target{Kind: URI, URI: dest}, nil
	}
	p, frag, _, err := ref.SplitFragment(dest)
	if err != nil {
		return Target{}, err
	}
	t := Target{Kind: File, Fragment: frag, HasFragment: frag != ""}
	switch {
	case p == "":
		t.Path = notePath
		if !t.HasFragment {
			return Target{}, nil // "#" after decoding; nothing to follow
		}
		return t, nil
	case strings.HasPrefix(p, "/"):
		root, _, _ := strings.Cut(notePath, "/")
		if root != "projects" && root != "concepts" {
			return Target{}, fmt.Errorf("%w: %s", ErrLeavesBrain, dest)
		}
		t.Path = path.Join(root, p)
	default:
		t.Path = path.Join(path.Dir(notePath), p)
	}
	if t.Path == ".." || strings.HasPrefix(t.Path, "../") {
		return Target{}, fmt.Errorf("%w: %s", ErrLeavesBrain, dest)
	}
	return t, nil
}
