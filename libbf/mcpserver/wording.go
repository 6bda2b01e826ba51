package mcpserver

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The memory package words its refusals for the command line: `invalid input: --scope: …`,
// `pass --source TEXT … or --ref REF`, a `bf remember --type … --update` to paste. A tool
// is called with JSON arguments instead, so its refusals name them as a call would pass
// them: `invalid input: scope: …`, `pass source: TEXT … or ref: REF`, `the remember tool
// with type: "fact", …, update: true`. This is the one place the flags of bf remember,
// bf recall and bf brief are mapped to the arguments of their tools.

// placeholders are the words that stand for a value in a message, kept as written.
var placeholders = []string{"TEXT", "REF", "DATE", "<date>", "..."}

// worded is err with its text worded for tool.
type worded struct {
	text string
	err  error
}

func (w *worded) Error() string { return w.text }
func (w *worded) Unwrap() error { return w.err }

// wordError words a memory error for tool; nil stays nil.
func (s *Server) wordError(tool string, err error) error {
	if err == nil {
		return nil
	}
	return &worded{text: s.wording(tool, err.Error()), err: err}
}

// wording rewrites the flags a message names into the arguments of tool, and each
// bf remember, bf recall or bf brief command it holds into a call of that tool. A flag
// that is no argument of the tool is left as written.
func (s *Server) wording(tool, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		if name, ok := s.commandAt(text, i); ok {
			end := s.writeCall(&b, name, text, i+len("bf "+name))
			i = end
			continue
		}
		if text[i] == '-' && flagStart(text, i) {
			if arg, end, ok := s.inputs[tool].mentionAt(text, i, false); ok {
				b.WriteString(arg)
				i = end
				continue
			}
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// commandAt reports a command of a served tool, "bf NAME", starting at text[i].
func (s *Server) commandAt(text string, i int) (string, bool) {
	if !strings.HasPrefix(text[i:], "bf ") || i > 0 && !isSpace(text[i-1]) && text[i-1] != '(' {
		return "", false
	}
	rest := text[i+len("bf "):]
	for name := range s.inputs {
		if after, ok := strings.CutPrefix(rest, name); ok && (after == "" || !isNameByte(after[0])) {
			return name, true
		}
	}
	return "", false
}

// writeCall writes the command of tool whose flags start at text[i] as a call of the tool,
// and returns where the command ends. --brain is dropped: the server serves its brains.
func (s *Server) writeCall(b *strings.Builder, tool, text string, i int) int {
	in := s.inputs[tool]
	var args []string
	for strings.HasPrefix(text[i:], " --") {
		if strings.HasPrefix(text[i:], " --brain ") {
			_, end, _ := readValue(text, i+len(" --brain "), true)
			i = end
			continue
		}
		arg, end, ok := in.mentionAt(text, i+1, true)
		if !ok {
			break
		}
		args = append(args, arg)
		i = end
	}
	b.WriteString("the " + tool + " tool")
	if len(args) > 0 {
		b.WriteString(" with " + strings.Join(args, ", "))
	}
	return i
}

// mentionAt reads the flag at text[i] ("--name", and its value when the argument takes
// one) and returns it worded as an argument, "name: value", with where it ends; ok is
// false when the flag is no argument of in. In a command a value is one shell word;
// in prose it also ends before ) , ; and a full stop.
func (in input) mentionAt(text string, i int, command bool) (string, int, bool) {
	j := i + 2
	for j < len(text) && (isNameByte(text[j]) || text[j] == '-') {
		j++
	}
	p, ok := in.find(strings.ReplaceAll(text[i+2:j], "-", "_"))
	if !ok || j == i+2 {
		return "", 0, false
	}
	switch {
	case j < len(text) && text[j] == ':':
		return p.name, j, true // named, not given: "invalid input: --scope: …"
	case p.boolean:
		return p.name + ": true", j, true
	case j == len(text) || text[j] != ' ':
		return p.name, j, true
	}
	value, end, ok := readValue(text, j+1, command)
	if !ok {
		return p.name, j, true
	}
	switch {
	case slices.Contains(placeholders, value) && end-(j+1) == len(value), p.integer:
		return p.name + ": " + value, end, true
	}
	q, _ := json.Marshal(value)
	return p.name + ": " + string(q), end, true
}

// readValue reads the value written at text[i]: a Go-quoted string, a shell-quoted word, a
// placeholder or a bare word. It returns the value unquoted and where it ends.
func readValue(text string, i int, command bool) (string, int, bool) {
	if i >= len(text) || text[i] == '-' && strings.HasPrefix(text[i:], "--") {
		return "", i, false
	}
	switch text[i] {
	case '"':
		q, err := strconv.QuotedPrefix(text[i:])
		if err != nil {
			return "", i, false
		}
		v, _ := strconv.Unquote(q)
		return v, i + len(q), true
	case '\'':
		return shellWord(text, i)
	}
	for _, p := range placeholders {
		if strings.HasPrefix(text[i:], p) && (i+len(p) == len(text) || !isNameByte(text[i+len(p)])) {
			return p, i + len(p), true
		}
	}
	end := i
	for end < len(text) && !isSpace(text[end]) && (command || !strings.ContainsRune("),;", rune(text[end]))) {
		end++
	}
	if !command {
		for end > i && strings.ContainsRune(".,", rune(text[end-1])) {
			end--
		}
	}
	if end == i {
		return "", i, false
	}
	return text[i:end], end, true
}

// shellWord reads a shell word of single-quoted parts, each quote inside the value written
// as a backslash-escaped quote between two parts (as bf remember quotes its commands),
// starting at the opening quote text[i].
func shellWord(text string, i int) (string, int, bool) {
	var v strings.Builder
	for i < len(text) && text[i] == '\'' {
		end := strings.IndexByte(text[i+1:], '\'')
		if end < 0 {
			return "", i, false
		}
		v.WriteString(text[i+1 : i+1+end])
		i += end + 2
		if !strings.HasPrefix(text[i:], `\'`) {
			break
		}
		v.WriteByte('\'')
		i += 2
	}
	return v.String(), i, true
}

// flagStart reports a "--" at text[i] that starts a word.
func flagStart(text string, i int) bool {
	return strings.HasPrefix(text[i:], "--") && (i == 0 || isSpace(text[i-1]) || text[i-1] == '(')
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }

func isNameByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }
