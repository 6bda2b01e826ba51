package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Brief limits.
const (
	DefaultBriefBytes = 6000
	minBriefBytes     = 256
	maxBriefBytes     = 1 << 20
	maxRules          = 20
	maxPreferences    = 8
	maxListed         = 10 // due, inbox, recent
	recentDays        = 7
	bodyClip          = 240
	quoteClip         = 120 // what a refusal quotes of a body
)

// Section names. Priority is the order they are kept in (the last is cut first); Print is
// the order they are printed in: what comes from outside the project first, then how the
// user wants to work, ahead of pins and rules.
var (
	priority = []string{"rules", "preferences", "pinned", "due", "code", "inbox", "brains", "recent"}
	Print    = []string{"inbox", "brains", "preferences", "pinned", "rules", "due", "code", "recent"}
	headings = map[string]string{
		"rules":       "Rules (always apply)",
		"preferences": "How they want to work",
		"pinned":      "Pinned",
		"due":         "Due for review",
		"code":        "Code, live from git",
		"inbox":       "Inbox: open tasks",
		"brains":      "Other brains",
		"recent":      "Recent activity",
	}
)

// BriefRequest asks for the session brief.
type BriefRequest struct {
	Scope string
	Bytes int
	Repo  string
}

// BriefSection reports one section: how many items it had and how many are shown.
type BriefSection struct {
	Name    string `json:"name"`
	Heading string `json:"heading"`
	Items   int    `json:"items"`
	Shown   int    `json:"shown"`
	// Beyond counts the items past the section's cap (twenty rules, eight preferences):
	// Items = Shown + Beyond + what the size limit cut.
	Beyond int `json:"beyond,omitempty"`
	// Rest is the command that lists the section's items not shown, when some are not.
	Rest string `json:"rest,omitempty"`
}

// Cut names what the size limit removed.
type Cut struct {
	Section string `json:"section"`
	Items   int    `json:"items"`
}

// BriefReply is the brief and how it was built.
type BriefReply struct {
	Notice   string         `json:"notice"`
	Scope    string         `json:"scope"`
	Brief    string         `json:"brief"`
	Bytes    int            `json:"bytes"`
	Limit    int            `json:"limit"`
	Sections []BriefSection `json:"sections"`
	Cut      []Cut          `json:"cut,omitempty"`
	More     string         `json:"more,omitempty"` // the command that shows the rest
	Warnings []string       `json:"warnings,omitempty"`
}

type section struct {
	name  string
	items []string
	shown int
	// total counts every memory the section stands for, beyond its cap too. A capped
	// section (rules, preferences) names what it counts and its cap, and the memory types
	// that bf recall lists it by.
	total   int
	what    string
	capName string
	types   []string
	// pinnedBeyond counts the pinned memories past the cap: the Pinned section shows them.
	pinnedBeyond int
}

// hidden is how many of the section's memories the brief does not show.
func (sc *section) hidden() int { return sc.total - sc.shown }

// byStanding is the order of the brief's rules and preferences, and of bf recall --order
// importance: most important first, then the most recently saved.
func byStanding(a, b *Memory) int {
	return cmp.Or(cmp.Compare(b.Importance, a.Importance), b.Saved.Compare(a.Saved), cmp.Compare(a.Ref, b.Ref))
}

// counted reports whether the section is capped and leaves some of its memories out. The
// line counting them is printed inside the section; a section cut whole is counted on the
// cut line instead (see render), which costs fewer bytes than a line of its own.
func (sc *section) counted() bool { return sc.types != nil && sc.hidden() > 0 }

// restLine counts what a capped section leaves out, and why, and names the bf recall
// command that lists exactly those: the same memories in the same order, from the first
// one not shown.
func (sc *section) restLine(scope string) string {
	var why []string
	if beyond := sc.total - len(sc.items); beyond > 0 {
		why = append(why, fmt.Sprintf("%d beyond the first %s", beyond, sc.capName))
	}
	if cut := len(sc.items) - sc.shown; cut > 0 {
		why = append(why, fmt.Sprintf("%d cut for size", cut))
	}
	if sc.pinnedBeyond > 0 {
		why[0] += fmt.Sprintf(", %d of them pinned and under Pinned", sc.pinnedBeyond)
	}
	line := fmt.Sprintf("+%d more %s not shown (%s): %s", sc.hidden(), sc.what, strings.Join(why, ", "), restCommand(sc.types, scope, sc.shown))
	if sc.hidden() > maxLimit {
		line += " (50 a page: pass its next_offset as --offset for the next)"
	}
	return line
}

// restCommand is the bf recall command listing the visible memories of these types in the
// brief's order, from offset on.
func restCommand(types []string, scope string, offset int) string {
	return fmt.Sprintf("bf recall --type %s --order %s --offset %d --limit %d --no-touch --scope %s", strings.Join(types, ","), OrderImportance, offset, maxLimit, scope)
}

