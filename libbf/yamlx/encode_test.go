package yamlx

import (
	"bytes"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestEncode(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("name: work\nfields: {owner: {type: identity}}\ntags: [a, b]\n"), &doc); err != nil {
		t.Fatal(err)
	}
	buf := bytes.NewBufferString("# header\n")
	if err := Encode(buf, &doc); err != nil {
		t.Fatal(err)
	}
	want := "# header\nname: work\nfields: {owner: {type: identity}}\ntags: [a, b]\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf, want)
	}
	block := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "fields"},
		{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "owner"}, {Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "a"}}}}},
	}}
	buf.Reset()
	if err := Encode(buf, block); err != nil {
		t.Fatal(err)
	}
	if want := "fields:\n  owner:\n    - a\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf, want)
	}
}
