// Command git-history is a window sensor that prints the commits of local Git repositories.
//
// Usage:
//
//	git-history START END REPO [REPO...] [--skip NAME|PATH]...
//
// START and END are ISO 8601 instants with a timezone (bf passes {{start}} and {{end}}); a
// commit is printed when its committer time lies in [START, END). Each REPO is a Git
// repository (a work tree or a bare repository) or a folder whose direct children are
// repositories; paths may start with ~ and relative ones start at the working directory,
// which bf sets to the brain root. --skip leaves out a repository by folder name, by its
// origin (github.com/OWNER/NAME) or by path.
//
// It prints one JSON array of records on stdout, or nothing at all: on any failure it exits
// 1 with an empty stdout, so bf never stores half a window. It runs the git command only;
// git reads local data and never the network.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/examples/internal/exit"
	"github.com/bfgo/bf/examples/internal/text"
	"github.com/bfgo/bf/libbf/timestamp"
)

const prog = "git-history"

// Refuse windows larger than this rather than print an answer bf may not hold: a source
// folder holds at most 100,000 records and one run's output is capped by max_bytes.
const (
	maxCommits      = 50_000
	maxFilesListed  = 50      // changed files named in a record's text; the rest are counted
	maxMessageChars = 65_536  // longer messages are cut and the record marked partial
	maxTextChars    = 100_000 // far below bf's 4,194,304-character limit
	maxTitleChars   = 300
	maxFieldBytes   = 1 << 20 // one field of git output kept in memory; the rest is dropped
	maxPathChars    = 1_000   // a file path shown in the summary
)

// GitHub writes commits made in its web interface with this committer; linking it would tie
// every such commit to a bot rather than to a person.
var botCommitters = map[string]bool{"noreply@github.com": true}

// Variables that point git at another repository than the one named with -C. A sensor
// started from a Git hook inherits them, and they would make every repository read the same.
var gitLocationVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
}

var segment = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func main() { os.Exit(run(os.Args[1:])) }

func run(argv []string) int {
	start, end, repos, skips, err := parseArgs(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\nusage: %s START END REPO [REPO...] [--skip NAME|PATH]...\n", prog, err, prog)
		return 2
	}
	records, err := collect(start, end, repos, skips)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v; nothing was printed\n", prog, err)
		return 1
	}
	if records == nil {
		records = []record{}
	}
	if err := text.WriteJSON(os.Stdout, records); err != nil {
		return 1
	}
	return 0
}

func parseArgs(argv []string) (start, end time.Time, repos, skips []string, err error) {
	positional, skips, err := exit.SplitArgs(argv, "--skip", "a value")
	if err != nil {
		return start, end, nil, nil, err
	}
	if len(positional) < 3 {
		return start, end, nil, nil, exit.Usage{Msg: "expected START, END and at least one REPO"}
	}
	if start, err = parseInstant(positional[0], "START"); err != nil {
		return
	}
	if end, err = parseInstant(positional[1], "END"); err != nil {
		return
	}
	if start.After(end) {
		return start, end, nil, nil, exit.Usage{Msg: "START must not be after END"}
	}
	return start, end, positional[2:], skips, nil
}

func parseInstant(s, name string) (time.Time, error) {
	t, err := timestamp.Parse(text.Trim(s))
	if errors.Is(err, timestamp.ErrNoZone) {
		return t, exit.Usage{Msg: name + " must carry a timezone"}
	}
	if err != nil {
		return t, exit.Usage{Msg: name + " must be an ISO 8601 timestamp with a timezone"}
	}
	return t.UTC(), nil
}

// origin is a repository's origin on github.com or gitlab.com.
type origin struct {
	key    string // host/owner/name in lowercase
	commit string // the web address of a commit, without its SHA
}