// Brief builds the session brief within req.Bytes bytes.
func (s *Store) Brief(ctx context.Context, req BriefRequest) (*BriefReply, error) {
	if req.Bytes < minBriefBytes || req.Bytes > maxBriefBytes {
		return nil, inputf("--bytes", "expected an integer from 256 to 1048576")
	}
	asked := req.Scope
	if asked == "" {
		asked = DefaultScope
	} else if err := checkScope(asked); err != nil {
		return nil, inputf("--scope", "%s", err)
	}
	// Sessions start more often than memories are saved: the brief clears what a killed
	// save left too (only files old enough that no save can still be writing them).
	removeLeftovers(filepath.Join(s.Brain.Root, filepath.FromSlash(Folder)))
	// The code's state (git processes) and the inbox (the search cache) need nothing from
	// the memories: they are read while the memories load. Git runs after the leftovers
	// are gone, which it would count as changes.
	var code, tasks []string
	var tasksErr error
	var side sync.WaitGroup
	side.Go(func() { code = (git{BrainRoot: s.Brain.Root, Dir: req.Repo}).Status(ctx) })
	side.Go(func() { tasks, tasksErr = s.openTasks(ctx) })
	l, err := s.Load()
	side.Wait()
	if err != nil {
		return nil, err
	}
	out := &BriefReply{Notice: notice, Scope: asked, Limit: req.Bytes, Warnings: l.Warnings}
	var live []*Memory
	for _, m := range l.All {
		if len(m.SupersededBy) == 0 && scopeDistance(asked, m.Scope) >= 0 {
			live = append(live, m)
		}
	}
	secs := map[string]*section{}
	for _, n := range priority {
		secs[n] = &section{name: n}
	}

	var rules, prefs, pins, due, recent []*Memory
	today := timestamp.Day(s.now())
	for _, m := range live {
		switch {
		case isRule(m.Type):
			rules = append(rules, m)
		case isPreference(m.Type):
			prefs = append(prefs, m)
		}
		if m.Review != "" && m.Review <= today {
			due = append(due, m)
		}
		if s.now().Sub(m.Saved).Hours() <= 24*recentDays {
			recent = append(recent, m)
		}
	}
	slices.SortFunc(rules, byStanding)
	slices.SortFunc(prefs, byStanding)
	// Rules and preferences are capped; every one beyond the cap or cut for size is counted
	// on the section's last line with the command that lists exactly those. A pinned one
	// beyond the cap is in every brief all the same, under Pinned, and the line says so.
	inSection := map[string]bool{}
	capped := func(sc *section, ms []*Memory, limit int, what, capName string, types []string) {
		sc.total, sc.what, sc.capName, sc.types = len(ms), what, capName, types
		for i, m := range ms {
			switch {
			case i < limit:
				sc.items = append(sc.items, line(m))
				inSection[m.Ref] = true
			case m.Pinned:
				sc.pinnedBeyond++
			}
		}
	}
	capped(secs["rules"], rules, maxRules, "rules", "twenty", ruleTypes)
	capped(secs["preferences"], prefs, maxPreferences, "preferences and relationships", "eight", preferenceTypes)
	for _, m := range live {
		if m.Pinned && !inSection[m.Ref] {
			pins = append(pins, m)
		}
	}
	slices.SortFunc(pins, byStanding)
	for _, m := range pins {
		secs["pinned"].items = append(secs["pinned"].items, line(m))
	}
	slices.SortFunc(due, func(a, b *Memory) int { return cmp.Or(cmp.Compare(a.Review, b.Review), cmp.Compare(a.Ref, b.Ref)) })
	for i, m := range due {
		if i == maxListed {
			break
		}
		secs["due"].items = append(secs["due"].items, fmt.Sprintf("- review due %s: %s (%s) — bf verify %s --source ...", m.Review, reply.Escape(m.Title), m.Ref, m.Ref))
	}
	for _, ln := range code {
		secs["code"].items = append(secs["code"].items, "- "+ln)
	}
	if tasksErr != nil {
		out.Warnings = append(out.Warnings, "inbox left out: "+tasksErr.Error())
	}
	secs["inbox"].items = tasks
	if cfg := s.Brain.Config; cfg != nil {
		for _, name := range slices.Sorted(maps.Keys(cfg.Brains)) {
			secs["brains"].items = append(secs["brains"].items, fmt.Sprintf("- %s (%s)", reply.Escape(name), reply.Escape(cfg.Brains[name].Path)))
		}
	}
	slices.SortFunc(recent, func(a, b *Memory) int { return cmp.Or(b.Saved.Compare(a.Saved), cmp.Compare(a.Ref, b.Ref)) })
	for i, m := range recent {
		if i == maxListed {
			break
		}
		label := ""
		if m.Unreviewed {
			label = "[unreviewed] "
		}
		secs["recent"].items = append(secs["recent"].items, fmt.Sprintf("- %s saved [%s] %s%s (%s)", timestamp.Day(m.Saved.UTC()), m.Type, label, reply.Escape(m.Title), m.Ref))
	}

	for _, sc := range secs {
		sc.shown = len(sc.items)
		if sc.types == nil {
			sc.total = len(sc.items)
		}
	}
	full := render(s.Brain.Name, asked, secs, nil, 0)
	text := full
	var cuts []Cut
	if len(full) > req.Bytes {
		cuts = nil
		for len(text) > req.Bytes {
			victim := ""
			for i := len(priority) - 1; i >= 0; i-- {
				if secs[priority[i]].shown > 0 {
					victim = priority[i]
					break
				}
			}
			if victim == "" {
				text = clip(text, req.Bytes)
				break
			}
			secs[victim].shown--
			cuts = cutList(secs)
			text = render(s.Brain.Name, asked, secs, cuts, len(full))
		}
		out.More = fmt.Sprintf("bf brief --scope %s --bytes %d", asked, max(len(full), minBriefBytes))
	}
	out.Brief, out.Bytes, out.Cut = text, len(text), cuts
	for _, n := range Print {
		sc := secs[n]
		if sc.total > 0 {
			bs := BriefSection{Name: n, Heading: headings[n], Items: sc.total, Shown: sc.shown, Beyond: sc.total - len(sc.items)}
			if sc.counted() {
				bs.Rest = restCommand(sc.types, asked, sc.shown)
			}
			out.Sections = append(out.Sections, bs)
		}
	}
	return out, nil
}

