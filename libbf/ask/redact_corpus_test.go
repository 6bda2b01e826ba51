package ask

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The corpus: secrets of real shapes, generated from a fixed seed and set in ordinary
// note prose, must leave nothing behind; look-alikes set in the same prose must come
// through byte for byte. None of the generated values is valid anywhere.

// plant is one note holding secrets: its text, the values that must not survive, and how
// many secrets it holds.
type plant struct {
	kind    string
	text    string
	secrets []string
	count   int
}

const (
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	awsSecret = alnum + "/+"
	pwChars   = alnum + "!@#$%^&*-_+=.~"
)

// Prose around the secrets, and words for passphrases that the prose never uses.
var (
	proseBefore = []string{
		"# Ledger migration\n\nWe switch the billing database on Tuesday after the freeze.",
		"Notes from the sync with the platform team about the rollout.",
		"The staging cluster was rebuilt last week; these are the settings we used.",
		"Meeting notes: the deploy moved to Thursday because of the holiday.",
	}
	proseAfter = []string{
		"Ask Dana before changing anything here.",
		"The rollback restores the snapshot taken before the switch.",
		"See the runbook for the order of the steps.",
		"Nothing else changed since the last review.",
	}
	phraseWords = strings.Fields("quartz violet anchor mango lantern pebble tundra orchid falcon ember " +
		"saffron glacier walnut cobalt meadow ripple thistle juniper harbor velvet")
)

type corpus struct{ r *rand.Rand }

func (c corpus) pick(list []string) string { return list[c.r.IntN(len(list))] }

func (c corpus) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[c.r.IntN(len(alphabet))]
	}
	return string(b)
}

// mixed draws n characters of alnum holding upper case, lower case and a digit.
func (c corpus) mixed(n int) string {
	for {
		if s := c.chars(alnum, n); mixedClasses(s) {
			return s
		}
	}
}

func (c corpus) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(c.r.IntN(256))
	}
	return b
}

func (c corpus) phrase(words int) string {
	var out []string
	for range words {
		out = append(out, c.pick(phraseWords))
	}
	return strings.Join(out, " ")
}

// wrap cuts base64 into lines of width characters.
func wrap(s string, width int) []string {
	var out []string
	for len(s) > width {
		out = append(out, s[:width])
		s = s[width:]
	}
	return append(out, s)
}

// pem is a key block of kind whose body is body bytes of base64 in 64-character lines,
// after the given header lines and a blank line when there are headers.
func (c corpus) pem(kind string, body int, headers ...string) plant {
	lines := wrap(base64.StdEncoding.EncodeToString(c.bytes(body)), 64)
	var b strings.Builder
	b.WriteString("-----BEGIN " + kind + "-----\n")
	for _, h := range headers {
		b.WriteString(h + "\n")
	}
	if len(headers) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(strings.Join(lines, "\n") + "\n")
	b.WriteString("-----END " + kind + "-----")
	return plant{kind: kind, text: b.String(), secrets: lines, count: 1}
}

