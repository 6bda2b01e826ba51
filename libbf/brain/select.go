package brain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Purpose is what a command does with the brains it selects; it decides the last selection
// rule and whether brains: references are added.
type Purpose int

const (
	// Retrieval: search, read, export, mcp, status. Without an explicit or enclosing brain
	// it selects every registered brain present on this machine.
	Retrieval Purpose = iota + 1
	// Checks: validate, eval, build, status --watch. Without an explicit or enclosing brain
	// it selects the only registered brain present, else asks for --brain.
	Checks
	// Execution: collect, run, update, watch. It needs --brain, BF_BRAIN or the enclosing
	// brain, a NAME must be registered or be the enclosing brain's, and brains:
	// references are never added.
	Execution
)

func (p Purpose) String() string {
	switch p {
	case Retrieval:
		return "retrieval"
	case Checks:
		return "checks"
	case Execution:
		return "execution"
	}
	return fmt.Sprintf("Purpose(%d)", int(p))
}

// Request is the input of selection besides the environment.
type Request struct {
	Purpose Purpose
	// Brain is the --brain value, used only when BrainGiven is true.
	Brain string
	// BrainGiven says --brain was on the command line, even with an empty value, which is
	// invalid input rather than "no choice".
	BrainGiven bool
	// Unloaded selects a brain whose bf.yaml does not load too, with Brain.ConfigErr set,
	// for commands that need only its folder (bf queue lists its queue).
	Unloaded bool
}

// Problem is a brain that was skipped, with the reason; replies list these under
// problems. Brain and File are set when known (File is relative to that brain).
type Problem struct {
	Brain string `json:"brain,omitempty"`
	Error string `json:"error"`
	File  string `json:"file,omitempty"`
}

// Selection is the brains a command works on, in a stable order (selected roots first,
// then their references in name order), each physical folder once, and the brains that
// were skipped.
type Selection struct {
	Brains   []*Brain
	Problems []Problem
}

// Problem messages, also used by tests.
const (
	msgAbsent    = "registered brain folder is absent on this machine; restore it, or register the brain again where it now lives"
	msgDuplicate = "ambiguous brain name; several folders claim it, so none of them is searched: rename one in its bf.yaml or pass --brain PATH"
)

// Select applies the selection rules with the process environment.
func Select(req Request) (*Selection, error) { return System().Select(req) }

// Select picks brains with the first rule that applies:
//
//  1. --brain NAME|PATH; 2. BF_BRAIN (empty means unset); 3. the enclosing brain, the
//     nearest folder at or above the working directory with a bf.yaml (it must be a
//     regular file you own, in a folder you own, or selection fails);
//  4. otherwise Retrieval takes every registered brain present, Checks the only one
//     present, and Execution fails.
//
// A value containing / or starting with . or ~ is a path (relative to the working
// directory). Another value is a NAME, looked up in the registry, then as the enclosing
// brain or one of its brains: references, then as a folder in the working directory.
// An explicit choice that cannot be used fails; it never falls through to a later rule.
//
// Retrieval and Checks then add each selected root's direct brains: references (relative
// paths start at the declaring brain's root). A reference that is missing, inaccessible,
// invalid or declares another name becomes a Problem; two folders claiming one name are
// both dropped and reported; one folder reached by two paths is kept once.
func (e Env) Select(req Request) (*Selection, error) {
	switch req.Purpose {
	case Retrieval, Checks, Execution:
	default:
		panic("brain: Select needs a Purpose")
	}
	s := &selector{env: e, purpose: req.Purpose, unloaded: req.Unloaded}
	roots, problems, err := s.roots(req)
	if err != nil {
		return nil, err
	}
	sel := &Selection{Brains: roots, Problems: problems}
	if req.Purpose != Execution {
		s.expand(sel)
	}
	if len(sel.Brains) == 0 {
		return nil, failf(nil, "no brain can answer: %s", summary(sel.Problems))
	}
	return sel, nil
}

type selector struct {
	env      Env
	purpose  Purpose
	unloaded bool
	reg      *Registry
}

// open opens a selected root, keeping one whose bf.yaml does not load when asked to.
func (s *selector) open(dir string) (*Brain, error) { return s.env.open(dir, s.unloaded) }

// registry loads the registry on first use, so --brain PATH and the enclosing brain work
// even when the registry file is broken.
func (s *selector) registry() (*Registry, error) {
	if s.reg == nil {
		r, err := s.env.LoadRegistry()
		if err != nil {
			return nil, err
		}
		s.reg = r
	}
	return s.reg, nil
}

