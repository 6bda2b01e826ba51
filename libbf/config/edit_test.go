package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddFieldsKeepsText(t *testing.T) {
	importance := map[string]*Field{"importance": {Description: "How much it matters.", Type: TypeInteger}}
	tests := []struct {
		name, src, want string
	}{{
		name: "no fields block",
		src:  "# my brain\nversion: 8\nname: acme   # the team's\n",
		want: "# my brain\nversion: 8\nname: acme   # the team's\nfields:\n  importance:\n    description: How much it matters.\n    type: integer\n",
	}, {
		name: "a fields block with entries and comments",
		src:  "version: 8\nname: acme\n# declared by hand\nfields:\n    owner:   # who\n        description: \"Owner.\"\n        type: string\n\n# end\n",
		want: "version: 8\nname: acme\n# declared by hand\nfields:\n    importance:\n      description: How much it matters.\n      type: integer\n    owner:   # who\n        description: \"Owner.\"\n        type: string\n\n# end\n",
	}, {
		name: "an empty fields key",
		src:  "version: 8\nfields:\nname: acme\n",
		want: "version: 8\nfields:\n  importance:\n    description: How much it matters.\n    type: integer\nname: acme\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AddFields([]byte(tt.src), importance)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			c, err := Parse(FileName, got)
			if err != nil {
				t.Fatal(err)
			}
			if f := c.Fields["importance"]; f == nil || f.Type != TypeInteger {
				t.Errorf("importance not declared: %+v", c.Fields)
			}
		})
	}
}

func TestAddScopes(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{{
		name: "no memory block",
		src:  "version: 8\nname: acme # keep\n",
		want: "version: 8\nname: acme # keep\nmemory:\n  scopes:\n    - channel:deploy\n",
	}, {
		name: "scopes listed",
		src:  "version: 8\nname: acme\nmemory:\n  scopes:\n  - global # first\n",
		want: "version: 8\nname: acme\nmemory:\n  scopes:\n  - channel:deploy\n  - global # first\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AddScopes([]byte(tt.src), []string{"channel:deploy"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddFieldsFlow(t *testing.T) {
	_, err := AddFields([]byte("version: 8\nname: acme\nfields: {}\n"), map[string]*Field{"x": {Type: TypeString}})
	if err == nil || !strings.Contains(err.Error(), "fields is not a block of its own") {
		t.Fatalf("got %v", err)
	}
}
