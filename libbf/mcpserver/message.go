package mcpserver

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/cli"
)

// cliCommand matches the CLI's wording of the two commands the tools serve.
var cliCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bbf (search|read)\b`) })

// message words an error for a tool result: the CLI's message with "bf search" and
// "bf read" named as tools, paths under a brain root, the registry file or the home
// directory shortened to <brain>, <registry> or ~, and control and format characters
// escaped as in CLI diagnostics.
func (s *Server) message(err error, roots []string) string {
	msg := cliCommand().ReplaceAllString(err.Error(), "the $1 tool")
	var subs []sub
	seen := map[string]bool{}
	add := func(path, with string) {
		if path == "" || path == "/" || !filepath.IsAbs(path) {
			return
		}
		for _, p := range []string{filepath.Clean(path), resolved(path)} {
			if p != "" && p != "/" && !seen[p] {
				seen[p] = true
				subs = append(subs, sub{p, with})
			}
		}
	}
	for _, r := range append(roots, s.startRoots...) {
		add(r, "<brain>")
	}
	if s.opts.Env != nil {
		if f, err := s.opts.Env.RegistryFile(); err == nil {
			add(f, "<registry>")
		}
		add(s.opts.Env.Home, "~")
	}
	return cli.Escape(redact(msg, subs))
}

type sub struct{ path, with string }

func resolved(path string) string {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	return p
}

// redact replaces each path that starts a word (at the start of the text or after a
// character that cannot belong to a path) and ends at a path boundary, longest first.
func redact(s string, subs []sub) string {
	sort.SliceStable(subs, func(i, j int) bool { return len(subs[i].path) > len(subs[j].path) })
	var b strings.Builder
	for i := 0; i < len(s); {
		matched := false
		if i == 0 || !pathByte(s[i-1]) {
			for _, r := range subs {
				if strings.HasPrefix(s[i:], r.path) {
					end := i + len(r.path)
					if boundary(s, end) {
						b.WriteString(r.with)
						i = end
						matched = true
						break
					}
				}
			}
		}
		if !matched {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// boundary reports whether a path may end before s[end]: at the end, a slash, a byte
// that cannot continue a name, or a full stop ending a sentence.
func boundary(s string, end int) bool {
	if end == len(s) || s[end] == '/' || !nameByte(s[end]) {
		return true
	}
	return s[end] == '.' && (end+1 == len(s) || s[end+1] == ' ')
}

// nameByte reports a byte that can continue a file name.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '~' || c >= 0x80
}

// pathByte reports a byte that can come before a path's leading slash inside a longer path.
func pathByte(c byte) bool { return nameByte(c) || c == '/' }