func (s *selector) roots(req Request) ([]*Brain, []Problem, error) {
	value, source := "", ""
	switch {
	case req.BrainGiven:
		value, source = req.Brain, "--brain"
		if value == "" {
			return nil, nil, invalidf("--brain: empty value; pass a brain NAME or PATH, or leave the flag out")
		}
	case s.env.getenv("BF_BRAIN") != "":
		value, source = s.env.getenv("BF_BRAIN"), "BF_BRAIN"
	}
	if value != "" {
		if why := checkPathText(value); why != "" {
			return nil, nil, invalidf("%s: a brain NAME or PATH %s", source, why)
		}
		b, err := s.locate(value)
		if err != nil {
			return nil, nil, withSource(source, err)
		}
		return []*Brain{b}, nil, nil
	}
	dir, ok, err := s.env.enclosing()
	if err != nil {
		return nil, nil, err
	}
	if dir != "" {
		if !ok {
			return nil, nil, failf(nil, "%s: bf.yaml is not a regular file owned by you; pass --brain PATH to select a brain", dir)
		}
		b, err := s.open(dir)
		if err != nil {
			return nil, nil, err
		}
		return []*Brain{b}, nil, nil
	}
	return s.automatic()
}

// isPath says whether a --brain or BF_BRAIN value names a folder rather than a brain.
func isPath(v string) bool {
	return strings.Contains(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~")
}

// locate resolves one explicit --brain or BF_BRAIN value.
func (s *selector) locate(value string) (*Brain, error) {
	if isPath(value) {
		if strings.HasPrefix(value, "~") && value != "~" && !strings.HasPrefix(value, "~/") {
			return nil, invalidf("only ~ and ~/ are expanded in brain paths; write the full path")
		}
		return s.open(value)
	}
	name := value
	reg, err := s.registry()
	if err != nil {
		return nil, err
	}
	regPath, registered, err := reg.Resolve(name)
	if err != nil {
		return nil, err
	}
	local, viaRef, err := s.claim(name, registered)
	if err != nil {
		return nil, err
	}
	if registered {
		if local != nil {
			info, statErr := os.Stat(regPath)
			if statErr != nil || identityOf(info) != local.ID {
				where := "enclosing brain"
				if viaRef {
					where = "enclosing brain's brains: reference"
				}
				return nil, failf(nil, "ambiguous brain name %s: the registry and the %s name different folders; pass --brain PATH", name, where)
			}
		}
		if _, err := os.Stat(regPath); absent(err) {
			return nil, failf(err, "registered brain %s is absent on this machine (%s); restore the folder, or register the brain again where it now lives", name, regPath)
		}
		b, err := s.open(regPath)
		if err != nil {
			return nil, err
		}
		if b.ConfigErr != nil {
			return b, nil
		}
		if b.Name != name {
			return nil, failf(nil, "%s is registered as %s but its bf.yaml names %s; register it again with bf register", b.Root, name, b.Name)
		}
		return b, nil
	}
	if s.purpose == Execution && (local == nil || viaRef) {
		return nil, failf(nil, "brain %s is neither registered nor the enclosing brain; pass --brain PATH", name)
	}
	if local != nil {
		return local, nil
	}
	// Last: a folder of that name in the working directory.
	wd, err := s.env.getwd()
	if err != nil {
		return nil, err
	}
	dir := wd + string(os.PathSeparator) + name
	if _, err := os.Stat(dir); absent(err) {
		return nil, failf(err, "no brain named %s: it is not registered, not the enclosing brain or one of its brains: references, and the working directory has no folder of that name; register it or pass --brain PATH", name)
	}
	return s.env.Open(dir)
}

// claim returns the brain the working directory's enclosing brain gives to name: itself
// when it is so named, or its brains: reference of that name (viaRef). An enclosing
// bf.yaml you do not own claims nothing. An enclosing brain that cannot be opened claims
// nothing when the registry knows the name, and fails otherwise. A broken reference of
// that name fails: it may mean another folder than the registry does.
func (s *selector) claim(name string, registered bool) (b *Brain, viaRef bool, err error) {
	dir, ok, err := s.env.enclosing()
	if err != nil || dir == "" || !ok {
		return nil, false, err
	}
	local, err := s.env.Open(dir)
	if err != nil {
		if registered {
			return nil, false, nil
		}
		return nil, false, err
	}
	if local.Name == name {
		return local, false, nil
	}
	decl, declared := local.Config.Brains[name]
	if !declared {
		return nil, false, nil
	}
	path := ""
	if decl != nil {
		path = decl.Path
	}
	t, why := s.reference(local, name, path)
	if why != "" {
		return nil, false, failf(nil, "%s: the enclosing bf.yaml declares brains.%s, which %s; fix it or pass --brain PATH", local.Root, name, why)
	}
	return t, true, nil
}

// reference opens brains.NAME of b, or says why it cannot be used ("is missing", …).
func (s *selector) reference(b *Brain, name, path string) (*Brain, string) {
	if why := checkPathText(path); why != "" {
		return nil, "is invalid: path " + why
	}
	abs, err := s.env.abs(path, b.Root)
	if err != nil {
		return nil, "is inaccessible: " + err.Error()
	}
	info, err := os.Stat(abs)
	switch {
	case absent(err):
		return nil, "is missing: the folder does not exist"
	case err != nil:
		return nil, "is inaccessible: " + reason(err)
	case !info.IsDir():
		return nil, "is invalid: not a folder"
	}
	t, err := s.env.Open(abs)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return nil, "is inaccessible: " + err.Error()
	case err != nil:
		return nil, "is invalid: " + err.Error()
	case t.Name != name:
		return nil, "has a different name: its bf.yaml names " + t.Name
	}
	return t, ""
}

