package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Limits of what a memory holds.
const (
	maxTitleChars = 4096
	maxBodyBytes  = 64 << 10
)

// BodyFrom resolves the body flags of bf remember: --body - reads stdin, --body-file PATH
// reads that file, any other --body is the body itself.
func BodyFrom(stdin io.Reader, body, file string) (string, error) {
	var r io.Reader
	arg := "--body"
	switch {
	case file != "" && body != "":
		return "", inputf("--body-file", "give either --body or --body-file, not both")
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return "", inputf("--body-file", "cannot read %s: %v; give a readable file", quote(file), durable.Cause(err))
		}
		defer f.Close()
		r, arg = f, "--body-file"
	case body == "-":
		r, arg = stdin, "stdin"
	default:
		return body, nil
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBodyBytes+1))
	if err != nil {
		return "", inputf(arg, "cannot read the body: %v", durable.Cause(err))
	}
	if len(data) > maxBodyBytes {
		return "", inputf(arg, "holds more than 64 KiB; a memory body is at most 64 KiB")
	}
	return string(data), nil
}

// RememberRequest is one save. Zero values mean "not given".
type RememberRequest struct {
	Type, Title, Body, Scope string
	Importance               int
	Confidence               string
	Trust                    string // stated (default), imported or external
	Source, Ref              string
	Supersedes               string
	ForkOK, Update           bool
	// NarrowOK lets a correction live in a scope narrower than (or beside) the memory it
	// supersedes: recall elsewhere then loses the old fact with nothing in its place.
	NarrowOK            bool
	AllowDuplicate, Pin bool
	// Reviewed says the person saving the memory stated it (bf remember --reviewed): it is
	// trusted at once. Without it a save is an agent's and unreviewed; MCP never sets it.
	Reviewed bool
	Review   string
	NoReview bool
	Repo     string // the code's working folder, for the commit stamp
}

// RememberReply is what a save did.
type RememberReply struct {
	// Keys in order, as in every reply.
	Action     string   `json:"action"` // created, updated, unchanged
	Commit     string   `json:"commit,omitempty"`
	Confidence string   `json:"confidence"`
	History    string   `json:"history,omitempty"`
	Importance int      `json:"importance"`
	Ref        string   `json:"ref"`
	Review     string   `json:"review,omitempty"`
	Said       []string `json:"said"`
	Scope      string   `json:"scope"`
	Supersedes []string `json:"supersedes,omitempty"`
	Tier       string   `json:"tier"`
	Title      string   `json:"title"`
	Type       string   `json:"type"`
	Unreviewed bool     `json:"unreviewed,omitempty"`
}

// Refusal is a save the guards stopped: nothing was written. Message is the full text for
// the agent; Error is its first line.
type Refusal struct {
	Reason   string   `json:"reason"` // duplicate, changed-body, withdrawn, narrower-scope, fork, forget
	Existing string   `json:"existing,omitempty"`
	Overlap  int      `json:"overlap,omitempty"` // percent
	Flags    []string `json:"flags"`
	Message  string   `json:"message"`
}

func (r *Refusal) Error() string {
	first, _, _ := strings.Cut(r.Message, "\n")
	return first + " (pass " + strings.Join(r.Flags, ", ") + ")"
}

// IsRefusal reports whether err is a guard's refusal.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

func inputf(arg, format string, args ...any) error {
	return &reply.InputError{Argument: arg, Err: fmt.Errorf(format, args...)}
}

// checkRequest validates the flags before anything is read.
func (req *RememberRequest) check() error {
	if _, ok := types[req.Type]; !ok {
		return inputf("--type", "expected one of %s; the type sets how fast the memory fades", strings.Join(typeNames(), ", "))
	}
	if strings.TrimSpace(req.Title) == "" || utf8.RuneCountInString(req.Title) > maxTitleChars || strings.ContainsAny(req.Title, "\n\r") {
		return inputf("--title", "expected one line of 1-4096 characters")
	}
	if strings.TrimSpace(req.Body) == "" || len(req.Body) > maxBodyBytes {
		return inputf("--body", "expected 1 byte to 64 KiB of text")
	}
	if !utf8.ValidString(req.Title) || !utf8.ValidString(req.Body) {
		return inputf("--body", "expected UTF-8 text")
	}
	if req.Scope != "" {
		if err := checkScope(req.Scope); err != nil {
			return inputf("--scope", "%s", err)
		}
	}
	if req.Importance != 0 && (req.Importance < 1 || req.Importance > 5) {
		return inputf("--importance", "expected an integer from 1 to 5")
	}
	if req.Confidence != "" {
		c := normalizeConfidence(req.Confidence)
		if c == "" {
			return inputf("--confidence", "expected confirmed, reported or uncertain (high, medium and low mean the same)")
		}
		req.Confidence = c
	}
	if req.Source != "" && strings.TrimSpace(req.Source) == "" {
		return inputf("--source", "is blank; say where it was checked, such as --source \"stated by the user\"")
	}
	if req.Ref != "" && strings.TrimSpace(req.Ref) == "" {
		return inputf("--ref", "is blank; give a URL, a file or a record backing the memory")
	}
	if req.Trust != "" && !slices.Contains(trustValues, req.Trust) {
		return inputf("--trust", "expected stated, imported or external")
	}
	if req.Review != "" && !checkDay(req.Review) {
		return inputf("--review", "expected a YYYY-MM-DD day")
	}
	if req.Review != "" && req.NoReview {
		return inputf("--no-review", "give either --review DATE or --no-review, not both")
	}
	if req.ForkOK && req.Supersedes == "" {
		return inputf("--fork-ok", "applies only with --supersedes REF")
	}
	if req.NarrowOK && req.Supersedes == "" {
		return inputf("--narrow-ok", "applies only with --supersedes REF")
	}
	return nil
}

// Remember saves a memory under the brain's memory lock, re-reading every memory after the
// lock is held, so two concurrent saves of one title never make two notes.
func (s *Store) Remember(ctx context.Context, req RememberRequest) (*RememberReply, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	scope := req.Scope
	if scope == "" {
		scope = DefaultScope
	}
	lk, err := s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	if err := s.DeclareFields(); err != nil {
		return nil, err
	}
	l, err := s.Load()
	if err != nil {
		return nil, err
	}
	now := s.now()

	var old *Memory
	if req.Supersedes != "" {
		if old, err = l.Resolve(req.Supersedes, "--supersedes"); err != nil {
			return nil, err
		}
		if len(old.SupersededBy) > 0 && !req.ForkOK {
			return nil, &Refusal{Reason: "fork", Existing: old.Ref, Flags: []string{"--supersedes " + old.SupersededBy[0], "--fork-ok"},
				Message: fmt.Sprintf("%s was already replaced by %s.\nTwo current versions of one fact is what corrections are meant to stop. Pick one:\n  correct the current version   --supersedes %s\n  keep both as current          --fork-ok",
					old.Ref, strings.Join(old.SupersededBy, ", "), old.SupersededBy[0])}
		}
	}

	if old != nil && scopeDistance(old.Scope, scope) < 0 && !req.NarrowOK {
		return nil, narrowerScope(old, scope)
	}

	// The same identity: update in place. A correction took over the identity of the
	// memory it replaced, so saving a withdrawn memory's title reaches its correction.
	var same, withdrawn *Memory
	identity := identity(scope, req.Title)
	for _, m := range l.All {
		if l.identity(m) != identity || (old != nil && m.Ref == old.Ref) {
			continue
		}
		if len(m.SupersededBy) == 0 {
			same = m
			break
		}
		if withdrawn == nil {
			withdrawn = m
		}
	}
	if same != nil {
		return s.update(ctx, same, req, now)
	}
	// (A supersession cycle, written by hand, has no current memory to take over.)
	if withdrawn != nil && old == nil && len(l.Current(withdrawn)) > 0 {
		return s.takenOver(ctx, l, withdrawn, req, now)
	}

	// Confirmed needs a source.
	conf := req.Confidence
	if conf == "" {
		conf = defaultConfidence
	}
	if conf == confirmed && req.Source == "" && req.Ref == "" {
		return nil, errConfirmed
	}

	if old == nil && !req.AllowDuplicate {
		if r := s.duplicateOf(l, scope, req); r != nil {
			return nil, r
		}
	}

	m := &Memory{Type: req.Type, Title: strings.TrimSpace(req.Title), Body: req.Body, Importance: req.Importance,
		Confidence: conf, Trust: cmp.Or(req.Trust, DefaultTrust), Scope: scope, Pinned: req.Pin, Source: req.Source, SourceRef: req.Ref, Saved: now,
		Unreviewed: !req.Reviewed}
	if m.Importance == 0 {
		m.Importance = defaultImportance
	}
	said := []string{}
	if old != nil {
		m.Supersedes = []string{old.Ref}
		said = append(said, inherit(l, m, old, req)...)
	} else if req.AllowDuplicate {
		// The saver said these are separate facts: recorded in the note, so bf review
		// does not report the pairs again, on this machine or any other.
		for _, n := range overlapping(l, scope, m.Title) {
			m.DistinctFrom = append(m.DistinctFrom, n.Ref)
		}
		slices.Sort(m.DistinctFrom)
		if len(m.DistinctFrom) > 0 {
			said = append(said, fmt.Sprintf("  saved beside %s as a separate fact (--allow-duplicate): bf review does not report them as duplicates", strings.Join(m.DistinctFrom, ", ")))
		}
	}
	s.stamp(ctx, m, req, now, &said)
	m.Ref = s.freshPath(l, m.Title)
	if err := s.Write(m); err != nil {
		return nil, err
	}
	r := replyOf("created", m)
	r.Said = append([]string{fmt.Sprintf("remembered %s [%s/%s] %s", m.Ref, m.Scope, m.Type, m.Title)}, said...)
	r.Said = append(r.Said, s.undeclared(m.Scope)...)
	if old != nil {
		r.Said = append(r.Said, fmt.Sprintf("  supersedes %s, kept as history; a save of its title in %s now reaches this correction", old.Ref, old.Scope))
		if scopeDistance(old.Scope, m.Scope) < 0 {
			r.Said = append(r.Said, fmt.Sprintf("  %s applied in %s: recall there, and in every scope outside %s, no longer finds it nor this correction", old.Ref, old.Scope, m.Scope))
		}
	}
	if m.Unreviewed {
		r.Said = append(r.Said, unreviewedLine(m))
	}
	return r, nil
}