func collect(start, end time.Time, repoArgs, skips []string) ([]record, error) {
	repos, err := findRepositories(repoArgs)
	if err != nil {
		return nil, err
	}
	skipNames, skipPaths := map[string]bool{}, map[string]bool{}
	for _, s := range skips {
		skipNames[strings.ToLower(strings.TrimRight(s, "/"))] = true
		skipPaths[realPath(expandUser(s))] = true
	}
	// Everything is read before anything is printed, so a failure in the last repository
	// still leaves stdout empty.
	byID := map[string]record{}
	var order []string
	total := 0
	for _, path := range repos {
		name := repoName(path)
		if skipNames[strings.ToLower(name)] || skipPaths[realPath(path)] {
			continue // decided before running git, so a skipped broken repository is harmless
		}
		o, err := readOrigin(path)
		if err != nil {
			return nil, err
		}
		key := name
		if o != nil {
			key = o.key
		}
		if skipNames[key] {
			continue
		}
		shas, err := commitsInWindow(path, start, end, maxCommits-total)
		if err != nil {
			return nil, err
		}
		total += len(shas)
		recs, err := describeCommits(path, shas, key, o)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			// Two clones of one origin name the same commits with the same ids; keep the
			// first, which comes from the repository listed first.
			if _, ok := byID[r.ID]; !ok {
				byID[r.ID] = r
				order = append(order, r.ID)
			}
		}
	}
	out := make([]record, 0, len(order))
	for _, id := range order {
		out = append(out, byID[id])
	}
	slices.SortStableFunc(out, func(a, b record) int {
		if c := strings.Compare(a.Time, b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func expandUser(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := os.Getenv("HOME"); home != "" {
			return home + p[1:]
		}
	}
	return p
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// realPath resolves symbolic links as far as the path exists.
func realPath(p string) string {
	a := absPath(p)
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func findRepositories(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if r := realPath(p); !seen[r] {
			seen[r] = true
			out = append(out, p)
		}
	}
	for _, arg := range args {
		path := absPath(expandUser(arg))
		if !isDir(path) {
			return nil, exit.Fail("%s is not a folder", arg)
		}
		if isRepository(path) {
			add(path)
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, exit.Fail("cannot list %s (%s)", arg, text.Reason(err))
		}
		found := false
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(path, e.Name())
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink == 0 && fi.IsDir() && isRepository(p) {
				add(p)
				found = true
			}
		}
		if !found {
			return nil, exit.Fail("%s is neither a Git repository nor a folder of repositories", arg)
		}
	}
	return out, nil
}

// isRepository: a work tree holds .git (a folder, or a file for worktrees and submodules);
// a bare repository holds HEAD, objects/ and refs/ itself. Only the folder itself counts,
// so a folder nested inside some repository is not mistaken for it.
func isRepository(path string) bool {
	if _, err := os.Stat(filepath.Join(path, ".git")); err == nil {
		return true
	}
	fi, err := os.Stat(filepath.Join(path, "HEAD"))
	return err == nil && fi.Mode().IsRegular() && isDir(filepath.Join(path, "objects")) && isDir(filepath.Join(path, "refs"))
}

func repoName(path string) string {
	name := text.Decode([]byte(filepath.Base(filepath.Clean(path))))
	if strings.HasSuffix(name, ".git") && len(name) > 4 {
		name = strings.TrimSuffix(name, ".git")
	}
	if n := text.CleanLine(name); n != "" {
		return n
	}
	return "repository"
}

// readOrigin returns the repository's origin when it is on github.com or gitlab.com. The
// key is lowercase because both hosts treat owner and name without regard to case, and one
// spelling keeps ids and repo: identities the same in every clone.
func readOrigin(path string) (*origin, error) {
	out, err := git(path, []string{"config", "--get", "remote.origin.url"}, 0, 1)
	if err != nil {
		return nil, err
	}
	url := text.Trim(text.Decode(out))
	if url == "" {
		return nil, nil
	}
	return parseOrigin(url), nil
}

var (
	urlForm = regexp.MustCompile(`^(?:https?|ssh|git)://(?:[^@/]*@)?([^/:]+)(?::[0-9]+)?/(.+)$`)
	scpForm = regexp.MustCompile(`^(?:[^@/:]+@)?([^/:]+):(.+)$`) // git@host:path
)

func parseOrigin(url string) *origin {
	m := urlForm.FindStringSubmatch(url)
	if m == nil {
		if m = scpForm.FindStringSubmatch(url); m != nil && strings.HasPrefix(m[2], "/") {
			m = nil
		}
	}
	if m == nil {
		return nil
	}
	host := strings.TrimPrefix(strings.ToLower(m[1]), "www.")
	path := strings.TrimSuffix(strings.Trim(m[2], "/"), ".git")
	segments := strings.Split(path, "/")
	for _, s := range segments {
		if !segment.MatchString(s) || s == "." || s == ".." {
			return nil
		}
	}
	lower := strings.ToLower(strings.Join(segments, "/"))
	switch {
	case host == "github.com" && len(segments) == 2:
		key := "github.com/" + lower
		return &origin{key: key, commit: "https://" + key + "/commit/"}
	case host == "gitlab.com" && len(segments) >= 2: // GitLab allows nested groups
		key := "gitlab.com/" + lower
		return &origin{key: key, commit: "https://" + key + "/-/commit/"}
	}
	return nil
}

// commitsInWindow returns the SHAs of the commits reachable from branches, remote-tracking
// branches, tags and HEAD whose committer time is in [start, end). The time filter runs
// here rather than through git's --since/--until, which stop walking early when commit
// dates are out of order.
func commitsInWindow(path string, start, end time.Time, budget int) ([]string, error) {
	revs := []string{"--branches", "--remotes", "--tags"}
	head, err := git(path, []string{"rev-parse", "--quiet", "--verify", "HEAD^{commit}"}, 0, 1)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) > 0 {
		revs = append(revs, "HEAD") // a detached HEAD is reachable from no branch
	}
	var shas []string
	args := append(append([]string{"rev-list", "--timestamp"}, revs...), "--")
	err = gitStream(path, args, nil, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				continue
			}
			ts, sha, _ := bytes.Cut(line, []byte(" "))
			secs, err := strconv.ParseInt(string(ts), 10, 64)
			if err != nil {
				return exit.Fail("unexpected output from git rev-list in %s", path)
			}
			t := time.Unix(secs, 0)
			if !t.Before(start) && t.Before(end) {
				shas = append(shas, string(sha))
				if len(shas) > budget {
					return exit.Fail("more than %d commits fall in this window; collect a narrower window with bf collect --since and --until", maxCommits)
				}
			}
		}
		return sc.Err()
	})
	return shas, err
}