func cutList(secs map[string]*section) []Cut {
	var cuts []Cut
	for i := len(priority) - 1; i >= 0; i-- {
		sc := secs[priority[i]]
		if n := len(sc.items) - sc.shown; n > 0 {
			cuts = append(cuts, Cut{Section: sc.name, Items: n})
		}
	}
	return cuts
}

// render prints the sections in print order, leaving out empty ones.
func render(name, scope string, secs map[string]*section, cuts []Cut, full int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Brief of brain %s, scope %s\n", name, scope)
	for _, n := range Print {
		sc := secs[n]
		if sc.shown == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n", headings[n])
		for _, it := range sc.items[:sc.shown] {
			b.WriteString(it + "\n")
		}
		if sc.counted() {
			b.WriteString(sc.restLine(scope) + "\n")
		}
	}
	if len(cuts) > 0 {
		parts := make([]string, len(cuts))
		for i, c := range cuts {
			parts[i] = fmt.Sprintf("%s (%d)", headings[c.Section], c.Items)
			// A capped section cut whole has no line of its own: what lies beyond its cap
			// is counted here, so no memory of it goes without a word.
			if sc := secs[c.Section]; sc.shown == 0 && sc.total > len(sc.items) {
				parts[i] = fmt.Sprintf("%s (%d, and %d beyond the first %s)", headings[c.Section], c.Items, sc.total-len(sc.items), sc.capName)
			}
		}
		fmt.Fprintf(&b, "\nCut for size: %s. See the rest: bf brief --scope %s --bytes %d\n", strings.Join(parts, ", "), scope, max(full, minBriefBytes))
	}
	return b.String()
}

// line is one memory in the brief and in the prompt hook's context: one line whatever
// the title and body hold, their control and format characters escaped.
func line(m *Memory) string {
	body := oneLine(m.Body, bodyClip)
	label := ""
	if m.Unreviewed {
		label = "[unreviewed] "
	}
	return fmt.Sprintf("- %s%s: %s (%s)", label, reply.Escape(m.Title), reply.Escape(body), reply.Escape(m.Ref))
}

// oneLine is text on one line, its runs of space evened out, cut to n characters.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > n {
		text = string([]rune(text)[:n]) + "…"
	}
	return text
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// openTasks lists the open tasks of the brain's notes, newest notes first. A task line in
// a memory's body is part of what the memory says, not a task owed: memory notes are left out.
func (s *Store) openTasks(ctx context.Context) ([]string, error) {
	c, err := cache.Open(ctx, s.Brain)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rows, err := c.DB().QueryContext(ctx, `SELECT t.text, i.ref FROM tasks t JOIN items i ON i.id = t.item
		WHERE t.done = 0 AND NOT (`+inMemoryFolder+`) ORDER BY i.time DESC, i.ref, t.line LIMIT ?`, maxListed)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var text, ref string
		if err := rows.Scan(&text, &ref); err != nil {
			return nil, cacheErr(err)
		}
		out = append(out, fmt.Sprintf("- [ ] %s (%s)", reply.Escape(text), reply.Escape(ref)))
	}
	return out, cacheErr(rows.Err())
}
