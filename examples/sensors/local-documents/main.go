// Command local-documents is a snapshot sensor that prints the text documents under one
// folder.
//
// Usage:
//
//	local-documents LABEL ROOT [--exclude GLOB]...
//
// Every regular file under ROOT whose name ends in .md, .markdown, .txt, .rst or .org (in
// any letter case) becomes one record with the id LABEL:relative/path. Skipped without a
// word: names starting with "." (files and folders), symbolic links, anything an --exclude
// GLOB matches. Skipped and counted on stderr: files over 1 MiB, files that are not UTF-8
// text, and names bf cannot use in an id. ROOT may start with ~; a relative ROOT starts at
// the working directory, which bf sets to the brain root.
//
// A snapshot sensor prints the whole catalog every time: bf removes the records of files
// that are no longer printed. So any error reading the tree ends the run with exit status 1
// and an empty stdout, rather than a shorter list that would delete records.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/examples/internal/exit"
	"github.com/bfgo/bf/examples/internal/text"
)

const (
	prog          = "local-documents"
	maxFileBytes  = 1 << 20 // bigger files are skipped, so a record's text is never cut
	maxDocuments  = 50_000  // a source folder holds at most 100,000 records
	maxTitleChars = 300
)

var (
	extensions = []string{".md", ".markdown", ".txt", ".rst", ".org"}
	markdown   = []string{".md", ".markdown"}
	label      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	fence      = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	orgTitle   = regexp.MustCompile(`(?i)^#\+title:` + space + `*(.*)$`)
	orgHeading = regexp.MustCompile(`^\*+` + space + `+(.*)$`)
)