// inherit gives a correction what the memory it replaces had earned: the higher of the
// two importances unless --importance was given, the pin, and the pairs saved as separate
// facts with it (distinct-from, either way), which bf review then leaves out for the
// correction too. It returns what the save says of it.
func inherit(l *Loaded, m, old *Memory, req RememberRequest) []string {
	var got []string
	if req.Importance == 0 && old.Importance > m.Importance {
		got = append(got, fmt.Sprintf("importance %d (the higher of its %d and the default %d; --importance N sets another)", old.Importance, old.Importance, m.Importance))
		m.Importance = old.Importance
	}
	if old.Pinned && !m.Pinned {
		got = append(got, "the pin")
		m.Pinned = true
	}
	for _, o := range l.All {
		if o != old && len(o.SupersededBy) == 0 && (slices.Contains(old.DistinctFrom, o.Ref) || slices.Contains(o.DistinctFrom, old.Ref)) {
			m.DistinctFrom = append(m.DistinctFrom, o.Ref)
		}
	}
	if len(m.DistinctFrom) > 0 {
		slices.Sort(m.DistinctFrom)
		got = append(got, "saved as a separate fact beside "+strings.Join(m.DistinctFrom, ", "))
	}
	if len(got) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("  inherits from %s: %s", old.Ref, strings.Join(got, "; "))}
}

// narrowerScope refuses a correction that would not reach everywhere the memory it
// replaces applied: recall there would lose the fact with nothing in its place.
func narrowerScope(old *Memory, scope string) *Refusal {
	return &Refusal{Reason: "narrower-scope", Existing: old.Ref, Flags: []string{"--scope " + old.Scope, "--narrow-ok"},
		Message: fmt.Sprintf(`%s applies in %s; a correction in %s does not reach everywhere it did.
Recall in %s, and in every scope outside %s, would lose the fact with nothing in its place. Pick one:
  the fact changed everywhere it applied   --scope %s
  it differs only in %s   save it there without --supersedes: it ranks first in %s, and %s keeps the old fact
  withdraw it everywhere; the correction holds only in %s   --narrow-ok`,
			old.Ref, old.Scope, scope, old.Scope, scope, old.Scope, scope, scope, old.Scope, scope)}
}