// automatic is rule 4.
func (s *selector) automatic() ([]*Brain, []Problem, error) {
	if s.purpose == Execution {
		return nil, nil, failf(nil, "pass --brain PATH or run inside the brain; registered brains are selected for retrieval only")
	}
	reg, err := s.registry()
	if err != nil {
		return nil, nil, err
	}
	var present, missing []string
	var problems []Problem
	paths := map[string]string{}
	for _, name := range reg.Names() {
		p, _, err := reg.Resolve(name)
		if err != nil {
			problems = append(problems, Problem{Brain: name, Error: err.Error()})
			continue
		}
		paths[name] = p
		if _, err := os.Stat(p); absent(err) {
			missing = append(missing, name)
			continue
		}
		present = append(present, name)
	}
	if s.purpose == Checks {
		switch len(present) {
		case 0:
			return nil, nil, failf(nil, "no brain selected; pass --brain NAME|PATH, run inside a brain, or register one with bf register")
		case 1:
			b, err := s.env.Open(paths[present[0]])
			if err != nil {
				return nil, nil, err
			}
			if b.Name != present[0] {
				return nil, nil, failf(nil, "%s is registered as %s but its bf.yaml names %s; register it again with bf register", b.Root, present[0], b.Name)
			}
			return []*Brain{b}, nil, nil
		}
		return nil, nil, failf(nil, "several registered brains are present (%s); pass --brain NAME", strings.Join(present, ", "))
	}
	var roots []*Brain
	for _, name := range present {
		b, err := s.env.Open(paths[name])
		switch {
		case err != nil:
			problems = append(problems, Problem{Brain: name, Error: "registered brain cannot be opened: " + err.Error()})
		case b.Name != name:
			problems = append(problems, Problem{Brain: name, Error: "registered brain's bf.yaml names " + b.Name + "; register it again with bf register"})
		default:
			roots = append(roots, b)
		}
	}
	for _, name := range missing {
		problems = append(problems, Problem{Brain: name, Error: msgAbsent})
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Brain, b.Brain) })
	if len(roots) == 0 {
		switch {
		case len(reg.Brains) == 0:
			return nil, nil, failf(nil, "no brain selected; pass --brain NAME|PATH, run inside a brain, or register one with bf register")
		case len(missing) == len(reg.Brains):
			return nil, nil, failf(nil, "registered brains are absent on this machine: %s; restore them or register them again where they now live", strings.Join(missing, ", "))
		}
		return nil, nil, failf(nil, "no registered brain can answer: %s", summary(problems))
	}
	return roots, problems, nil
}

// expand adds each root's direct brains: references, keeps each physical folder once, and
// drops every folder of a name that several folders claim.
func (s *selector) expand(sel *Selection) {
	var list []*Brain
	seen := map[Identity]bool{}
	claims := map[string][]Identity{}
	add := func(b *Brain) {
		if seen[b.ID] {
			return
		}
		seen[b.ID] = true
		list = append(list, b)
		claims[b.Name] = append(claims[b.Name], b.ID)
	}
	roots := sel.Brains
	for _, b := range roots {
		add(b)
	}
	for _, b := range roots {
		names := make([]string, 0, len(b.Config.Brains))
		for n := range b.Config.Brains {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			path := ""
			if d := b.Config.Brains[n]; d != nil {
				path = d.Path
			}
			t, why := s.reference(b, n, path)
			if why != "" {
				sel.Problems = append(sel.Problems, Problem{Brain: b.Name, File: "bf.yaml", Error: "brains." + n + ": referenced brain " + why})
				continue
			}
			add(t)
		}
	}
	excluded := map[Identity]bool{}
	names := make([]string, 0, len(claims))
	for n := range claims {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if ids := claims[n]; len(ids) > 1 {
			for _, id := range ids {
				excluded[id] = true
			}
			sel.Problems = append(sel.Problems, Problem{Brain: n, Error: msgDuplicate})
		}
	}
	sel.Brains = slices.DeleteFunc(list, func(b *Brain) bool { return excluded[b.ID] })
}

// withSource prefixes an error with the flag or variable it came from, keeping its kind.
func withSource(source string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Kind: e.Kind, Msg: source + ": " + e.Error(), Err: e.Err}
	}
	return failf(err, "%s: %s", source, err.Error())
}

func summary(problems []Problem) string {
	parts := make([]string, 0, len(problems))
	for _, p := range problems {
		if p.Brain != "" {
			parts = append(parts, p.Brain+": "+p.Error)
		} else {
			parts = append(parts, p.Error)
		}
	}
	if len(parts) == 0 {
		return "nothing was selected"
	}
	return strings.Join(parts, "; ")
}