// space is the class of white space characters, as a line splitter sees them.
const space = `[\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// record is one printed record, its keys in the order they are printed.
type record struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Text       string     `json:"text"`
	Time       string     `json:"time"`
	URL        string     `json:"url"`
	Attributes attributes `json:"attributes"`
}

type attributes struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

func main() { os.Exit(run(os.Args[1:])) }

func run(argv []string) int {
	lbl, root, excludes, err := parseArgs(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\nusage: %s LABEL ROOT [--exclude GLOB]...\n", prog, err, prog)
		return 2
	}
	c := &collector{label: lbl, rootArg: root, skipped: map[string]int{}}
	for _, g := range excludes {
		c.excludes = append(c.excludes, globRegexp(g))
	}
	records, err := c.collect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v; nothing was printed\n", prog, err)
		return 1
	}
	if len(c.skipped) > 0 {
		// Goes to the sensor's log: why a file the user expects has no record.
		var parts []string
		for why, n := range c.skipped {
			parts = append(parts, fmt.Sprintf("%s: %d", why, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(os.Stderr, "%s: skipped %s\n", prog, strings.Join(parts, ", "))
	}
	if err := text.WriteJSON(os.Stdout, records); err != nil {
		return 1
	}
	return 0
}

func parseArgs(argv []string) (lbl, root string, excludes []string, err error) {
	positional, excludes, err := exit.SplitArgs(argv, "--exclude", "a GLOB")
	if err != nil {
		return "", "", nil, err
	}
	if len(positional) != 2 {
		return "", "", nil, exit.Usage{Msg: "expected LABEL and ROOT"}
	}
	lbl, root = positional[0], positional[1]
	if !label.MatchString(lbl) {
		return "", "", nil, exit.Usage{Msg: "LABEL must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"}
	}
	if root == "" {
		return "", "", nil, exit.Usage{Msg: "ROOT must not be empty"}
	}
	return lbl, root, excludes, nil
}

// globRegexp turns a shell GLOB into a regular expression for the whole string: * matches
// any run of characters, / included, ? one character, [...] and [!...] a set.
func globRegexp(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	rs := []rune(g)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			set := rs[i+1 : j]
			i = j
			var cls strings.Builder
			if len(set) > 0 && set[0] == '!' {
				cls.WriteString("^")
				set = set[1:]
			}
			for k := 0; k < len(set); k++ {
				if k+2 < len(set) && set[k+1] == '-' {
					if set[k] <= set[k+2] {
						cls.WriteString(regexp.QuoteMeta(string(set[k])) + "-" + regexp.QuoteMeta(string(set[k+2])))
					}
					k += 2
					continue
				}
				cls.WriteString(classChar(set[k]))
			}
			switch {
			case cls.Len() == 0:
				b.WriteString(`[^\x00-\x{10FFFF}]`) // an empty set matches nothing
			case cls.String() == "^":
				b.WriteString(`.`)
			default:
				b.WriteString("[" + cls.String() + "]")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

func classChar(r rune) string {
	switch r {
	case '\\', ']', '[', '^', '-':
		return `\` + string(r)
	}
	return regexp.QuoteMeta(string(r))
}

type collector struct {
	label, rootArg string
	excludes       []*regexp.Regexp
	records        []record
	skipped        map[string]int
}

// excluded: a GLOB matches a file or folder by its path below ROOT ("drafts/*.md") or by
// its name alone ("*.tmp", "archive"); an excluded folder hides everything below it.
// Matching is case-sensitive on every system, so a brain gives the same catalog on macOS as
// on Linux.
func (c *collector) excluded(rel, name string) bool {
	for _, g := range c.excludes {
		if g.MatchString(rel) || g.MatchString(name) {
			return true
		}
	}
	return false
}

// usableName: bf ids are valid Unicode without control characters; a name that is not
// cannot name a record.
func usableName(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	return !strings.ContainsFunc(name, unicode.IsControl)
}

// shown is the path of rel as the user gave ROOT, for messages.
func (c *collector) shown(rel string) string {
	if rel == "" {
		if strings.HasSuffix(c.rootArg, "/") {
			return c.rootArg
		}
		return c.rootArg + "/"
	}
	return filepath.Join(c.rootArg, rel)
}

func (c *collector) collect() ([]record, error) {
	root := c.rootArg
	if root == "~" || strings.HasPrefix(root, "~/") {
		if home := os.Getenv("HOME"); home != "" {
			root = home + root[1:]
		}
	}
	root, _ = filepath.Abs(root)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, exit.Fail("%s is not a folder", c.rootArg)
	}
	if err := c.walk(root, ""); err != nil {
		return nil, err
	}
	slices.SortFunc(c.records, func(a, b record) int { return strings.Compare(a.ID, b.ID) })
	if c.records == nil {
		c.records = []record{}
	}
	return c.records, nil
}

func (c *collector) walk(folder, relFolder string) error {
	f, err := os.Open(folder)
	if err != nil {
		return exit.Fail("cannot list %s (%s)", c.shown(relFolder), text.Reason(err))
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return exit.Fail("cannot list %s (%s)", c.shown(relFolder), text.Reason(err))
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasPrefix(name, ".") {
			continue
		}
		rel := name
		if relFolder != "" {
			rel = relFolder + "/" + name
		}
		if c.excluded(rel, name) {
			continue
		}
		path := filepath.Join(folder, name)
		fi, err := os.Lstat(path)
		if err != nil {
			return exit.Fail("cannot inspect %s (%s)", c.shown(rel), text.Reason(err))
		}
		mode := fi.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			continue // a link could lead outside ROOT or into a loop
		case mode.IsDir():
			if !usableName(name) {
				c.skipped["folders with unusable names"]++
				continue
			}
			if err := c.walk(path, rel); err != nil {
				return err
			}
			continue
		}
		if !mode.IsRegular() || !hasSuffixFold(name, extensions) {
			continue
		}
		if !usableName(name) {
			c.skipped["files with unusable names"]++
			continue
		}
		if fi.Size() > maxFileBytes {
			c.skipped["files over 1 MiB"]++
			continue
		}
		rec, err := c.readDocument(path, rel, name)
		if err != nil {
			return err
		}
		if rec != nil {
			c.records = append(c.records, *rec)
			if len(c.records) > maxDocuments {
				return exit.Fail("more than %d documents under %s; pick a narrower ROOT or add --exclude", maxDocuments, c.rootArg)
			}
		}
	}
	return nil
}

func hasSuffixFold(name string, suffixes []string) bool {
	lower := strings.ToLower(name)
	for _, s := range suffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	return false
}

func (c *collector) readDocument(path, rel, name string) (*record, error) {
	// Opened without following links and checked again through the open file, so a file
	// swapped for a link or a pipe after the listing is never read.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT):
			return nil, nil // removed while we walked: it is gone, like the files never seen
		case errors.Is(err, syscall.ELOOP):
			return nil, nil // became a symbolic link since the listing
		}
		return nil, exit.Fail("cannot read %s (%s)", c.shown(rel), text.Reason(err))
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, exit.Fail("cannot read %s (%s)", c.shown(rel), text.Reason(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, exit.Fail("cannot read %s (%s)", c.shown(rel), text.Reason(err))
	}
	switch {
	case len(data) > maxFileBytes:
		c.skipped["files over 1 MiB"]++
		return nil, nil
	case bytes.IndexByte(data, 0) >= 0:
		c.skipped["binary files"]++ // NUL is valid UTF-8 but never appears in a text document
		return nil, nil
	case !utf8.Valid(data):
		c.skipped["files not in UTF-8"]++
		return nil, nil
	}
	body := strings.TrimPrefix(string(data), "\ufeff") // a byte order mark is not content
	// The modification time is the event: when the document last changed. It is not also
	// given as attributes.updated, because bf keeps a stored record whose updated time is
	// newer, and restoring an older copy of a file (with its old time) would then leave the
	// newer text in place.
	mtime := fi.ModTime().UTC().Truncate(time.Microsecond)
	return &record{
		ID:         c.label + ":" + rel,
		Title:      titleOf(body, name),
		Text:       body,
		Time:       mtime.Format("2006-01-02T15:04:05.000000Z"),
		URL:        fileURL(path),
		Attributes: attributes{Path: rel, Bytes: len(data)},
	}, nil
}

// fileURL is the file:// address of an absolute path, percent-encoding every byte but
// letters, digits, "_.-~" and "/".
func fileURL(path string) string {
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// splitLines splits at every line boundary a text reader knows: \n, \r\n, \r, \v, \f, the
// separators \x1c-\x1e, U+0085, U+2028 and U+2029.
func splitLines(s string) []string {
	var lines []string
	rs := []rune(s)
	var cur strings.Builder
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			fallthrough
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func titleOf(body, name string) string {
	lines := splitLines(body)
	var found string
	switch {
	case hasSuffixFold(name, markdown):
		found = markdownTitle(lines)
	case hasSuffixFold(name, []string{".org"}):
		found = orgTitleOf(lines)
	default:
		found = firstLine(lines)
	}
	if t := text.Clip(text.CleanLine(found), maxTitleChars); t != "" {
		return t
	}
	if t := text.Clip(text.CleanLine(name), maxTitleChars); t != "" {
		return t
	}
	return "document"
}

// markdownTitle is the first ATX heading outside front matter and fenced code, else the
// first non-blank line after the front matter.
func markdownTitle(lines []string) string {
	if len(lines) > 0 && text.Trim(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if t := text.Trim(lines[i]); t == "---" || t == "..." {
				lines = lines[i+1:]
				break
			}
		}
	}
	open := ""
	for _, line := range lines {
		m := fence.FindStringSubmatch(line)
		if open != "" {
			if m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) {
				open = ""
			}
			continue
		}
		if m != nil {
			open = m[1]
			continue
		}
		if h := atxHeading.FindStringSubmatch(line); h != nil && text.Trim(h[2]) != "" {
			return h[2]
		}
	}
	return firstLine(lines)
}

func orgTitleOf(lines []string) string {
	for _, line := range lines {
		if m := orgTitle.FindStringSubmatch(line); m != nil && text.Trim(m[1]) != "" {
			return m[1]
		}
	}
	for _, line := range lines {
		if m := orgHeading.FindStringSubmatch(line); m != nil && text.Trim(m[1]) != "" {
			return m[1]
		}
	}
	var rest []string
	for _, line := range lines {
		if !strings.HasPrefix(line, "#+") {
			rest = append(rest, line)
		}
	}
	return firstLine(rest)
}

func firstLine(lines []string) string {
	for _, line := range lines {
		if t := text.Trim(line); t != "" && !adornment(t) {
			return line
		}
	}
	return ""
}

// adornment reports a reStructuredText underline or overline: one ASCII punctuation
// character repeated at least three times.
func adornment(s string) bool {
	if len(s) < 3 || !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(s[0])) {
		return false
	}
	return strings.Count(s, s[:1]) == len(s)
}