// commit holds the fields git log prints for one commit, each with whether it was cut.
type commit [9]field

type field struct {
	value string
	cut   bool
}

const (
	fSHA = iota
	fParents
	fAuthorName
	fAuthorEmail
	fAuthorTime
	fCommitterName
	fCommitterEmail
	fCommitterTime
	fMessage
)

func describeCommits(path string, shas []string, key string, o *origin) ([]record, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	stdin := []byte(strings.Join(shas, "\n") + "\n")
	files, err := changedFiles(path, stdin)
	if err != nil {
		return nil, err
	}
	var records []record
	var row []field
	var recErr error
	err = gitFields(path, []string{
		"log", "--no-walk=unsorted", "--stdin", "--no-show-signature", "--encoding=UTF-8", "-z",
		"--format=%H%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B",
	}, stdin, func(f field) {
		row = append(row, f)
		if len(row) < len(commit{}) {
			return
		}
		// With -z a NUL ends each commit, so the message field ends there too.
		var c commit
		copy(c[:], row)
		row = nil
		r, err := makeRecord(c, key, o, files)
		if err != nil && recErr == nil {
			recErr = err
		}
		records = append(records, r)
	})
	if err != nil {
		return nil, err
	}
	if recErr != nil {
		return nil, recErr
	}
	for _, f := range row {
		if f.value != "" {
			return nil, exit.Fail("unexpected output from git log in %s", path)
		}
	}
	if len(records) != len(shas) {
		return nil, exit.Fail("git log in %s described %d of %d commits", path, len(records), len(shas))
	}
	return records, nil
}

type changes struct {
	count  int
	listed []string
}

