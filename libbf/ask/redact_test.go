package ask

import (
	"strings"
	"testing"
)

// The secrets below are shaped like real ones and are not valid anywhere.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"key AKIAIOSFODNN7EXAMPLE here", "key [redacted aws key] here"},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [redacted]"},
		{"token ghp_1234567890abcdefghijABCDEFGHIJ123456 used", "token [redacted github token] used"},
		{"pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "pat [redacted github token]"},
		{"OPENAI sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "OPENAI [redacted api key]"},
		{"claude sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "claude [redacted api key]"},
		{"slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack [redacted slack token]"},
		{"maps AIzaSyA-1234567890abcdefghijklmnopqrstu", "maps [redacted google key]"},
		{"stripe sk_live_51HqLyjWDarjtT1zdp7dcXGDf", "stripe [redacted stripe key]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt [redacted token]"},
		{"curl -H 'Authorization: Bearer abcdef0123456789abcdef0123456789'", "curl -H 'Authorization: Bearer [redacted]'"},
		{"db postgres://billing:s3cr3t-Pa55@db.internal:5432/ledger", "db postgres://billing:[redacted]@db.internal:5432/ledger"},
		{"password: hunter2hunter2", "password: [redacted]"},
		{`DB_PASSWORD="correct horse"`, `DB_PASSWORD=[redacted]`},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "[redacted private key]\nafter"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "[redacted private key]"},
		// Ordinary text stays as it is.
		{"The token bucket allows 20 questions a minute; see https://example.test/docs.", "The token bucket allows 20 questions a minute; see https://example.test/docs."},
		{"Password rotation happens monthly.", "Password rotation happens monthly."},
	} {
		got, n := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if (n > 0) != (tc.in != tc.want) {
			t.Errorf("Redact(%q) counted %d", tc.in, n)
		}
		for _, secret := range []string{"EXAMPLEKEY", "s3cr3t", "hunter2", "AbCdEf", "abcdef0123456789"} {
			if strings.Contains(got, secret) && tc.in != tc.want {
				t.Errorf("Redact(%q) kept %q", tc.in, secret)
			}
		}
	}
}
