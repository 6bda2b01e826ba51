package pages

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// actionReply is an action folder's page: the whole read of its ACTION.md with the
// folder's files, the projects it links to, its backlinks and claims, and its reminders
// when it gets them.
type actionReply struct {
	Backlinks        []graph.Group `json:"backlinks"`
	BacklinksOmitted int           `json:"backlinks_omitted,omitempty"`
	Brain            string        `json:"brain"`
	Claims           []reply.Claim `json:"claims,omitempty"`
	ClaimsTruncated  bool          `json:"claims_truncated,omitempty"`
	// Files are the folder's other files, brain-relative, at most 200.
	Files         []string        `json:"files"`
	Modified      string          `json:"modified,omitempty"`
	NewLinks      int             `json:"new_links,omitempty"`
	Newer         []string        `json:"newer,omitempty"`
	Next          string          `json:"next,omitempty"`
	Notice        string          `json:"notice"`
	Problems      []reply.Problem `json:"problems,omitempty"`
	Projects      []reply.Item    `json:"projects"`
	Ref           string          `json:"ref"`
	Review        bool            `json:"review,omitempty"`
	ReviewDue     string          `json:"review_due,omitempty"`
	ReviewReasons []string        `json:"review_reasons,omitempty"`
	ReviewSource  string          `json:"review_source,omitempty"`
	SHA256        string          `json:"sha256"`
	Stale         []string        `json:"stale,omitempty"`
	Tasks         *reply.Tasks    `json:"tasks,omitempty"`
	Text          string          `json:"text"`
	URI           string          `json:"uri,omitempty"`
}

// msgNoRef is the failure of a ref that names nothing.
const msgNoRef = "reference not found; use bf search to locate it, or bf read to browse pages"

// msgFiles is the problem of an action file that is not listed.
const msgFiles = "symlinks and special files are not listed"

// action reads actions/FOLDER as its ACTION.md. The note is looked up in the brain req
// names, or in every selected brain; backlinks come from every selected brain.
func action(ctx context.Context, req Request, folderPath string) (*actionReply, error) {
	if req.Offset != 0 {
		return nil, &reply.InputError{Argument: "offset", Err: errExactOffset}
	}
	only := req.Brain
	if _, _, err := restrict(req); err != nil {
		return nil, err
	}
	all := req
	all.Brain = ""
	s, err := openSession(ctx, all)
	if err != nil {
		return nil, err
	}
	defer s.close()
	notePath := folderPath + "/ACTION.md"
	var found []*row
	for _, p := range s.parts {
		if only != "" && p.name != only {
			continue
		}
		rows, err := queryRows(ctx, p, eventExpr, `i.ref = :ref AND i.kind = 'note'`, `i.ref`, 1, sql.Named("ref", notePath))
		if err != nil {
			return nil, cacheError(err)
		}
		found = append(found, rows...)
	}
	switch {
	case len(found) > 1:
		return nil, errors.New(msgAmbiguous)
	case len(found) == 0:
		if only != "" && !s.has(only) {
			return nil, &reply.NotFoundError{Msg: msgIncomplete}
		}
		return nil, s.notFound(msgNoRef)
	}
	r := found[0]
	p := r.part
	out := &actionReply{Notice: reply.Notice, Brain: p.name, Ref: notePath}
	if only != "" || !s.single {
		out.URI = reply.Address(p.name, notePath)
	}
	data, info, err := readRegular(p.brain.Root, notePath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", notePath, err)
	}
	sum := sha256.Sum256(data)
	out.SHA256 = hex.EncodeToString(sum[:])
	out.Text = string(data)
	out.Modified = timestamp.Local(info.ModTime(), s.loc)

	if err := review(ctx, s.scope(), s.index(p), []*row{r}, s.now, s.loc); err != nil {
		return nil, cacheError(err)
	}
	if sig := r.signals; sig != nil {
		out.Tasks, out.Next = sig.Tasks, sig.Next
		out.Review, out.ReviewDue, out.ReviewReasons, out.ReviewSource = sig.Review, sig.ReviewDue, sig.ReviewReasons, sig.ReviewSource
		out.NewLinks, out.Newer = sig.NewLinks, sig.Newer
	}

	files, skipped, err := actionFiles(p.brain.Root, folderPath, notePath)
	if err != nil {
		s.probs.Add(reply.Problem{Brain: p.name, Error: "the action's files are unavailable; run bf status"})
	}
	out.Files = files
	for _, f := range skipped {
		s.probs.Add(reply.Problem{Brain: p.name, File: f, Error: msgFiles})
	}

	projects, err := linkedProjects(ctx, p, r.id)
	if err != nil {
		return nil, cacheError(err)
	}
	out.Projects = []reply.Item{}
	for _, pr := range projects {
		out.Projects = append(out.Projects, s.item(pr, true))
	}
	s.shapeItems(out.Projects)

	if out.Backlinks, out.BacklinksOmitted, out.Claims, out.ClaimsTruncated, err = related(ctx, s, p.name, notePath); err != nil {
		return nil, err
	}
	out.Problems = s.probs.List()
	out.Stale = s.stale
	return out, nil
}