// changedFiles returns, per commit, its first maxFilesListed changes against its first
// parent and how many there are. Merge commits list nothing, as in git log.
func changedFiles(path string, stdin []byte) (map[string]*changes, error) {
	out := map[string]*changes{}
	var current string
	started := false
	var pending []string // a status, then the one or two paths it takes
	err := gitFields(path, []string{"diff-tree", "--stdin", "-z", "-r", "--root", "-M", "--name-status"}, stdin, func(f field) {
		value := f.value
		if !started || (len(pending) == 0 && utf8.RuneCountInString(value) >= 40) {
			// A status is one letter and at most three digits, so a 40- or 64-character
			// token where a status could start is the next commit's id.
			current, started = value, true
			out[current] = &changes{}
			return
		}
		pending = append(pending, value)
		need := 2
		if strings.HasPrefix(pending[0], "R") || strings.HasPrefix(pending[0], "C") {
			need = 3
		}
		if len(pending) < need {
			return
		}
		entry := out[current]
		entry.count++
		if len(entry.listed) < maxFilesListed {
			status, _ := text.Cut(pending[0], 1)
			shown := make([]string, 0, 2)
			for _, p := range pending[1:] {
				shown = append(shown, text.Clip(p, maxPathChars))
			}
			entry.listed = append(entry.listed, status+" "+strings.Join(shown, " -> "))
		}
		pending = nil
	})
	return out, err
}

// record is one printed record, its keys in the order they are printed.
type record struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Text       string     `json:"text"`
	Time       string     `json:"time"`
	Links      []string   `json:"links"`
	Attributes attributes `json:"attributes"`
	URL        string     `json:"url,omitempty"`
}

type attributes struct {
	Repo      string `json:"repo"`
	SHA       string `json:"sha"`
	Author    string `json:"author"`
	Authored  string `json:"authored"`
	Files     int    `json:"files"`
	Committer string `json:"committer,omitempty"`
	Merge     bool   `json:"merge,omitempty"`
	Partial   bool   `json:"partial,omitempty"`
}

var paragraphBreak = regexp.MustCompile(`\n[ \t]*\n`)

func makeRecord(c commit, key string, o *origin, files map[string]*changes) (record, error) {
	sha := c[fSHA].value
	parents := strings.Fields(c[fParents].value)
	message := strings.Trim(c[fMessage].value, "\n")
	message, cut := text.Cut(message, maxMessageChars)
	partial := c[fMessage].cut || cut

	// The subject is the first paragraph, joined into one line as git log --oneline shows it.
	subject := paragraphBreak.Split(message, 2)[0]
	title := text.Clip(text.CleanLine(subject), maxTitleChars)
	if title == "" {
		short, _ := text.Cut(sha, 12)
		title = "Commit " + short
	}

	ch := files[sha]
	if ch == nil {
		ch = &changes{}
	}
	var summary string
	switch {
	case len(parents) > 1:
		summary = fmt.Sprintf("Merge of %d parents.", len(parents))
	case ch.count > 0:
		summary = fmt.Sprintf("Files changed (%d):\n", ch.count) + strings.Join(ch.listed, "\n")
		if ch.count > len(ch.listed) {
			summary += fmt.Sprintf("\n… and %d more", ch.count-len(ch.listed))
		}
	default:
		summary = "No files changed."
	}
	body := text.Trim(message + "\n\n" + summary)
	if b, cut := text.Cut(body, maxTextChars); cut {
		body, partial = b, true
	}

	authorEmail := emailIdentity(c[fAuthorEmail].value)
	committerEmail := emailIdentity(c[fCommitterEmail].value)
	links := []string{}
	if authorEmail != "" {
		links = append(links, "person:email/"+authorEmail)
	}
	if committerEmail != "" && committerEmail != authorEmail && !botCommitters[committerEmail] {
		links = append(links, "person:email/"+committerEmail)
	}
	if o != nil {
		links = append(links, "repo:"+o.key)
	}
	slices.Sort(links)
	links = slices.Compact(links)

	authored, err := iso(c[fAuthorTime].value)
	if err != nil {
		return record{}, err
	}
	committed, err := iso(c[fCommitterTime].value)
	if err != nil {
		return record{}, err
	}
	attrs := attributes{
		Repo:     key,
		SHA:      sha,
		Author:   text.Clip(text.CleanLine(c[fAuthorName].value), maxTitleChars),
		Authored: authored,
		Files:    ch.count,
		Merge:    len(parents) > 1,
		Partial:  partial,
	}
	if committer := text.Clip(text.CleanLine(c[fCommitterName].value), maxTitleChars); committer != attrs.Author {
		attrs.Committer = committer
	}
	r := record{
		ID:    key + "@" + sha,
		Title: title,
		Text:  body,
		// Committer time, like the window filter: it is when the commit entered this
		// history, so a commit rebased or merged today lands in today's window even when it
		// was first written weeks ago (that author time is kept in attributes.authored).
		Time:       committed,
		Links:      links,
		Attributes: attrs,
	}
	if o != nil {
		r.URL = o.commit + sha
	}
	return r, nil
}

