package ask

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The secrets below are shaped like real ones and are not valid anywhere.
func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		count    int
	}{
		{"key AKIAIOSFODNN7EXAMPLE here", "key [redacted aws key] here", 1},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [redacted]", 1},
		{"aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key [redacted]", 1},
		{"aws_secret_access_key:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key:[redacted]", 1},
		{"AWS Secret Access Key\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nrotated", "AWS Secret Access Key\n[redacted]\nrotated", 1},
		{"token ghp_1234567890abcdefghijABCDEFGHIJ123456 used", "token [redacted]", 1},
		{"see ghp_1234567890abcdefghijABCDEFGHIJ123456 used", "see [redacted github token] used", 1},
		{"pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "pat [redacted github token]", 1},
		{"OPENAI sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "OPENAI [redacted api key]", 1},
		{"claude sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "claude [redacted api key]", 1},
		{"slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack [redacted slack token]", 1},
		{"maps AIzaSyA-1234567890abcdefghijklmnopqrstu", "maps [redacted google key]", 1},
		{"stripe sk_live_51HqLyjWDarjtT1zdp7dcXGDf", "stripe [redacted stripe key]", 1},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt [redacted token]", 1},
		{"curl -H 'Authorization: Bearer abcdef0123456789abcdef0123456789'", "curl -H 'Authorization: Bearer [redacted]'", 1},
		{"Authorization: Basic YWRtaW46aHVudGVyMg==", "Authorization: Basic [redacted]", 1},
		{"db postgres://billing:s3cr3t-Pa55@db.internal:5432/ledger", "db postgres://billing:[redacted]@db.internal:5432/ledger", 1},
		{"redis://:p@ss@cache.internal/0", "redis://:[redacted]@cache.internal/0", 1},
		{"password: hunter2hunter2", "password: [redacted]", 1},
		{`DB_PASSWORD="correct horse"`, `DB_PASSWORD=[redacted]`, 1},
		// The whole value, to the end of the line.
		{"db password: correct horse battery staple\nnext", "db password: [redacted]\nnext", 1},
		{"pwd: abc12", "pwd: [redacted]", 1},
		{"pwd: *_x9 and more", "pwd: [redacted]", 1},
		{"db:\n  password: |\n    correct horse\n    battery staple\n  user: bob", "db:\n  password: |\n    [redacted]\n  user: bob", 1},
		{"- password:\n  correct horse\n- user: bob", "- password:\n  [redacted]\n- user: bob", 1},
		{"Password:\n\nUse the vault.", "Password:\n\nUse the vault.", 0},
		{"curl -u admin:hunter2 https://x.test", "curl -u admin:[redacted] https://x.test", 1},
		{"passwd=abc12 # old", "passwd=[redacted]", 1},
		{"**Password:** correct horse", "**Password:** [redacted]", 1},
		{"| db password | correct horse |", "| db password | [redacted]", 1},
		{`{"password": "ab\"c", "user": "bob"}`, `{"password": [redacted], "user": "bob"}`, 1},
		{`password: "ab"cd tail`, "password: [redacted]", 1},
		{"client_secret: s3cr3t value", "client_secret: [redacted]", 1},
		{"secret_key := os.Getenv(\"KEY\")", "secret_key := [redacted]", 1},
		{"accessToken=abc123", "accessToken=[redacted]", 1},
		{"API key: 1234-5678", "API key: [redacted]", 1},
		// A label, or a value shaped like a secret, after a space.
		{"db password correct horse battery staple", "db password [redacted]", 1},
		{"- admin pwd hunter two", "- admin pwd [redacted]", 1},
		{"DB_PASSWORD correct horse", "DB_PASSWORD [redacted]", 1},
		{"the wifi password is Tr0ub4dor&3 now", "the wifi password is [redacted]", 1},
		{"the password is \"correct horse\" today", "the password is [redacted] today", 1},
		{"mysql --password hunter2 -u root", "mysql --password [redacted]", 1},
		// Key blocks whole, across blank lines, to the end of the text when never closed.
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "[redacted private key]\nafter", 1},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "[redacted private key]", 1},
		{"-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIE\n-----END ENCRYPTED PRIVATE KEY-----", "[redacted private key]", 1},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: x\n\nlQOYBF\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\nok", "[redacted private key]\nok", 1},
		{"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"x\"\nP2/56wAAAi4\n---- END SSH2 ENCRYPTED PRIVATE KEY ----", "[redacted private key]", 1},
		{"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----", "[redacted key block]", 1},
		{"before\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\n\nstill the key", "before\n[redacted private key]", 1},
		// Overlapping rules replace once, cleanly, and count once.
		{"token=ghp_1234567890abcdefghijABCDEFGHIJ123456", "token=[redacted github token]", 1},
		{"github token: ghp_1234567890abcdefghijABCDEFGHIJ123456 and AKIAIOSFODNN7EXAMPLE", "github token: [redacted]", 1},
		{"a ghp_1234567890abcdefghijABCDEFGHIJ123456 b AKIAIOSFODNN7EXAMPLE c", "a [redacted github token] b [redacted aws key] c", 2},
		{"deploy private key: below -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter",
			"deploy private key: [redacted]\nafter", 1},
		{"password: [redacted]", "password: [redacted]", 0},
		// A random-looking run with no name.
		{"id 8fKj29dLq0ZxWm4TbN7cVr1YsPe6HuGa3Q end", "id [redacted secret] end", 1},
		{"https://docs.example.test/d/1AbC9dEfGh2IjKl3MnOp4QrSt5UvWx6YzAb7Cd/edit", "https://docs.example.test/d/[redacted secret]/edit", 1},
	} {
		got, n := redact(tc.in)
		if got != tc.want || n != tc.count {
			t.Errorf("Redact(%q)\n got %q, %d\nwant %q, %d", tc.in, got, n, tc.want, tc.count)
		}
		if again, n := redact(got); again != got || n != 0 {
			t.Errorf("Redact(%q) again gave %q, %d", got, again, n)
		}
	}
}