// takenOver answers a save of the identity of a withdrawn memory: its correction holds
// that identity now. The body the correction holds is an unchanged save of it; other
// words update it with --update; the withdrawn memory's own body, or a correction forked
// in two, is refused with the current refs and the ways forward. A plain re-save never
// brings back a withdrawn fact as a second current one.
func (s *Store) takenOver(ctx context.Context, l *Loaded, withdrawn *Memory, req RememberRequest, now time.Time) (*RememberReply, error) {
	current := l.Current(withdrawn)
	refs := make([]string, len(current))
	flags := make([]string, len(current))
	for i, c := range current {
		refs[i], flags[i] = c.Ref, "--supersedes "+c.Ref
	}
	head := fmt.Sprintf("%s was withdrawn: %s corrected it and holds its title in %s now.", withdrawn.Ref, strings.Join(refs, ", "), withdrawn.Scope)
	if len(current) > 1 {
		return nil, &Refusal{Reason: "withdrawn", Existing: refs[0], Flags: flags,
			Message: head + "\nIts corrections were forked in two; save this as a correction of the one it replaces: --supersedes REF"}
	}
	cur := current[0]
	body := strings.TrimSpace(req.Body)
	resaved := body == strings.TrimSpace(withdrawn.Body) && body != strings.TrimSpace(cur.Body)
	if resaved || (body != strings.TrimSpace(cur.Body) && !req.Update) {
		reason := "changed-body"
		intro := head + "\nThe body you gave differs from the current one:"
		ways := fmt.Sprintf("  same fact as the correction, better words   --update (saves over %s; its old body is kept in history)\n  the fact CHANGED again                      --supersedes %s", cur.Ref, cur.Ref)
		r := &Refusal{Reason: reason, Existing: cur.Ref, Flags: []string{"--update", "--supersedes " + cur.Ref}}
		if resaved {
			r.Reason, r.Flags = "withdrawn", []string{"--supersedes " + cur.Ref}
			intro = head + "\nThe body you gave is the withdrawn fact; saving it again would make two current answers to one question."
			ways = fmt.Sprintf("  the correction stands     nothing to save; bf recall finds %s\n  the old fact holds again  --supersedes %s (a correction of the correction)", cur.Ref, cur.Ref)
		}
		r.Message = fmt.Sprintf("%s\n  current: %s: %s\n  yours:   %s: %s\nPick one:\n%s", intro, cur.Title, oneLine(cur.Body, quoteClip), req.Title, oneLine(req.Body, quoteClip), ways)
		return nil, r
	}
	req.Update = true
	res, err := s.update(ctx, cur, req, now)
	if err != nil {
		return nil, err
	}
	done := "saved over it"
	if res.Action == "unchanged" {
		done = "it holds this body already"
	}
	res.Said = append(res.Said, fmt.Sprintf("  %s's title leads to its correction %s: %s", withdrawn.Ref, cur.Ref, done))
	return res, nil
}

var errConfirmed = inputf("--confidence", "confirmed needs a source: pass --source TEXT (\"stated by the user\" counts for a preference) or --ref REF, or save it as --confidence reported")

// stamp applies the review date and the commit stamp of a save.
func (s *Store) stamp(ctx context.Context, m *Memory, req RememberRequest, now time.Time, said *[]string) {
	switch {
	case req.NoReview:
		m.Review = ""
	case req.Review != "":
		m.Review = req.Review
	case reviewed(m.Type) && m.Review == "":
		m.Review = timestamp.Day(m.Saved.AddDate(0, 0, reviewDays))
		*said = append(*said, fmt.Sprintf("  review on %s (default for %s, %dd — --review <date> to move it, --no-review if it is permanent)", m.Review, m.Type, reviewDays))
	}
	if stamped(m.Type) {
		g := git{BrainRoot: s.Brain.Root, Dir: req.Repo}
		if head, project, ok := g.Head(ctx); ok {
			m.Commit, m.Project = head, project
			*said = append(*said, fmt.Sprintf("  stamped at commit %s", short(head)))
		}
	}
}

