// Package schema holds the JSON Schemas (draft 2020-12) that bf publishes with bf schema:
// bf.yaml (kind brain, title Config), the machine registry (registry, UserConfig), retrieval
// suites (eval, Suite) and the replies of bf search, bf read, bf collect, bf update and
// bf status (search-reply, read-reply, collect-reply, update-reply, status-reply), and of the memory
// verbs bf remember, bf recall and bf brief (remember-reply, recall-reply, brief-reply), of
// bf import (import-reply) and of bf ask (ask-reply).
//
// The schemas are hand-written JSON files embedded in the package, so each reads on its
// own; the definitions the reply schemas share (items, claims, coverage, windows,
// problems, instants…) live once in reply.defs.json and are copied into each reply
// schema's $defs the first time a schema is asked for. Get prints a schema the way bf
// prints every document: compact JSON with sorted keys and without HTML escaping.
//
// Published schemas are open: none sets additionalProperties to false, so a client
// validating a reply of a later minor release, which may add optional fields, still
// accepts it. The rules bf enforces beyond a schema's reach (a relation's broader
// relation being declared, names unique within a suite, byte limits…) are stated in the
// descriptions.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/reply"
)

// Schema kinds.
const (
	KindBrain         = "brain"
	kindRegistry      = "registry"
	kindEval          = "eval"
	KindSearchReply   = "search-reply"
	kindReadReply     = "read-reply"
	kindCollectReply  = "collect-reply"
	kindUpdateReply   = "update-reply"
	kindStatusReply   = "status-reply"
	kindRememberReply = "remember-reply"
	kindRecallReply   = "recall-reply"
	kindBriefReply    = "brief-reply"
	kindImportReply   = "import-reply"
	kindAskReply      = "ask-reply"
)

// DefaultKind is the schema bf schema prints without --kind.
const DefaultKind = KindBrain

// kinds lists every kind in the order bf schema -h names them, with its file.
var kinds = []struct{ kind, file string }{
	{KindBrain, "brain.schema.json"},
	{kindRegistry, "registry.schema.json"},
	{kindEval, "eval.schema.json"},
	{KindSearchReply, "search-reply.schema.json"},
	{kindReadReply, "read-reply.schema.json"},
	{kindCollectReply, "collect-reply.schema.json"},
	{kindUpdateReply, "update-reply.schema.json"},
	{kindStatusReply, "status-reply.schema.json"},
	{kindRememberReply, "remember-reply.schema.json"},
	{kindRecallReply, "recall-reply.schema.json"},
	{kindBriefReply, "brief-reply.schema.json"},
	{kindImportReply, "import-reply.schema.json"},
	{kindAskReply, "ask-reply.schema.json"},
}

// sharedDefs is the file of definitions copied into every reply schema.
const sharedDefs = "reply.defs.json"

//go:embed *.json
var files embed.FS

// printed holds each kind's schema as Get returns it, built on the first Get: most runs of the
// binaries that link this package print no schema.
var printed = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	shared, err := load(sharedDefs)
	if err != nil {
		panic(err)
	}
	for _, k := range kinds {
		doc, err := load(k.file)
		if err != nil {
			panic(err)
		}
		if strings.HasSuffix(k.kind, "-reply") {
			defs, _ := doc["$defs"].(map[string]any)
			if defs == nil {
				defs = map[string]any{}
			}
			for name, def := range shared["$defs"].(map[string]any) {
				if _, own := defs[name]; own {
					panic(fmt.Sprintf("schema: %s redefines the shared definition %s", k.file, name))
				}
				defs[name] = def
			}
			doc["$defs"] = defs
		}
		b, err := reply.Marshal(doc)
		if err != nil {
			panic(err)
		}
		out[k.kind] = b
	}
	return out
})

// load decodes an embedded schema file, keeping numbers exactly as written.
func load(name string) (map[string]any, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", name, err)
	}
	return doc, nil
}

// Kinds returns the schema kinds: brain, registry, eval, search-reply, read-reply,
// collect-reply, update-reply, status-reply, remember-reply, recall-reply, brief-reply,
// import-reply and ask-reply.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.kind
	}
	return out
}

// Get returns the schema of kind as compact JSON with sorted keys, without a trailing
// newline. An empty kind is DefaultKind. An unknown kind is invalid input
// (*reply.InputError naming the argument kind) that lists the valid kinds.
func Get(kind string) ([]byte, error) {
	if kind == "" {
		kind = DefaultKind
	}
	b, ok := printed()[kind]
	if !ok {
		return nil, &reply.InputError{Argument: "kind", Err: errors.New("expected " + orList(Kinds()))}
	}
	return slices.Clone(b), nil
}

func orList(words []string) string {
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
