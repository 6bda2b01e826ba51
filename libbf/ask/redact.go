package ask

import (
	"encoding/base64"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Redaction is deterministic patterns, never a model. Every rule reports the spans of the
// original text it would replace; the spans of all rules are merged before anything is
// replaced, so rules never rewrite each other's output, a secret two rules recognise is
// replaced once and counted once, and the name of a setting stays visible before its
// replaced value.

// Markers replacing a secret. A value named by the text around it (a setting, a URL
// password, a bearer token) becomes [redacted]; a secret recognised by its own shape says
// what it was.
const (
	markValue      = "[redacted]"
	markPrivateKey = "[redacted private key]"
	markKeyBlock   = "[redacted key block]"
	markAWSKey     = "[redacted aws key]"
	markGitHub     = "[redacted github token]"
	markAPIKey     = "[redacted api key]"
	markSlack      = "[redacted slack token]"
	markGoogle     = "[redacted google key]"
	markStripe     = "[redacted stripe key]"
	markToken      = "[redacted token]"
	markSecret     = "[redacted secret]"
)

// span is a stretch of the original text, [start, end) in bytes, to replace with a marker.
type span struct {
	start, end int
	with       string
}

// redact replaces every secret the rules recognise and reports how many it replaced: one
// marker, and one count, per stretch of secret text however many rules recognised it.
func redact(s string) (string, int) {
	spans := secrets(s)
	return replace(s, spans, "", ""), len(spans)
}

// Sentinels around each marker of redactMarked: Unicode noncharacters, which exist for a
// program's internal use, so that once text is cut the secrets it still holds can be
// counted from the cut alone.
const (
	openMark  = '\uFDD0'
	closeMark = '\uFDD1'
)

// redactMarked is Redact with every marker wrapped in openMark … closeMark; sentinels
// already in s become U+FFFD, of the same length in UTF-8, so only redaction writes them.
func redactMarked(s string) string {
	s = strings.NewReplacer(string(openMark), "\uFFFD", string(closeMark), "\uFFFD").Replace(s)
	return replace(s, secrets(s), string(openMark), string(closeMark))
}

// cutMarked ends text marked by redactMarked after limit characters, not counting the
// sentinels, appending … when it cut; a cut never splits a marker, it ends before it. It
// returns the text without sentinels and the number of markers it keeps.
func cutMarked(s string, limit int) (string, int) {
	var b strings.Builder
	kept, shown, open := 0, 0, -1
	for _, r := range s {
		switch r {
		case openMark:
			open = b.Len()
			continue
		case closeMark:
			kept++
			open = -1
			continue
		}
		if shown == limit {
			out := b.String()
			if open >= 0 {
				out = out[:open]
			}
			return out + "…", kept
		}
		b.WriteRune(r)
		shown++
	}
	return b.String(), kept
}

// replace writes s with each span replaced by its marker between open and close.
func replace(s string, spans []span, open, close string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(open + sp.with + close)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// secrets is the merged spans every rule finds in s, in order and disjoint: spans are
// taken by earliest start, then longest, then rule order, and a span overlapping the one
// before joins it, so no part of any match survives and each secret counts once.
func secrets(s string) []span {
	var all []span
	for _, find := range finders() {
		all = append(all, find(s)...)
	}
	slices.SortStableFunc(all, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var out []span
	for _, sp := range all {
		if sp.end <= sp.start {
			continue
		}
		if n := len(out); n > 0 && sp.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// finder reports the spans one rule would replace in s.
type finder func(s string) []span

// shape is a rule recognising a secret by a pattern; group names the submatch replaced
// (0: the whole match) and keep, when set, must accept the secret.
type shape struct {
	re    *regexp.Regexp
	group int
	with  string
	keep  func(secret string) bool
}

func (r shape) find(s string) []span {
	var out []span
	for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[2*r.group], m[2*r.group+1]
		if start < 0 || (r.keep != nil && !r.keep(s[start:end])) {
			continue
		}
		out = append(out, span{start, end, r.with})
	}
	return out
}

var finders = sync.OnceValue(func() []finder {
	shapes := []shape{
		// A password in a URL's authority: the last @ before the path ends it.
		{re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#\s:@]*:([^/?#\s]+)@`), group: 1, with: markValue,
			keep: func(p string) bool { return !strings.HasPrefix(p, "[redacted") }},
		// A password given to a command line: curl -u user:password.
		{re: regexp.MustCompile(`(?:^|[ \t])(?:-u|--user)(?:[ \t]+|=)[^\s:]+:(\S+)`), group: 1, with: markValue,
			keep: func(p string) bool { return !strings.HasPrefix(p, "[redacted") }},
		{re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), with: markAWSKey},
		// An AWS secret key after its name, with =, :, a space or a line between.
		{re: regexp.MustCompile(`(?i:\b(?:aws[_ .-]?)?secret[_ .-]?access[_ .-]?key)["'\x60*]{0,3}[\s:=|>-]{0,12}["'\x60]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), group: 1, with: markValue},
		{re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`), with: markGitHub},
		{re: regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`), with: markAPIKey},
		{re: regexp.MustCompile(`\bxox[a-z]-[A-Za-z0-9-]{10,}`), with: markSlack},
		{re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), with: markGoogle},
		{re: regexp.MustCompile(`\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}`), with: markStripe},
		{re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), with: markToken},
		// A bearer token holds a digit or punctuation, unlike "bearer authentication-scheme".
		{re: regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`), group: 1, with: markValue,
			keep: func(t string) bool { return strings.ContainsAny(t, "0123456789._~+/=") }},
		{re: regexp.MustCompile(`(?i)\bauthorization["'\x60]?[ \t]*[:=][ \t]*["'\x60]?basic[ \t]+([A-Za-z0-9+/=]{8,})`), group: 1, with: markValue},
	}
	out := []finder{keyBlocks}
	for _, sh := range shapes {
		out = append(out, sh.find)
	}
	return append(out, settings, highEntropy)
})

// keyHeader opens a private key (PEM in any of its kinds, OpenSSH, SSH2) or an armored PGP
// key block; keyFooter is the line closing one.
var (
	keyHeader = regexp.MustCompile(`-{3,} ?BEGIN (?:(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|PGP (?:[A-Z]+ )*KEY BLOCK) ?-{3,}`)
	keyFooter = regexp.MustCompile(`-{3,} ?END [^\n]*`)
)

// keyBlocks spans each key block from its BEGIN line through its END line, across blank
// lines and headers; a block never closed spans to the end of the text (fail closed).
func keyBlocks(s string) []span {
	var out []span
	for at := 0; at < len(s); {
		h := keyHeader.FindStringIndex(s[at:])
		if h == nil {
			break
		}
		start, body := at+h[0], at+h[1]
		with := markPrivateKey
		if !strings.Contains(s[start:body], "PRIVATE") {
			with = markKeyBlock
		}
		end := len(s)
		if f := keyFooter.FindStringIndex(s[body:]); f != nil {
			end = body + f[1]
		}
		out = append(out, span{start, end, with})
		at = end
	}
	return out
}

// keyword is a word naming a secret in a setting or a label: password, passwd, pwd,
// passphrase, secret, token, api key (apikey, api_key) and private key.
var keyword = regexp.MustCompile(`(?i)pass(?:word|wd|phrase)|pwd|secret|token|api[ _.-]?key|private[ _.-]?key`)

// plainValueKeywords may name a secret of ordinary words (a passphrase): only these take
// a label's value whatever it looks like.
var plainValueKeywords = map[string]bool{"password": true, "passwd": true, "pwd": true, "passphrase": true}

// metadataWords after a keyword make a name about a secret, not one holding it:
// token_type, secretName, password_policy.
var metadataWords = wordSet(`id ids type url uri endpoint file path name length len policy hash expiry expires
	expiration ttl count field hint prompt label format scope scopes lifetime usage manager reset rotation
	env var ref arn version limit size required enabled provider store storage method mode header`)

// proseQualifiers before a keyword make prose, not a label: "reset your password in
// settings", "the password field".
var proseQualifiers = wordSet(`the a an your my our their his her its this that these those new old current reset
	change changed forgot forgotten enter set no any each every one strong weak same wrong invalid temporary
	if and or of for with to by in on is are was`)

// proseValues opening what follows a label make prose: "db password is rotated".
var proseValues = wordSet(`is are was were be must should will can may for in on of to and or from by at as
	has have had not never reset resets rotation change changes changed policy field fields manager expired
	expires required length`)

func wordSet(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// settings spans the values named by a keyword:
//   - after a name and :, =, := or a table cell's |, the whole value: a quoted string
//     through its closing quote, else everything to the end of the line;
//   - after a name and a space (or "is"), the rest of the line when its first word looks
//     like a secret (a digit, punctuation, an inner capital: hunter2, wJalr…);
//   - after a label, a password's name at the start of a line or cell with a qualifier
//     ("db password", "admin pwd") or written as an identifier (DB_PASSWORD), the rest of
//     the line whatever it looks like, unless it reads as prose ("is", "reset", "field").
//
// A keyword inside a value already spanned is part of that value: skipping it keeps the
// work linear on a long line of settings.
func settings(s string) []span {
	var out []span
	covered := 0
	for _, m := range keyword.FindAllStringIndex(s, -1) {
		if m[0] < covered {
			continue
		}
		if sp, ok := setting(s, m[0], m[1]); ok {
			out = append(out, sp)
			covered = sp.end
		}
	}
	return out
}

// maxName bounds the characters of a setting's name, and of what precedes a label on its
// line, looked at around a keyword: longer runs name nothing, and the bound keeps the
// work per keyword constant.
const maxName = 128

func setting(s string, i, j int) (span, bool) {
	// The keyword ends a word: "tokens", "tokenizer" and "secretary" name nothing.
	if j < len(s) && isLetter(s[j]) && !(isLower(s[j-1]) && isUpper(s[j])) {
		return span{}, false
	}
	ks, ke := i, j
	for ks > 0 && isIdent(s[ks-1]) {
		if ks--; i-ks > maxName {
			return span{}, false
		}
	}
	for ke < len(s) && isIdent(s[ke]) {
		if ke++; ke-j > maxName {
			return span{}, false
		}
	}
	for ke > j && (s[ke-1] == '.' || s[ke-1] == '-') {
		ke--
	}
	for _, w := range identWords(s[j:ke]) {
		if metadataWords[w] {
			return span{}, false
		}
	}
	name := strings.ToLower(strings.NewReplacer(" ", "", "_", "", ".", "", "-", "").Replace(s[i:j]))
	compound := ks < i || ke > j
	// "secret access key", "secret key": the name goes on.
	for ke-j < maxName {
		if n := wordAt(s, ke, " access"); n > 0 {
			ke += n
		} else if n := wordAt(s, ke, " key"); n > 0 {
			ke += n
		} else {
			break
		}
	}
	p := ke
	for n := 0; n < 3 && p < len(s) && strings.IndexByte("\"'`*", s[p]) >= 0; n++ {
		p++
	}
	q := skipBlanks(s, p)
	label, qualified, cell := labelPosition(s, ks)
	switch {
	case strings.HasPrefix(s[q:], ":="):
		return strongValue(s, q+2)
	case strings.HasPrefix(s[q:], "=>") || strings.HasPrefix(s[q:], "->"):
		return strongValue(s, q+2)
	case strings.HasPrefix(s[q:], "=="):
		return span{}, false
	case q < len(s) && (s[q] == ':' || s[q] == '='):
		return strongValue(s, q+1)
	case q < len(s) && s[q] == '|' && label && cell:
		return strongValue(s, q+1)
	}
	if q == p || q >= len(s) || s[q] == '\n' {
		return span{}, false
	}
	// Separated by blanks: the first word decides.
	word := firstWord(s[q:])
	if w := strings.ToLower(word); w == "is" || w == "was" || w == "are" {
		v := skipBlanks(s, q+len(word))
		if v < len(s) && isQuote(s[v]) {
			return strongValue(s, v)
		}
		if looksSecret(firstWord(s[v:])) {
			return toEndOfLine(s, v)
		}
		return span{}, false
	}
	if isQuote(s[q]) || looksSecret(word) {
		return strongValue(s, q)
	}
	// A label's value is words; "echo password | tee" is a command, not a label.
	words := word != "" && (isLetter(word[0]) || isDigit(word[0])) && !proseValues[strings.ToLower(trimPunct(word))]
	if plainValueKeywords[name] && label && (qualified || compound) && words {
		return toEndOfLine(s, q)
	}
	return span{}, false
}

// labelPosition reports whether the name starting at ks opens its line or a table cell,
// after list, quote and emphasis marks, whether one non-prose word qualifies it there
// ("db password", "admin pwd"), and whether it is in a cell.
func labelPosition(s string, ks int) (label, qualified, cell bool) {
	from := max(0, ks-maxName)
	start := strings.LastIndexByte(s[from:ks], '\n')
	if start < 0 && from > 0 && strings.IndexByte(s[from:ks], '|') < 0 {
		return false, false, false
	}
	line := s[from+start+1 : ks]
	if c := strings.LastIndexByte(line, '|'); c >= 0 {
		line, cell = line[c+1:], true
	} else {
		line = strings.TrimLeft(line, " \t")
		line = strings.TrimLeft(strings.TrimLeft(line, "-*+>0123456789.)"), " \t")
	}
	line = strings.TrimLeft(line, " \t*_")
	if line == "" {
		return true, false, cell
	}
	q, ok := strings.CutSuffix(line, " ")
	if !ok || strings.ContainsAny(q, " \t") || proseQualifiers[strings.ToLower(q)] {
		return false, false, cell
	}
	for i := 0; i < len(q); i++ {
		if !isIdent(q[i]) {
			return false, false, cell
		}
	}
	return true, true, cell
}

// strongValue spans the value starting at v after blanks and a closing ** or __ of a
// bold label (**Password:** x): a quoted string through its closing quote on the line,
// else the rest of the line. An empty value, or one already redacted, spans nothing.
func strongValue(s string, v int) (span, bool) {
	v = skipBlanks(s, v)
	if e := v + 2; (strings.HasPrefix(s[v:], "**") || strings.HasPrefix(s[v:], "__")) && e < len(s) && (s[e] == ' ' || s[e] == '\t') {
		v = skipBlanks(s, e)
	}
	if v >= len(s) || s[v] == '\n' || s[v] == '\r' || blockScalar.MatchString(lineAt(s, v)) {
		return indentedValue(s, v)
	}
	if strings.HasPrefix(s[v:], "[redacted") {
		return span{}, false
	}
	if isQuote(s[v]) {
		// A quote ends the value only when the value ends there too: "ab"cd is one value.
		if end, ok := closingQuote(s, v); ok && (end == len(s) || strings.IndexByte(" \t\r\n,;)]}#", s[end]) >= 0) {
			if end-v <= 2 {
				return span{}, false
			}
			return span{v, end, markValue}, true
		}
	}
	return toEndOfLine(s, v)
}

// blockScalar is a YAML block scalar's indicator (password: |), whose value is the lines
// indented below it.
var blockScalar = regexp.MustCompile(`^[|>][-+1-9]{0,2}[ \t\r]*$`)

// lineAt is s from v to the end of its line.
func lineAt(s string, v int) string {
	if n := strings.IndexByte(s[v:], '\n'); n >= 0 {
		return s[v : v+n]
	}
	return s[v:]
}

// indentedValue spans a value continued on the lines after v's line that are indented
// deeper than it: a YAML block scalar, a plain scalar on the next line, a list item's
// value (- password:, then the value indented below).
func indentedValue(s string, v int) (span, bool) {
	lineStart := strings.LastIndexByte(s[:v], '\n') + 1
	indent := leadingBlanks(s[lineStart:])
	start, end := -1, -1
	at := v + len(lineAt(s, v)) + 1
	for at < len(s) {
		line := lineAt(s, at)
		if strings.TrimSpace(line) != "" {
			n := leadingBlanks(line)
			if n <= indent {
				break
			}
			if start < 0 {
				start = at + n
			}
			end = at + len(strings.TrimRight(line, " \t\r"))
		}
		at += len(line) + 1
	}
	if start < 0 || strings.HasPrefix(s[start:], "[redacted") {
		return span{}, false
	}
	return span{start, end, markValue}, true
}

func leadingBlanks(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// closingQuote finds the end (just past the quote) of the quoted string at v on its line:
// a backslash escapes in "…", a doubled quote in '…'.
func closingQuote(s string, v int) (int, bool) {
	q := s[v]
	for i := v + 1; i < len(s) && s[i] != '\n'; i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1, true
		}
	}
	return 0, false
}

// toEndOfLine spans from v to the end of its line, trailing blanks left out.
func toEndOfLine(s string, v int) (span, bool) {
	end := len(s)
	if n := strings.IndexByte(s[v:], '\n'); n >= 0 {
		end = v + n
	}
	for end > v && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\r') {
		end--
	}
	if end == v || strings.HasPrefix(s[v:], "[redacted") {
		return span{}, false
	}
	return span{v, end, markValue}, true
}