// update saves over the memory with the same identity.
func (s *Store) update(ctx context.Context, m *Memory, req RememberRequest, now time.Time) (*RememberReply, error) {
	changedBody := strings.TrimSpace(m.Body) != strings.TrimSpace(req.Body)
	if changedBody && !req.Update && req.Supersedes == "" {
		return nil, &Refusal{Reason: "changed-body", Existing: m.Ref, Flags: []string{"--update", "--supersedes " + m.Ref},
			Message: fmt.Sprintf("%s already holds a different body for this title in %s.\nA careless save must not overwrite a fact. Pick one:\n  same fact, better words   --update (the old body is kept in history)\n  the fact CHANGED          --supersedes %s", m.Ref, m.Scope, m.Ref)}
	}
	if m.Type != req.Type {
		return nil, inputf("--type", "%s is a %s memory; keep --type %s or save a correction with --supersedes %s", m.Ref, m.Type, m.Type, m.Ref)
	}
	if req.Importance != 0 {
		m.Importance = req.Importance
	}
	if req.Confidence != "" {
		m.Confidence = req.Confidence
	}
	if req.Trust != "" {
		m.Trust = req.Trust
	}
	if req.Source != "" {
		m.Source = req.Source
	}
	if req.Ref != "" {
		m.SourceRef = req.Ref
	}
	if req.Pin {
		m.Pinned = true
	}
	if m.Confidence == confirmed && m.Source == "" && m.SourceRef == "" {
		return nil, errConfirmed
	}
	var history string
	if changedBody {
		h, err := s.KeepHistory(m.Ref, now)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot keep the old body in history: %w", m.Ref, err)
		}
		history = h
	}
	m.Body = req.Body
	m.Saved = now
	said := []string{}
	s.stamp(ctx, m, req, now, &said)
	// What an agent saves over a memory is its own statement, reviewed or not before; a
	// person saving it with --reviewed reviews it.
	wasUnreviewed := m.Unreviewed
	if req.Reviewed {
		m.Unreviewed = false
	} else if changedBody || len(said) > 0 || req.Importance != 0 || req.Confidence != "" || req.Pin || req.Trust != "" || req.Source != "" || req.Ref != "" {
		m.Unreviewed = true
	}
	if err := s.Write(m); err != nil {
		return nil, err
	}
	action := "updated"
	if !changedBody {
		action = "unchanged"
		if len(said) > 0 || req.Importance != 0 || req.Confidence != "" || req.Pin || m.Unreviewed != wasUnreviewed {
			action = "updated"
		}
	}
	r := replyOf(action, m)
	r.History = history
	r.Said = append([]string{fmt.Sprintf("%s %s [%s/%s] %s", action, m.Ref, m.Scope, m.Type, m.Title)}, said...)
	r.Said = append(r.Said, s.undeclared(m.Scope)...)
	if history != "" {
		r.Said = append(r.Said, "  old body kept in "+history)
	}
	if m.Unreviewed && m.Unreviewed != wasUnreviewed {
		r.Said = append(r.Said, unreviewedLine(m))
	}
	return r, nil
}

// undeclared warns of a save into a scope bf.yaml does not declare while it declares
// some: usually a typo, which bf review would only report later.
func (s *Store) undeclared(scope string) []string {
	mc := s.Brain.Config.Memory
	if scope == DefaultScope || mc == nil || len(mc.Scopes) == 0 || slices.Contains(mc.Scopes, scope) {
		return nil
	}
	return []string{fmt.Sprintf("  scope %s is not declared in bf.yaml (declared: %s); a typo? If not, declare it: bf scope %s", scope, strings.Join(mc.Scopes, ", "), scope)}
}

