package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/timestamp"
)

// maxLinesFile bounds a {{lines:FILE}} file, so a stray large file cannot flood argv.
const maxLinesFile = 4 << 20

const linesPrefix = "{{lines:"

// Vars holds the values placeholders stand for in one run.
type Vars struct {
	Home       string    // {{home}}; empty: using it is an error
	Start, End time.Time // {{start}}, {{end}}; zero: using them is an error
	Schema     string    // {{schema}} (assistants with a reply); empty: using it is an error
	Context    string    // {{context}} (assistants); empty: using it is an error
}

// placeholder pairs a name with its value for one run; missing says why it has none.
type placeholder struct {
	name, value, missing string
}

func (v Vars) placeholders(root string) []placeholder {
	ph := []placeholder{
		{config.PlaceholderBrain, root, ""},
		{config.PlaceholderHome, v.Home, "the home folder is unknown"},
		{config.PlaceholderStart, "", "this run has no window start"},
		{config.PlaceholderEnd, "", "this run has no window end"},
		{config.PlaceholderSchema, v.Schema, "this run has no reply schema"},
		{config.PlaceholderContext, v.Context, "this run has no context file"},
	}
	if !v.Start.IsZero() {
		ph[2].value = timestamp.Canonical(v.Start)
	}
	if !v.End.IsZero() {
		ph[3].value = timestamp.Canonical(v.End)
	}
	return ph
}

// Expand turns a declared command into the argv of one run. Each placeholder is replaced
// once, as plain text, so a value that itself looks like a placeholder stays as it is. An
// argument that is exactly {{lines:FILE}} becomes one argument per line of the
// brain-relative FILE that is not blank and does not start with '#'; lines are trimmed of
// surrounding white space, a UTF-8 byte order mark and CRLF endings are accepted.
func Expand(root string, cmd config.Command, v Vars) ([]string, error) {
	if !filepath.IsAbs(root) {
		return nil, errors.New("the brain root must be an absolute path")
	}
	if len(cmd) == 0 {
		return nil, errors.New("the command is empty; name a program")
	}
	if len(cmd) > config.MaxArgs {
		return nil, fmt.Errorf("the command has %d arguments; at most %d are allowed", len(cmd), config.MaxArgs)
	}
	if strings.ContainsAny(cmd[0], "{}") {
		return nil, errors.New("command[0] names the program and cannot hold placeholders")
	}
	ph := v.placeholders(root)
	pairs := make([]string, 0, 2*len(ph))
	for _, p := range ph {
		pairs = append(pairs, p.name, p.value)
	}
	rep := strings.NewReplacer(pairs...)

	out := make([]string, 0, len(cmd))
	for i, a := range cmd {
		if strings.HasPrefix(a, linesPrefix) {
			files := config.Command{a}.Lines()
			if len(files) != 1 {
				return nil, fmt.Errorf("command[%d]: {{lines:FILE}} must be a whole argument naming a brain-relative file", i)
			}
			later := 0
			for _, b := range cmd[i+1:] {
				if !strings.HasPrefix(b, linesPrefix) {
					later++
				}
			}
			lines, err := readLines(root, files[0], config.MaxArgs-len(out)-later)
			if err != nil {
				return nil, err
			}
			out = append(out, lines...)
			continue
		}
		rest := a
		for _, p := range ph {
			if !strings.Contains(rest, p.name) {
				continue
			}
			if p.value == "" {
				return nil, fmt.Errorf("command[%d] uses %s but %s", i, p.name, p.missing)
			}
			rest = strings.ReplaceAll(rest, p.name, "")
		}
		if strings.Contains(rest, linesPrefix) {
			return nil, fmt.Errorf("command[%d]: {{lines:FILE}} must be a whole argument naming a brain-relative file", i)
		}
		if strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
			return nil, fmt.Errorf("command[%d]: unknown placeholder; use {{brain}}, {{home}}, {{start}}, {{end}}, {{schema}}, {{context}} or {{lines:FILE}}", i)
		}
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("command[%d] contains a NUL character; remove it", i)
		}
		x := rep.Replace(a)
		if utf8.RuneCountInString(x) > config.MaxArgChars {
			return nil, fmt.Errorf("command[%d] is longer than %d characters once expanded; shorten it", i, config.MaxArgChars)
		}
		out = append(out, x)
	}
	return out, nil
}