// looksSecret reports a word that reads as a password or key rather than a word: four
// characters or more with a digit, punctuation, or a capital inside lower case.
func looksSecret(w string) bool {
	w = trimPunct(w)
	if utf8.RuneCountInString(w) < 4 || strings.HasPrefix(w, "[redacted") {
		return false
	}
	lower, innerUpper := false, false
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			innerUpper = innerUpper || i > 0
		case r != '-' && r != '\'' && !unicode.IsLetter(r):
			return true
		}
	}
	return lower && innerUpper
}

func trimPunct(w string) string { return strings.Trim(w, ".,;:!?()[]{}\"'`*") }

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// identWords splits an identifier's tail into lower-case words at _ . - digits and
// camel humps: "_access_key" gives access, key; "Name" gives name.
func identWords(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		boundary := i == len(s) || !isLetter(s[i]) || (i > 0 && isLower(s[i-1]) && isUpper(s[i]))
		if boundary && start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
		if i < len(s) && isLetter(s[i]) && start < 0 {
			start = i
		}
	}
	return out
}

// wordAt is the length of word (any case) at s[at:] when no name character follows it, else 0.
func wordAt(s string, at int, word string) int {
	end := at + len(word)
	if end > len(s) || !strings.EqualFold(s[at:end], word) || (end < len(s) && isIdent(s[end])) {
		return 0
	}
	return len(word)
}