// emailIdentity returns a lowercase address usable in person:email/..., or "" when git holds
// none that an identity can carry (no white space, control or format characters; 254
// characters at most, the longest address mail allows).
func emailIdentity(raw string) string {
	e := strings.ToLower(text.Trim(raw))
	if !strings.Contains(e, "@") || utf8.RuneCountInString(e) > 254 {
		return ""
	}
	for _, r := range e {
		if text.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ""
		}
	}
	return e
}

func iso(unix string) (string, error) {
	secs, err := strconv.ParseInt(strings.TrimSpace(unix), 10, 64)
	if err != nil || secs < -62135596800 || secs > 253402300799 {
		return "", exit.Fail("git printed a commit time that is not a Unix time")
	}
	return time.Unix(secs, 0).UTC().Format("2006-01-02T15:04:05Z"), nil
}

// --- running git ---

func gitCommand(path string, args []string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", path, "-c", "color.ui=never"}, args...)...)
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(gitLocationVars, k) {
			env = append(env, kv)
		}
	}
	// Never wait for a password (stdin is closed anyway), and never lock a repository
	// someone works in just to read it.
	cmd.Env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.Stderr = os.Stderr // bf keeps the sensor's stderr in its log
	return cmd
}

// git runs git and returns its stdout; an exit status outside ok fails.
func git(path string, args []string, ok ...int) ([]byte, error) {
	cmd := gitCommand(path, args)
	out, err := cmd.Output()
	var exited *exec.ExitError
	switch {
	case errors.As(err, &exited):
		if !slices.Contains(ok, exited.ExitCode()) {
			return nil, exit.Fail("git failed reading %s", path)
		}
	case err != nil:
		return nil, exit.Fail("cannot run git (%s)", text.Reason(err))
	}
	return out, nil
}

// gitStream runs git with stdin and hands its stdout to read as it arrives. When read
// fails, git is stopped at once; git failing fails the run.
func gitStream(path string, args []string, stdin []byte, read func(io.Reader) error) error {
	cmd := gitCommand(path, args)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return exit.Fail("cannot run git (%s)", text.Reason(err))
	}
	if err := cmd.Start(); err != nil {
		return exit.Fail("cannot run git (%s)", text.Reason(err))
	}
	if rerr := read(out); rerr != nil {
		cmd.Process.Kill() // the caller gave up (too many commits): stop git now
		cmd.Wait()
		return rerr
	}
	if err := cmd.Wait(); err != nil {
		return exit.Fail("git failed reading %s", path)
	}
	return nil
}

// gitFields calls each with every NUL-terminated field git prints. A field longer than
// maxFieldBytes keeps its start and reports cut, so one huge commit message cannot exhaust
// memory.
func gitFields(path string, args []string, stdin []byte, each func(field)) error {
	return gitStream(path, args, stdin, func(r io.Reader) error {
		var part []byte
		cut := false
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			chunk := buf[:n]
			for len(chunk) > 0 {
				piece, rest, ended := bytes.Cut(chunk, []byte{0})
				if room := maxFieldBytes - len(part); room > 0 {
					keep := piece[:min(room, len(piece))]
					part = append(part, keep...)
					cut = cut || len(keep) < len(piece)
				} else if len(piece) > 0 {
					cut = true
				}
				if !ended {
					break
				}
				each(field{text.Decode(part), cut})
				part, cut = part[:0], false
				chunk = rest
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		if len(part) > 0 {
			each(field{text.Decode(part), cut})
		}
		return nil
	})
}