// readLines reads the arguments of a {{lines:FILE}} file; room is how many it may yield
// without the whole command passing the argument limit.
func readLines(root, rel string, room int) ([]string, error) {
	data, err := readLinesFile(root, rel)
	if err != nil {
		return nil, err
	}
	return parseLines(rel, data, room)
}

func readLinesFile(root, rel string) ([]byte, error) {
	abs, _, err := inBrain(root, rel)
	if err != nil {
		return nil, fmt.Errorf("{{lines:%s}}: %s %w", rel, rel, err)
	}
	f, err := openNoFollow(abs)
	if err != nil {
		return nil, fmt.Errorf("{{lines:%s}}: cannot read %s: %w", rel, rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLinesFile+1))
	if err != nil {
		return nil, fmt.Errorf("{{lines:%s}}: cannot read %s: %w", rel, rel, err)
	}
	if len(data) > maxLinesFile {
		return nil, fmt.Errorf("{{lines:%s}}: %s is larger than 4 MiB; shorten it", rel, rel)
	}
	return data, nil
}

// parseLines splits a {{lines:FILE}} file into arguments. The whole file must be UTF-8,
// also in comments, so a file saved in another encoding is caught wherever it differs.
func parseLines(rel string, data []byte, room int) ([]string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []string
	n := 0
	for len(data) > 0 {
		n++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("%s line %d is not valid UTF-8; save the file as UTF-8", rel, n)
		}
		if utf8.RuneCount(line) > config.MaxArgChars {
			return nil, fmt.Errorf("%s line %d is longer than %d characters; shorten it", rel, n, config.MaxArgChars)
		}
		s := strings.TrimSpace(string(line))
		if s == "" || s[0] == '#' {
			continue
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("%s line %d contains a NUL character; remove it", rel, n)
		}
		if len(out) == room {
			return nil, fmt.Errorf("%s line %d: the command would have more than %d arguments; shorten %s", rel, n, config.MaxArgs, rel)
		}
		out = append(out, s)
	}
	return out, nil
}

// pathProblem completes a sentence that starts with a brain-relative path; it keeps the
// OS error for errors.Is without printing it.
type pathProblem struct {
	msg string
	err error
}

func (p *pathProblem) Error() string { return p.msg }
func (p *pathProblem) Unwrap() error { return p.err }

// inBrain checks a clean brain-relative path without following symbolic links at any
// level, so a path can never lead out of the brain.
func inBrain(root, rel string) (string, os.FileInfo, error) {
	if !cleanRel(rel) {
		return "", nil, &pathProblem{msg: "is not a normalised brain-relative path"}
	}
	cur := root
	segs := strings.Split(rel, "/")
	var fi os.FileInfo
	for i, seg := range segs {
		cur = filepath.Join(cur, seg)
		var err error
		fi, err = os.Lstat(cur)
		last := i == len(segs)-1
		switch {
		case errors.Is(err, os.ErrNotExist) || (err == nil && !last && fi.Mode().IsRegular()):
			return "", nil, &pathProblem{msg: "does not exist; create it or correct the command", err: os.ErrNotExist}
		case err != nil:
			return "", nil, &pathProblem{msg: "cannot be read" + errnoText(err), err: err}
		case fi.Mode()&os.ModeSymlink != 0 && last:
			return "", nil, &pathProblem{msg: "is a symbolic link; put the file itself in the brain"}
		case fi.Mode()&os.ModeSymlink != 0:
			return "", nil, &pathProblem{msg: "passes through the symbolic link " + strings.Join(segs[:i+1], "/") + "; keep the files themselves in the brain"}
		case !last && !fi.IsDir():
			return "", nil, &pathProblem{msg: "does not lead through folders; correct the command"}
		}
	}
	if !fi.Mode().IsRegular() {
		return "", nil, &pathProblem{msg: "is not a regular file"}
	}
	return cur, fi, nil
}

// cleanRel accepts a relative slash path without empty, . or .. segments, backslashes,
// braces or control characters.
func cleanRel(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\{}") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