// Ordinary text, and what only looks like a secret, stays byte for byte.
func TestRedactKeepsProse(t *testing.T) {
	for _, in := range []string{
		"The token bucket allows 20 questions a minute; see https://example.test/docs.",
		"Password rotation happens monthly.",
		"Password reset link sent to the user.",
		"Please reset your password in settings.",
		"The password field is required; the token type is bearer.",
		"tokens: 20\ntokenizer: porter\nsecretary: Jane",
		"token_type: bearer\nsecretName: ledger-db\npassword_policy: long",
		"if password == \"\" {",
		"echo password | tee out.txt",
		"Write the value after a bare `password` (`the` is prose) or **token** *here*.",
		"- [ ] Rotate the db password",
		"The db password is rotated by the vault.",
		"commit 3f2a9c8e1b7d4a6f0e5c2b9a8d7f6e5c4b3a2f1e",
		"uuid 550e8400-e29b-41d4-a716-446655440000 and 550E8400-E29B-41D4-A716-446655440000",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",
		"![](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
		"TestScriptsAskRedactVersion2026Final and ledger-migration-rollback-plan-2026-Q3",
		"https://user@example.test/path?q=1",
		"Bearer authentication-scheme is described in RFC 6750.",
	} {
		if got, n := redact(in); got != in || n != 0 {
			t.Errorf("Redact(%q) = %q, %d; want it unchanged", in, got, n)
		}
	}
}

// A cut keeps max characters, never splits a marker and counts only the markers it keeps.
func TestCutMarked(t *testing.T) {
	marked := redactMarked("a AKIAIOSFODNN7EXAMPLE b ghp_1234567890abcdefghijABCDEFGHIJ123456 c")
	type cut struct {
		Text  string
		Count int
	}
	for _, tc := range []struct {
		max  int
		want cut
	}{
		{100, cut{"a [redacted aws key] b [redacted github token] c", 2}},
		{25, cut{"a [redacted aws key] b …", 1}},
		{30, cut{"a [redacted aws key] b …", 1}},
		{2, cut{"a …", 0}},
	} {
		text, n := cutMarked(marked, tc.max)
		if diff := cmp.Diff(tc.want, cut{text, n}); diff != "" {
			t.Errorf("cut at %d (-want +got):\n%s", tc.max, diff)
		}
	}
	// Sentinels already in a note are not markers.
	text, n := cutMarked(redactMarked("x \uFDD0y\uFDD1"), 100)
	if text != "x \uFFFDy\uFFFD" || n != 0 {
		t.Errorf("got %q, %d", text, n)
	}
	if strings.ContainsAny(text, "\uFDD0\uFDD1") {
		t.Errorf("sentinel left in %q", text)
	}
}

// Redaction of any text: markers replace whole secrets, so redacting again finds nothing,
// and valid UTF-8 stays valid.
func FuzzRedact(f *testing.F) {
	for _, seed := range []string{
		"db password: correct horse battery staple",
		"token=ghp_1234567890abcdefghijABCDEFGHIJ123456 and AKIAIOSFODNN7EXAMPLE",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: 1\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
		"postgres://u:p@ss@host/db | db password | x |",
		"id 8fKj29dLq0ZxWm4TbN7cVr1YsPe6HuGa3Q",
		"db password \r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := redact(s)
		if n == 0 && out != s {
			t.Fatalf("changed %q to %q counting nothing", s, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Redact(%q) = %q, not UTF-8", s, out)
		}
		if again, m := redact(out); m != 0 {
			t.Fatalf("Redact(%q) = %q, which redacts again to %q", s, out, again)
		}
	})
}
