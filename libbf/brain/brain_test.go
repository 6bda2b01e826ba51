package brain

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpen(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fixture)
		root    string
		other   bool // run as another account
		want    string
		wantErr string
	}{
		{name: "brain", setup: func(f *fixture) { f.brain("w", "work") }, root: "~/w", want: "work"},
		{name: "relative to the working directory", setup: func(f *fixture) { f.brain("w", "work") }, root: "w", want: "work"},
		{name: "absent", setup: func(f *fixture) {}, root: "~/w", wantErr: "~/w: brain folder does not exist"},
		{name: "a file", setup: func(f *fixture) { f.write("w", "") }, root: "~/w", wantErr: "~/w: not a folder"},
		{name: "no bf.yaml", setup: func(f *fixture) { os.MkdirAll(f.path("w"), 0o700) }, root: "~/w", wantErr: "~/w: no bf.yaml here; this is not a brain folder"},
		{name: "bf.yaml symlink", setup: func(f *fixture) {
			f.brain("x", "work")
			os.MkdirAll(f.path("w"), 0o700)
			f.symlink(f.path("x/bf.yaml"), "w/bf.yaml")
		}, root: "~/w", wantErr: "~/w: bf.yaml is not a regular file owned by you"},
		{name: "bf.yaml folder", setup: func(f *fixture) { os.MkdirAll(f.path("w/bf.yaml"), 0o700) }, root: "~/w", wantErr: "~/w: bf.yaml is not a regular file owned by you"},
		{name: "bf.yaml of another account", setup: func(f *fixture) { f.brain("w", "work") }, root: "~/w", other: true, wantErr: "~/w: bf.yaml is not a regular file owned by you"},
		{name: "invalid bf.yaml", setup: func(f *fixture) { f.write("w/bf.yaml", "version: 8\nname: work\nbogus: 1\n") }, root: "~/w", wantErr: "~/w: bf.yaml: bogus: unknown key"},
		{name: "empty path", setup: func(f *fixture) {}, root: "", wantErr: "brain path must be 1 to 4096 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			if tt.other {
				f.euid = os.Geteuid() + 1000
			}
			b, err := f.env().Open(tt.root)
			if diff := cmp.Diff(tt.wantErr, f.errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if b.Name != tt.want || b.Root != f.path("w") || b.Config == nil || b.ID == (Identity{}) {
				t.Errorf("got %+v", b)
			}
		})
	}
}

func TestOpenAbsentIsNotExist(t *testing.T) {
	f := newFixture(t)
	_, err := f.env().Open(f.path("nowhere"))
	if !errors.Is(err, fs.ErrNotExist) || KindOf(err) != failure {
		t.Errorf("err = %v (kind %v)", err, KindOf(err))
	}
}

func TestKindOf(t *testing.T) {
	if KindOf(nil) != 0 || KindOf(errors.New("x")) != failure || KindOf(invalidf("x")) != Invalid || KindOf(failf(nil, "x")) != failure {
		t.Error("KindOf")
	}
	wrapped := withSource("--brain", invalidf("bad"))
	if !errors.Is(wrapped, errInvalid) || !strings.HasPrefix(wrapped.Error(), "--brain: ") {
		t.Errorf("withSource: %v", wrapped)
	}
}
