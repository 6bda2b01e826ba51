// Package compat finds the shared example brain that tests compare bf against: the
// retrieval brain in the shared/ folder that sits beside the repository checkout.
package compat

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the example brain's folder, written in an earlier brain format: read it,
// never write there.
// Outside CI a checkout without shared/ skips the test; in CI its absence is a failure,
// so the comparison cannot silently stop running.
func Dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "compat", "retrieval")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("shared/compat/retrieval not found beside the checkout")
	}
	t.Skip("shared/compat/retrieval not found beside the checkout")
	return ""
}