// overlapping lists the current memories of scope whose titles are too close to title
// for the duplicate guard, closest first. Titles under guardMinWords words are not checked.
func overlapping(l *Loaded, scope, title string) []*Memory {
	words := titleWords(title)
	if len(words) < guardMinWords {
		return nil
	}
	type near struct {
		m       *Memory
		overlap float64
	}
	var found []near
	for _, m := range l.All {
		if m.Scope != scope || len(m.SupersededBy) > 0 {
			continue
		}
		mw := l.titleWords(m)
		if len(mw) < guardMinWords {
			continue
		}
		if o := wordOverlap(words, mw); o >= guardOverlap {
			found = append(found, near{m, o})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return cmp.Compare(b.overlap, a.overlap) })
	out := make([]*Memory, len(found))
	for i, n := range found {
		out[i] = n.m
	}
	return out
}

// duplicateOf returns the refusal for a title too close to a current memory's in scope.
// Its "same fact, better words" way is the whole command that updates the stored memory
// with the body given, ready to paste.
func (s *Store) duplicateOf(l *Loaded, scope string, req RememberRequest) *Refusal {
	near := overlapping(l, scope, req.Title)
	if len(near) == 0 {
		return nil
	}
	best, title := near[0], req.Title
	pct := int(math.Round(overlap(title, best.Title) * 100))
	msg := fmt.Sprintf(`%s in %s is already about this (%d%% title overlap):
  stored:  %s
  yours:   %s
Storing both would put two answers to one question in the brain. Pick one:
  the fact CHANGED       --supersedes %s
  same fact, better words  %s
  genuinely separate     --allow-duplicate`, best.Ref, scope, pct, best.Title, title, best.Ref, s.updateCommand(best, req))
	return &Refusal{Reason: "duplicate", Existing: best.Ref, Overlap: pct,
		Flags: []string{"--supersedes " + best.Ref, "--update", "--allow-duplicate"}, Message: msg}
}

// updateCommand is the bf remember command that saves req's body over the stored memory m,
// keeping the other flags req was given.
func (s *Store) updateCommand(m *Memory, req RememberRequest) string {
	args := []string{"bf", "remember", "--brain", s.Brain.Root, "--type", m.Type, "--scope", m.Scope, "--title", m.Title, "--body", req.Body, "--update"}
	if req.Importance != 0 {
		args = append(args, "--importance", strconv.Itoa(req.Importance))
	}
	for _, f := range []struct{ flag, value string }{{"--confidence", req.Confidence}, {"--trust", req.Trust}, {"--source", req.Source}, {"--ref", req.Ref}, {"--review", req.Review}} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	if req.Pin {
		args = append(args, "--pin")
	}
	if req.NoReview {
		args = append(args, "--no-review")
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote writes a word so a POSIX shell reads it back as is: bare when it holds only
// safe characters, else in single quotes.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r < utf8.RuneSelf && (isWordRune(r) || strings.ContainsRune("-_./:,+=@%", r)))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// freshPath names a new memory note after its title, unique in the folder.
func (s *Store) freshPath(l *Loaded, title string) string {
	base := slugOf(title)
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		p := Folder + "/" + name + ".md"
		if l.ByRef[p] != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.Brain.Root, filepath.FromSlash(p))); err == nil {
			continue
		}
		return p
	}
}

// slugOf is a short file name for a title.
func slugOf(title string) string {
	words := strings.Fields(note.Slug(strings.ReplaceAll(title, "-", " ")))
	s := strings.Join(strings.FieldsFunc(strings.Join(words, "-"), func(r rune) bool { return r == '-' }), "-")
	for len(s) > 60 {
		i := strings.LastIndexByte(s[:60], '-')
		if i <= 0 {
			s = truncateRunes(s, 60)
			break
		}
		s = s[:i]
	}
	if s == "" || s == "index" || s == "log" {
		s = "memory"
	}
	return s
}

func truncateRunes(s string, n int) string {
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

func replyOf(action string, m *Memory) *RememberReply {
	return &RememberReply{Action: action, Ref: m.Ref, Title: m.Title, Type: m.Type, Tier: m.Tier().Name, Scope: m.Scope,
		Importance: m.Importance, Confidence: m.Confidence, Review: m.Review, Commit: m.Commit, Supersedes: m.Supersedes,
		Unreviewed: m.Unreviewed}
}

// unreviewedLine is what a save says of a memory no person reviewed yet.
func unreviewedLine(m *Memory) string {
	return "  unreviewed until a person accepts it (bf review --accept " + m.Ref + "); fused search, bf ask and MCP resources leave it out until then"
}