func (c corpus) plants() []plant {
	var out []plant
	add := func(p plant) { out = append(out, p) }
	// RSA-2048-sized PEM blocks (a real one is 1,674 characters or more) in four kinds.
	for _, kind := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY"} {
		add(c.pem(kind, 1192))
	}
	add(c.pem("ENCRYPTED PRIVATE KEY", 1200))
	add(c.pem("RSA PRIVATE KEY", 1192, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,"+strings.ToUpper(hex.EncodeToString(c.bytes(16)))))
	for range 3 {
		p := c.pem("OPENSSH PRIVATE KEY", 300)
		add(p)
	}
	for _, kind := range []string{"PGP PRIVATE KEY BLOCK", "PGP PRIVATE KEY BLOCK", "PGP PUBLIC KEY BLOCK"} {
		p := c.pem(kind, 900, "Version: GnuPG v2", "Comment: "+c.pick(proseAfter))
		checksum := "=" + base64.StdEncoding.EncodeToString(c.bytes(3))
		p.text = strings.Replace(p.text, "\n-----END", "\n"+checksum+"\n-----END", 1)
		add(p)
	}
	// AWS key pairs with =, : and a space.
	for _, sep := range []string{" = ", ": ", " ", "=", "\t"} {
		id, secret := "AKIA"+c.chars(upperNum, 16), c.chars(awsSecret, 40)
		add(plant{kind: "aws pair", count: 2, secrets: []string{id, secret},
			text: "[default]\naws_access_key_id" + sep + id + "\naws_secret_access_key" + sep + secret})
	}
	// Passwords: passphrases with spaces, pwd and passwd, characters of all kinds.
	for _, form := range []string{"db password: %s", "DB password = %s", "admin password %s", "root pwd: %s",
		"wifi passwd %s", "DB_PASSWORD=%s", "passphrase: %s", "| db password | %s |"} {
		v := c.phrase(3 + c.r.IntN(3))
		add(plant{kind: "passphrase", count: 1, secrets: []string{v}, text: fmt.Sprintf(form, v)})
	}
	for _, form := range []string{"pwd: %s", "passwd=%s", "password: %s", "password = %s", "Password %s",
		"mysql -u root --password=%s", "the password is %s", `password: "%s"`, "smtp_password: '%s'"} {
		v := c.chars(pwChars, 6+c.r.IntN(10)) + "7"
		add(plant{kind: "password", count: 1, secrets: []string{v}, text: fmt.Sprintf(form, v)})
	}
	// Vendor token shapes, in prose and in settings.
	tokens := []string{
		"ghp_" + c.mixed(36), "gho_" + c.mixed(36),
		"github_pat_" + c.mixed(22) + "_" + c.mixed(59),
		"xoxb-" + c.chars("0123456789", 12) + "-" + c.chars("0123456789", 13) + "-" + c.mixed(24),
		"xoxp-" + c.chars("0123456789", 12) + "-" + c.mixed(32),
		"sk_live_" + c.mixed(24), "rk_live_" + c.mixed(24),
		"sk-proj-" + c.mixed(40), "sk-ant-api03-" + c.mixed(40),
		"AIza" + c.mixed(35),
	}
	for i, tok := range tokens {
		text := "The deploy job reads " + tok + " from the vault."
		if i%2 == 1 {
			text = "token=" + tok
		}
		add(plant{kind: "vendor token", count: 1, secrets: []string{tok}, text: text})
	}
	// JWTs, bearer headers, URL credentials, random runs without a name.
	for range 4 {
		enc := base64.RawURLEncoding
		jwt := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
			enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%d","name":"%s"}`, c.r.IntN(1e6), c.pick(phraseWords)))) + "." +
			enc.EncodeToString(c.bytes(32))
		add(plant{kind: "jwt", count: 1, secrets: []string{jwt}, text: "The session cookie held " + jwt + " at the time."})
	}
	for range 4 {
		tok := c.mixed(20) + "." + c.mixed(20)
		add(plant{kind: "bearer", count: 1, secrets: []string{tok}, text: "curl -H 'Authorization: Bearer " + tok + "' https://api.example.test/v1"})
	}
	for _, scheme := range []string{"postgres", "mysql", "https", "amqp"} {
		pw := c.chars(alnum+"-_.~!$", 14)
		add(plant{kind: "url", count: 1, secrets: []string{pw}, text: "Connect with " + scheme + "://svc:" + pw + "@db.example.test/main then run the checks."})
	}
	for n := range 4 {
		v := c.mixed(32 + 8*n)
		add(plant{kind: "random", count: 1, secrets: []string{v}, text: "The signing seed we generated is " + v + " for now."})
	}
	return out
}

func TestRedactCorpusLeavesNoSecret(t *testing.T) {
	c := corpus{rand.New(rand.NewPCG(34, 4))}
	plants := c.plants()
	if len(plants) < 50 {
		t.Fatalf("the corpus holds %d secrets, want 50 or more", len(plants))
	}
	sawLongPEM := false
	for i, p := range plants {
		before, after := proseBefore[i%len(proseBefore)], proseAfter[i%len(proseAfter)]
		note := before + "\n\n" + p.text + "\n\n" + after
		if strings.HasPrefix(p.text, "-----BEGIN RSA") && utf8.RuneCountInString(p.text) >= 1674 {
			sawLongPEM = true
		}
		got, n := redact(note)
		if n != p.count {
			t.Errorf("%s: counted %d secrets, want %d in:\n%s\n->\n%s", p.kind, n, p.count, note, got)
		}
		if !strings.HasPrefix(got, before+"\n\n") || !strings.HasSuffix(got, "\n\n"+after) {
			t.Errorf("%s: the prose around the secret changed:\n%s", p.kind, got)
		}
		for _, secret := range p.secrets {
			if leak := survivor(secret, got); leak != "" {
				t.Errorf("%s: %q of %q survived in:\n%s", p.kind, leak, secret, got)
			}
		}
	}
	if !sawLongPEM {
		t.Error("no RSA block of 1,674 characters or more in the corpus")
	}
	// All of them in one note: the count is exact and the markers clean.
	var all strings.Builder
	want := 0
	for _, p := range plants {
		all.WriteString(p.text + "\n\nA line of prose between the secrets.\n\n")
		want += p.count
	}
	got, n := redact(all.String())
	if n != want {
		t.Errorf("one note: counted %d secrets, want %d", n, want)
	}
	// Beside the markers, only the AWS files' [default] close a bracket.
	closing := strings.Count(got, "]") - strings.Count(got, "[default]")
	if markers := strings.Count(got, "[redacted"); markers != want || closing != want {
		t.Errorf("one note: %d markers, %d closing brackets, want %d of each:\n%s", markers, closing, want, got)
	}
}

// survivor is the first 8-character piece of secret found in text, or "".
func survivor(secret, text string) string {
	if len(secret) < 8 {
		if strings.Contains(text, secret) {
			return secret
		}
		return ""
	}
	for i := 0; i+8 <= len(secret); i++ {
		if piece := secret[i : i+8]; strings.Contains(text, piece) {
			return piece
		}
	}
	return ""
}

func TestRedactCorpusKeepsLookAlikes(t *testing.T) {
	c := corpus{rand.New(rand.NewPCG(34, 5))}
	var alikes []string
	add := func(s string) { alikes = append(alikes, s) }
	for i := range 10 {
		u := c.bytes(16)
		u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
		h := hex.EncodeToString(u)
		id := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		if i%2 == 1 {
			id = strings.ToUpper(id)
		}
		add("The record id is " + id + " in the export.")
	}
	for range 10 {
		add("Fixed in commit " + hex.EncodeToString(c.bytes(20)) + " on main.")
	}
	for i := range 10 {
		digest := hex.EncodeToString(c.bytes(32))
		if i%2 == 1 {
			digest = strings.ToUpper(digest)
		}
		add("The image is pinned to sha256:" + digest + " since the release.")
	}
	sentences := []string{
		"The quick brown fox jumps over the lazy dog.",
		"Meet me at the station at nine tomorrow morning.",
		"Remember to water the plants while I am away.",
		"The quarterly report is due at the end of the month!",
		"Our team will present the roadmap on Friday afternoon.",
	}
	for _, s := range sentences {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			b64 := enc.EncodeToString([]byte(s))
			if !mixedClasses(b64) || len(b64) < 32 {
				t.Fatalf("%q does not exercise the high-entropy rule", b64)
			}
			add("The fixture holds " + b64 + " as its body.")
		}
		add("![note](data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(s)) + ")")
	}
	for _, u := range []string{"https://user@example.test/path?q=1", "https://example.test/reset?step=2#top",
		"ssh://git@example.test/team/repo.git", "https://example.test/a/b/c/d/e/f/g/h/i/j/k/l/m/n",
		"http://localhost:8080/v1/chat/completions"} {
		add("The endpoint is " + u + " for the tests.")
	}
	for _, s := range []string{
		"Please reset your password in settings.",
		"Password reset link sent to the owner.",
		"Password rotation happens monthly.",
		"The password field is required.",
		"The token bucket allows 20 questions a minute.",
		"A token of appreciation for the team.",
		"Keep the secret sauce recipe in the binder.",
		"The api key rotation is on the calendar.",
		"The db password is rotated by the vault.",
		"- [ ] Rotate the admin password",
		"token_type: bearer",
		"secretName: ledger-db",
		"password_policy: twelve characters",
		"tokens: 20",
		"The tokenizer is porter unicode61.",
		"Our secretary books the rooms.",
		"The bearer authentication-scheme is in RFC 6750.",
		"Run TestScriptsAskRedactVersion2026Final before the release.",
	} {
		add(s)
	}
	if len(alikes) < 50 {
		t.Fatalf("%d look-alikes, want 50 or more", len(alikes))
	}
	for i, a := range alikes {
		note := proseBefore[i%len(proseBefore)] + "\n\n" + a + "\n\n" + proseAfter[i%len(proseAfter)]
		if got, n := redact(note); got != note || n != 0 {
			t.Errorf("Redact changed a look-alike (%d replaced):\n%s\n->\n%s", n, note, got)
		}
	}
}