// related asks the graph for the backlinks of an item of brain name, from every brain
// of the session, and for the claims it makes.
func related(ctx context.Context, s *session, name, itemRef string) ([]graph.Group, int, []reply.Claim, bool, error) {
	set := &graph.Set{Missing: s.missing, Local: s.single, Location: s.loc, Problems: &s.probs}
	for _, p := range s.parts {
		set.Parts = append(set.Parts, graph.Part{Brain: p.brain, DB: p.tx})
	}
	groups, omitted, err := graph.Backlinks(ctx, set, name, itemRef)
	if err != nil {
		return nil, 0, nil, false, err
	}
	if groups == nil {
		groups = []graph.Group{}
	}
	target, err := graph.Resolve(ctx, set, name, itemRef)
	if err != nil {
		return nil, 0, nil, false, err
	}
	claims, cut, err := target.Claims(ctx)
	if err != nil {
		return nil, 0, nil, false, err
	}
	return groups, omitted, claims, cut, nil
}

// has reports whether the brain called name answered.
func (s *session) has(name string) bool {
	for _, p := range s.parts {
		if p.name == name {
			return true
		}
	}
	return false
}

// readRegular reads a brain file that must be a regular file, never through a symbolic link.
func readRegular(root, rel string) ([]byte, fs.FileInfo, error) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(full)
	if err != nil {
		return nil, nil, errors.New("cannot read the file; run bf build")
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errors.New("expected a regular file")
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, nil, errors.New("cannot read the file")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, note.MaxBytes+1))
	if err != nil {
		return nil, nil, errors.New("cannot read the file")
	}
	if len(data) > note.MaxBytes {
		return nil, nil, fmt.Errorf("file exceeds %d bytes", note.MaxBytes)
	}
	return data, info, nil
}

// actionFiles lists an action folder's regular files, recursively and sorted, without its
// ACTION.md and hidden names, at most maxFiles; skipped names symbolic links and special
// files (at most maxFiles).
func actionFiles(root, folderPath, notePath string) (files, skipped []string, err error) {
	files = []string{}
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if depth > 64 {
			return errors.New("folders nest too deep")
		}
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := path.Join(rel, name)
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				skipped = append(skipped, p)
			case e.IsDir():
				if err := walk(p, depth+1); err != nil {
					return err
				}
			case e.Type().IsRegular():
				if p != notePath {
					files = append(files, p)
				}
			default:
				skipped = append(skipped, p)
			}
		}
		return nil
	}
	err = walk(folderPath, 1)
	sort.Strings(files)
	sort.Strings(skipped)
	if len(files) > maxFiles {
		files = files[:maxFiles]
	}
	if len(skipped) > maxFiles {
		skipped = skipped[:maxFiles]
	}
	return files, skipped, err
}

// linkedProjects are the notes under projects/ that the note (item id) links to: by path
// (with or without a #section), by its own address, or by a name only that note holds;
// at most maxProjects, by ref.
func linkedProjects(ctx context.Context, p *part, id int64) ([]*row, error) {
	targets, err := cache.Strings(ctx, p.tx, `SELECT target FROM links WHERE item = ?`, id)
	if err != nil {
		return nil, err
	}
	refs := map[string]bool{}
	names := map[string]bool{}
	for _, t := range targets {
		if ref.IsAddress(t) {
			a, err := ref.ParseAddress(t)
			if err != nil || a.Brain != p.name {
				continue
			}
			names[ref.Address{Brain: a.Brain, Path: a.Path}.String()] = true
			continue
		}
		if strings.HasPrefix(t, "projects/") {
			refs[t] = true
			if i := strings.LastIndexByte(t, '#'); i >= 0 {
				refs[t[:i]] = true
			}
			continue
		}
		if ref.IsIdentity(t) {
			names[t] = true
		}
	}
	return queryRows(ctx, p, `i.ref`, `i.kind = 'note' AND substr(i.path, 1, 9) = 'projects/' AND (
			i.ref IN (SELECT value FROM json_each(:refs))
			OR i.id IN (SELECT min(item) FROM names WHERE name IN (SELECT value FROM json_each(:names))
				GROUP BY name HAVING count(*) = 1))`,
		`i.ref`, maxProjects,
		sql.Named("refs", jsontext.Array(slices.Sorted(maps.Keys(refs)))), sql.Named("names", jsontext.Array(slices.Sorted(maps.Keys(names)))))
}