func isQuote(c byte) bool  { return c == '"' || c == '\'' || c == '`' }
func isLetter(c byte) bool { return isLower(c) || isUpper(c) }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isIdent(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '.' || c == '-'
}

// The high-entropy fallback: a run of 32 or more base64 or URL-safe base64 characters.
var (
	tokenRun  = regexp.MustCompile(`[A-Za-z0-9+/_-]{32,}={0,2}`)
	imageData = regexp.MustCompile(`(?i)data:image/[a-z0-9.+-]+;base64,$`)
	wordHump  = regexp.MustCompile(`[A-Z]?[a-z]+|[A-Z]+|[0-9]+`)
)

// minEntropy is the Shannon entropy, in bits per character, a run must reach. Random
// strings of 32 characters over 62 or 64 symbols stay above 3.8 (the lowest of 100,000
// drawn was 3.86); runs of a few repeated symbols (Aa1Aa1…, placeholders) fall below 3.5.
const minEntropy = 3.5

// highEntropy spans runs that look random: upper case, lower case and digits mixed,
// above minEntropy, and none of what such runs also are in notes: hexadecimal (commit
// ids, sha256 digests, UUIDs have one case at most, and mixed-case hex is skipped),
// identifiers made of words (TestScriptsAskRedact2026), base64 of printable text, and an
// image's data URI.
func highEntropy(s string) []span {
	var out []span
	for _, m := range tokenRun.FindAllStringIndex(s, -1) {
		start, end := randomCore(s, m[0], m[1])
		run := s[start:end]
		if len(run) < 32 || !mixedClasses(run) || isHex(run) || entropy(run) < minEntropy || wordy(run) ||
			encodesText(run) || imageData.MatchString(s[max(0, m[0]-64):m[0]]) {
			continue
		}
		out = append(out, span{start, end, markSecret})
	}
	return out
}

