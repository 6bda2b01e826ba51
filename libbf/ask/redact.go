package ask

import (
	"regexp"
	"sync"
)

// rule is one redaction: what matches is replaced by the replacement, in which $1… name
// the parts kept.
type rule struct {
	kind string
	re   *regexp.Regexp
	with string
}

// rules are applied in order. They are deterministic patterns, never a model: keys,
// tokens and private keys by their published shapes, passwords written in URLs and in
// key = value settings.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		{"private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), "[redacted private key]"},
		{"url password", regexp.MustCompile(`\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^/\s:@]+):([^/\s@]+)@`), "$1$2:[redacted]@"},
		{"aws key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), "[redacted aws key]"},
		{"github token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`), "[redacted github token]"},
		{"api key", regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`), "[redacted api key]"},
		{"slack token", regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), "[redacted slack token]"},
		{"google key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), "[redacted google key]"},
		{"stripe key", regexp.MustCompile(`\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}`), "[redacted stripe key]"},
		{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), "[redacted token]"},
		{"bearer", regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{16,}`), "$1 [redacted]"},
		{"setting", regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:api[_-]?key|secret|token|password|passwd|pwd)[a-z0-9_.-]*)(\s*[:=]\s*)(?:"[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{6,})`), "$1$2[redacted]"},
	}
})

// Redact replaces every secret the rules recognise and reports how many it replaced.
func Redact(s string) (string, int) {
	n := 0
	for _, r := range rules() {
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			n++
			return r.re.ReplaceAllString(m, r.with)
		})
	}
	return s, n
}
