package damage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleBlocks is how many blocks of the example brain's cache the sampled sweep damages
// (make bench-damage damages every block).
const sampleBlocks = 20

// TestSampledSweep damages a sample of the example brain's cache blocks and requires what
// the full sweep requires: no silent wrong answer and no error that persists.
func TestSampledSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bf and runs it a few hundred times")
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	// BF_DAMAGE_BIN runs the sweep with other binaries, such as a build of an older commit.
	bin := os.Getenv("BF_DAMAGE_BIN")
	if bin == "" {
		bin = t.TempDir()
		build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./bf", "./bf-index", "./bf-search", "./bf-read")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building bf: %v\n%s", err, out)
		}
	}
	target := Target{
		Name:     "example",
		Dir:      filepath.Join(root, "examples", "brain"),
		Commands: [][]string{{"search", "ledger"}, {"read"}, {"read", "concepts/ledger.md"}},
	}
	cases, err := Sweep(context.Background(), filepath.Join(bin, "bf"), t.TempDir(), target, sampleBlocks, 1, runtime.NumCPU(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var bad []Case
	for _, c := range cases {
		if c.Outcome == SilentWrong || c.Outcome == PersistentError {
			bad = append(bad, c)
		}
	}
	if diff := cmp.Diff([]Case(nil), bad); diff != "" {
		t.Errorf("%d of %d damaged cases answered wrongly or failed for good (-want +got):\n%s", len(bad), len(cases), diff)
	}
	if len(cases) != sampleBlocks*len(Kinds)*len(target.Commands) {
		t.Errorf("%d cases, want %d", len(cases), sampleBlocks*len(Kinds)*len(target.Commands))
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		size, limit int
		want        []int
	}{
		{size: 5 * BlockSize, limit: 0, want: []int{0, 1, 2, 3, 4}},
		{size: 5*BlockSize + 1, limit: 3, want: []int{0, 2, 5}},
		{size: 10 * BlockSize, limit: 1, want: []int{0}},
		{size: 2 * BlockSize, limit: 9, want: []int{0, 1}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, spread(tt.size, tt.limit)); diff != "" {
			t.Errorf("spread(%d, %d) (-want +got):\n%s", tt.size, tt.limit, diff)
		}
	}
}
