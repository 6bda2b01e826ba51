package brain

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNameFromFolder(t *testing.T) {
	const askName = "cannot derive a brain name from the folder name; pass --name NAME (a lowercase letter, then up to 63 lowercase letters, digits or -)"
	tests := []struct {
		path, want, wantErr string
	}{
		{path: "~/brain", want: "brain"},
		{path: "~/Team Brain", want: "team-brain"},
		{path: "/srv/Équipe Été", want: "equipe-ete"},
		{path: "/srv/Crème  Brûlée!!", want: "creme-brulee"},
		{path: "/srv/a - b", want: "a---b"},
		{path: "/srv/--notes--", want: "notes"},
		{path: "/srv/ﬁle Ｗork", want: "file-work"},
		{path: "/srv/İstanbul", want: "istanbul"},
		{path: "/srv/Straße", want: "stra-e"},
		{path: "/srv/my_brain.v2", want: "my-brain-v2"},
		{path: "/srv/brain/", want: "brain"},
		{path: "work", want: "work"},
		{path: "/srv/" + strings.Repeat("a", 64), want: strings.Repeat("a", 64)},
		{path: "/srv/" + strings.Repeat("a", 65), wantErr: askName},
		{path: "/srv/2024 notes", wantErr: askName},
		{path: "/srv/日本語", wantErr: askName},
		{path: "/srv/---", wantErr: askName},
		{path: "/", wantErr: askName},
		{path: "", wantErr: "PATH: empty value; pass the folder of the new brain"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f := newFixture(t)
			got, err := f.env().NameFromFolder(tt.path)
			if diff := cmp.Diff(tt.wantErr, f.errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if err != nil && !errors.Is(err, errInvalid) {
				t.Errorf("error is not invalid input")
			}
			if got != tt.want {
				t.Errorf("name = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNameFromFolderDot(t *testing.T) {
	f := newFixture(t)
	f.wd = f.path("Work Notes")
	os.MkdirAll(f.wd, 0o700)
	got, err := f.env().NameFromFolder(".")
	if err != nil || got != "work-notes" {
		t.Errorf("NameFromFolder(.) = %q, %v", got, err)
	}
}
