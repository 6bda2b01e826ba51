package record

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFileName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"offline", "8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json"},
		{"atlas-launch-plan", "7473cad5080bcdf9b603f2d5d1fb5c4d6d6c7ff4c4b5499c9e5e70ca3d1cbcb4.json"},
		{"atlas-status-2026-09-15", "cb138461662bf25b608e6391919277e03ddf57b431f7079e6e6df310d4549f41.json"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.json"},
	}
	for _, tt := range tests {
		if got := FileName(tt.id); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
		if !ValidFileName(FileName(tt.id)) {
			t.Errorf("ValidFileName(FileName(%q)) = false", tt.id)
		}
	}
	if got := FileName("offline"); !strings.HasPrefix(got, "8e2c7ac5") || !strings.HasSuffix(got, "20654ae.json") {
		t.Errorf("FileName(offline) = %q", got)
	}
	if got := FileName("atlas-launch-plan"); !strings.HasPrefix(got, "7473cad5") {
		t.Errorf("FileName(atlas-launch-plan) = %q", got)
	}
}

func TestValidFileName(t *testing.T) {
	hex := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name string
		want bool
	}{
		{hex + ".json", true},
		{strings.ToUpper(hex) + ".json", false},
		{hex[1:] + ".json", false},
		{hex + "0.json", false},
		{hex + ".JSON", false},
		{hex + ".json.tmp", false},
		{hex, false},
		{"g" + hex[1:] + ".json", false},
		{"x.json", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidFileName(tt.name); got != tt.want {
			t.Errorf("ValidFileName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckFileName(t *testing.T) {
	r := Record{ID: "offline", Title: "t"}
	tests := []struct {
		name string
		want string
	}{
		{"8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json", ""},
		{"memories/meetings/8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json", ""},
		{"7473cad5080bcdf9b603f2d5d1fb5c4d6d6c7ff4c4b5499c9e5e70ca3d1cbcb4.json", "record id does not match its SHA-256 filename; run bf validate and reconcile it"},
		{"offline.json", "expected memories/<source>/<sha256-id>.json"},
		{"8E2C7AC508139A02AF859DE64A4743C1F3946837279332C35EC8F5DDF20654AE.json", "expected memories/<source>/<sha256-id>.json"},
	}
	for _, tt := range tests {
		err := CheckFileName(r, tt.name)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckFileName(%q) = %v", tt.name, err)
			}
			continue
		}
		checkErr(t, err, tt.want)
	}
}

func TestTimeHelpers(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type got struct {
		Event, Updated, Observed       time.Time
		HasEvent, HasUpdated, HasObsvd bool
		Partial                        bool
	}
	read := func(r Record) got {
		var g got
		g.Event, g.HasEvent = r.EventTime()
		g.Updated, g.HasUpdated = r.Updated()
		g.Observed, g.HasObsvd = r.Observed()
		g.Partial = r.Partial()
		return g
	}
	tests := []struct {
		name string
		r    Record
		want got
	}{
		{"undated", Record{ID: "a", Title: "t"}, got{}},
		{"empty updated", Record{Attributes: map[string]any{"updated": "", "partial": false}}, got{}},
		{"wrong types", Record{Attributes: map[string]any{"updated": 1, "observed": true, "partial": "true"}}, got{}},
		{"all set", Record{Time: "2026-09-15T14:00:00.000000Z", Attributes: map[string]any{
			"updated": "2026-10-01T17:00:00.000000Z", "observed": "2026-10-02T08:15:03.412000Z", "partial": true,
		}}, got{
			Event: at("2026-09-15T14:00:00Z"), HasEvent: true,
			Updated: at("2026-10-01T17:00:00Z"), HasUpdated: true,
			Observed: at("2026-10-02T08:15:03.412Z"), HasObsvd: true,
			Partial: true,
		}},
		{"not yet normalised", Record{Time: "2026-09-15T16:00:00+02:00"}, got{Event: at("2026-09-15T14:00:00Z"), HasEvent: true}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, read(tt.r)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}