// randomCore leaves out of the run [start, end) its leading and trailing path segments
// without a capital or made of words, so a URL's path around a random id stays readable
// (docs/d/ID/edit keeps docs/d/ and /edit).
func randomCore(s string, start, end int) (int, int) {
	plain := func(seg string) bool { return !strings.ContainsAny(seg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || wordy(seg) }
	for {
		i := strings.IndexByte(s[start:end], '/')
		if i < 0 || !plain(s[start:start+i]) {
			break
		}
		start += i + 1
	}
	for {
		i := strings.LastIndexByte(s[start:end], '/')
		if i < 0 || !plain(s[start+i+1:end]) {
			break
		}
		end = start + i
	}
	return start, end
}

func mixedClasses(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		upper = upper || isUpper(s[i])
		lower = lower || isLower(s[i])
		digit = digit || isDigit(s[i])
	}
	return upper && lower && digit
}

func isHex(s string) bool {
	return strings.Trim(strings.ToLower(s), "0123456789abcdef-") == ""
}

func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordy reports a run made of words: its humps (capitalised or lower-case words, capital
// runs, numbers) average three characters or more and every hump of letters holds a
// vowel. A random run of 32 characters passes about 60 times in a million.
func wordy(s string) bool {
	humps := wordHump.FindAllString(s, -1)
	total := 0
	for _, h := range humps {
		total += len(h)
		if isLetter(h[0]) && len(h) >= 2 && !strings.ContainsAny(strings.ToLower(h), "aeiouy") {
			return false
		}
	}
	return len(humps) > 0 && float64(total) >= 3*float64(len(humps))
}

// encodesText reports base64 (standard or URL-safe) of printable UTF-8 text.
func encodesText(s string) bool {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		raw, err := enc.DecodeString(s)
		if err != nil || !utf8.Valid(raw) {
			continue
		}
		printable := true
		for _, r := range string(raw) {
			if !unicode.IsPrint(r) && r != '\n' && r != '\t' && r != '\r' {
				printable = false
				break
			}
		}
		if printable {
			return true
		}
	}
	return false
}
