package yamlx

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// Encode appends node to buf as YAML in the layout of every YAML file bf writes (bf.yaml,
// front matter): block style, indented by two spaces.
func Encode(buf *bytes.Buffer, node *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}
