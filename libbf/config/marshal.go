package config

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bfgo/bf/libbf/yamlx"
)

// Header is the comment line Marshal writes first.
const Header = "# bf brain configuration (format 8): name, fields and relations, programs, channels, watch"

// Starter is the configuration bf init writes: the name and four general relations.
func Starter(name string) *Config {
	rel := func(desc string) *Field {
		return &Field{Description: desc, Type: TypeIdentity, Cardinality: Many, Relation: true}
	}
	return &Config{
		Version: Version,
		Name:    name,
		Fields: map[string]*Field{
			"author":     rel("Person explicitly credited as author; not ownership."),
			"owner":      rel("Person or organization explicitly responsible for the subject."),
			"depends-on": rel("The subject requires the target to operate or remain valid."),
			"related-to": rel("An explicit association without a more specific known relation."),
		},
		Watch: DefaultWatch(),
		order: map[string][]string{"fields": {"author", "owner", "depends-on", "related-to"}},
	}
}

// Marshal writes c as bf.yaml: the Header line, then the keys in model order (version,
// name, brains, fields, sensors, routines, watch, assistants, channels, validate), the
// entries of each mapping in the order the file declared them (new ones sorted after),
// and no setting equal to its default. It refuses to write a file that Parse would reject.
func (c *Config) Marshal() ([]byte, error) {
	root := newMap()
	add(root, "version", intNode(int64(c.Version)))
	add(root, "name", strNode(c.Name))
	if len(c.Brains) > 0 {
		m := newMap()
		for _, name := range c.keys("brains", c.Brains) {
			b := newMap()
			if c.Brains[name] != nil {
				add(b, "path", strNode(c.Brains[name].Path))
			}
			add(m, name, b)
		}
		add(root, "brains", m)
	}
	if len(c.Fields) > 0 {
		m := newMap()
		for _, name := range c.keys("fields", c.Fields) {
			add(m, name, fieldNode(c.Fields[name]))
		}
		add(root, "fields", m)
	}
	if len(c.Sensors) > 0 {
		m := newMap()
		for _, name := range c.keys("sensors", c.Sensors) {
			add(m, name, c.sensorNode(name, c.Sensors[name]))
		}
		add(root, "sensors", m)
	}
	if len(c.Routines) > 0 {
		m := newMap()
		for _, name := range c.keys("routines", c.Routines) {
			add(m, name, routineNode(c.Routines[name]))
		}
		add(root, "routines", m)
	}
	if w := watchNode(c.Watch); len(w.Content) > 0 {
		add(root, "watch", w)
	}
	if len(c.Assistants) > 0 {
		m := newMap()
		for _, name := range c.keys("assistants", c.Assistants) {
			add(m, name, c.assistantNode(name, c.Assistants[name]))
		}
		add(root, "assistants", m)
	}
	if len(c.Channels) > 0 {
		m := newMap()
		for _, name := range c.keys("channels", c.Channels) {
			add(m, name, channelNode(c.Channels[name]))
		}
		add(root, "channels", m)
	}
	if v := c.Validate; v != nil {
		m := newMap()
		if v.IndexNote != "" {
			add(m, "index_note", strNode(v.IndexNote))
		}
		if len(v.RequiredStatus) > 0 {
			add(m, "required_status", strList(v.RequiredStatus))
		}
		if len(v.ForbidPatterns) > 0 {
			add(m, "forbid_patterns", strList(v.ForbidPatterns))
		}
		add(root, "validate", m)
	}
	if mem := c.Memory; mem != nil && len(mem.Scopes) > 0 {
		m := newMap()
		add(m, "scopes", strList(mem.Scopes))
		add(root, "memory", m)
	}
	if e := c.Embeddings; e != nil {
		m := newMap()
		if e.URL != "" {
			add(m, "url", strNode(e.URL))
		}
		if e.Model != "" {
			add(m, "model", strNode(e.Model))
		}
		if len(e.Command) > 0 {
			add(m, "command", strList([]string(e.Command)))
		}
		if e.KeyEnv != "" {
			add(m, "key_env", strNode(e.KeyEnv))
		}
		if e.Timeout != DefaultEmbedTimeout {
			add(m, "timeout", intNode(int64(e.Timeout)))
		}
		if e.Batch != DefaultEmbedBatch {
			add(m, "batch", intNode(int64(e.Batch)))
		}
		if e.QueryTimeout != DefaultQueryTimeout {
			add(m, "query_timeout", intNode(int64(e.QueryTimeout)))
		}
		if e.Cooldown != DefaultEmbedCooldown {
			add(m, "cooldown", intNode(int64(e.Cooldown)))
		}
		add(root, "embeddings", m)
	}
	if a := c.Ask; a != nil {
		m := newMap()
		if len(a.Command) > 0 {
			add(m, "command", strList([]string(a.Command)))
		}
		if a.URL != "" {
			add(m, "url", strNode(a.URL))
		}
		if a.Model != "" {
			add(m, "model", strNode(a.Model))
		}
		if a.KeyEnv != "" {
			add(m, "key_env", strNode(a.KeyEnv))
		}
		if a.Timeout != DefaultAskTimeout {
			add(m, "timeout", intNode(int64(a.Timeout)))
		}
		add(root, "ask", m)
	}

	var buf bytes.Buffer
	buf.WriteString(Header + "\n")
	if err := yamlx.Encode(&buf, root); err != nil {
		return nil, err
	}
	if _, err := Parse(FileName, buf.Bytes()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// keys orders the entries of the mapping at path: declared order first, then the rest sorted.
func (c *Config) keys(path string, m any) []string {
	var all []string
	switch m := m.(type) {
	case map[string]*Brain:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Field:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Sensor:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Routine:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Assistant:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Channel:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Mapping:
		all = slices.Sorted(maps.Keys(m))
	case map[string]*Schedule:
		all = slices.Sorted(maps.Keys(m))
	}
	out := make([]string, 0, len(all))
	for _, k := range c.order[path] {
		if _, found := slices.BinarySearch(all, k); found && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, k := range all {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func fieldNode(f *Field) *yaml.Node {
	m := newMap()
	if f == nil {
		return m
	}
	add(m, "description", strNode(f.Description))
	add(m, "type", strNode(string(f.Type)))
	if f.Cardinality != Optional && f.Cardinality != "" {
		add(m, "cardinality", strNode(string(f.Cardinality)))
	}
	if f.Relation {
		add(m, "relation", boolNode(true))
	}
	if f.Broader != "" {
		add(m, "broader", strNode(f.Broader))
	}
	if len(f.Targets) > 0 {
		add(m, "targets", strList(f.Targets))
	}
	if len(f.Examples) > 0 {
		add(m, "examples", valueNode(f.Examples))
	}
	if f.Default != "" {
		add(m, "default", strNode(f.Default))
	}
	return m
}

func (c *Config) sensorNode(name string, s *Sensor) *yaml.Node {
	m := newMap()
	if s == nil {
		return m
	}
	programNode(m, s.Program, DefaultSensorBytes)
	if s.Mode != ModeWindow && s.Mode != "" {
		add(m, "mode", strNode(s.Mode))
	}
	if s.Overlap != DefaultOverlap {
		add(m, "overlap", intNode(int64(s.Overlap)))
	}
	if r := s.Reconcile; r != nil {
		rm := newMap()
		add(rm, "refresh", intNode(int64(r.Refresh)))
		add(rm, "lookback", intNode(int64(r.Lookback)))
		add(m, "reconcile", rm)
	}
	if s.Priority != PriorityNormal && s.Priority != "" {
		add(m, "priority", strNode(s.Priority))
	}
	if len(s.Fields) > 0 {
		fm := newMap()
		for _, f := range c.keys("sensors."+name+".fields", s.Fields) {
			mm := newMap()
			if mp := s.Fields[f]; mp != nil && mp.Path != "" {
				add(mm, "path", strNode(mp.Path))
			} else if mp != nil {
				add(mm, "value", valueNode(mp.Value))
			}
			mm.Style = yaml.FlowStyle
			add(fm, f, mm)
		}
		add(m, "fields", fm)
	}
	if s.SilentAfter != 0 {
		add(m, "silent_after", intNode(int64(s.SilentAfter)))
	}
	return m
}

func programNode(m *yaml.Node, g Program, defBytes int64) {
	add(m, "command", strList(g.Command))
	if !g.Enabled {
		add(m, "enabled", boolNode(false))
	}
	if g.Timeout != DefaultTimeout {
		add(m, "timeout", intNode(int64(g.Timeout)))
	}
	if g.MaxBytes != defBytes {
		add(m, "max_bytes", intNode(g.MaxBytes))
	}
	if g.Refresh != 0 {
		add(m, "refresh", intNode(int64(g.Refresh)))
	}
	if g.Lookback != DefaultLookback {
		add(m, "lookback", intNode(int64(g.Lookback)))
	}
}

func routineNode(r *Routine) *yaml.Node {
	m := newMap()
	if r == nil {
		return m
	}
	programNode(m, r.Program, DefaultRoutineBytes)
	if len(r.Hooks) > 0 {
		add(m, "hooks", strList(r.Hooks))
	}
	if r.Output != OutputLog && r.Output != "" {
		add(m, "output", strNode(r.Output))
	}
	if r.Keep != 0 {
		add(m, "keep", intNode(int64(r.Keep)))
	}
	return m
}

func watchNode(w Watch) *yaml.Node {
	m, def := newMap(), DefaultWatch()
	if w.Interval != def.Interval {
		add(m, "interval", intNode(int64(w.Interval)))
	}
	if w.PollInterval != def.PollInterval {
		add(m, "poll_interval", floatNode(w.PollInterval))
	}
	if w.Notifications != def.Notifications {
		add(m, "notifications", strNode(w.Notifications))
	}
	if w.NotificationCooldown != def.NotificationCooldown {
		add(m, "notification_cooldown", intNode(int64(w.NotificationCooldown)))
	}
	return m
}

func (c *Config) assistantNode(name string, a *Assistant) *yaml.Node {
	m := newMap()
	if a == nil {
		return m
	}
	add(m, "command", strList(a.Command))
	if a.Prompt != defaultPrompt(name) && a.Prompt != "" {
		add(m, "prompt", strNode(a.Prompt))
	}
	if !a.Enabled {
		add(m, "enabled", boolNode(false))
	}
	if len(a.Schedules) > 0 {
		sm := newMap()
		for _, s := range c.keys("assistants."+name+".schedules", a.Schedules) {
			one := newMap()
			if sc := a.Schedules[s]; sc != nil && sc.At != "" {
				add(one, "at", strNode(sc.At))
				if len(sc.Days) > 0 {
					add(one, "days", strList(sc.Days))
				}
				if sc.Timezone != "" {
					add(one, "timezone", strNode(sc.Timezone))
				}
			} else if sc != nil {
				add(one, "every", intNode(int64(sc.Every)))
			}
			one.Style = yaml.FlowStyle
			add(sm, s, one)
		}
		add(m, "schedules", sm)
	}
	if len(a.Inputs) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, in := range a.Inputs {
			im := newMap()
			if in != nil {
				add(im, "channel", strNode(in.Channel))
				add(im, "mode", strNode(in.Mode))
				if in.Every != 0 {
					add(im, "every", intNode(int64(in.Every)))
				}
			}
			im.Style = yaml.FlowStyle
			list.Content = append(list.Content, im)
		}
		add(m, "inputs", list)
	}
	if a.Post != "" {
		add(m, "post", strNode(a.Post))
	}
	if a.Reply != nil {
		rm := newMap()
		add(rm, "path", strNode(a.Reply.Path))
		rm.Style = yaml.FlowStyle
		add(m, "reply", rm)
	}
	if len(a.Gate) > 0 {
		add(m, "gate", strList(a.Gate))
	}
	if w := a.When; w != nil {
		wm := newMap()
		if len(w.Sources) > 0 {
			add(wm, "sources", strList(w.Sources))
		}
		for _, b := range []struct {
			key string
			on  bool
		}{{"review", w.Review}, {"actions", w.Actions}, {"attention", w.Attention}} {
			if b.on {
				add(wm, b.key, boolNode(true))
			}
		}
		add(m, "when", wm)
	}
	if a.Propose {
		add(m, "propose", boolNode(true))
	}
	switch {
	case a.Idempotent.All:
		add(m, "idempotent", boolNode(true))
	case len(a.Idempotent.Kinds) > 0:
		add(m, "idempotent", strList(a.Idempotent.Kinds))
	}
	if a.Retries != DefaultRetries && a.Retries != 0 {
		add(m, "retries", intNode(int64(a.Retries)))
	}
	if len(a.InputArgs) > 0 {
		add(m, "input_args", strList(a.InputArgs))
	}
	if len(a.ScheduleArgs) > 0 {
		add(m, "schedule_args", strList(a.ScheduleArgs))
	}
	if a.Keep != 0 {
		add(m, "keep", intNode(int64(a.Keep)))
	}
	if a.Timeout != DefaultTimeout {
		add(m, "timeout", intNode(int64(a.Timeout)))
	}
	if a.MaxBytes != DefaultAssistantBytes {
		add(m, "max_bytes", intNode(a.MaxBytes))
	}
	return m
}

func channelNode(ch *Channel) *yaml.Node {
	m := newMap()
	if ch == nil {
		return m
	}
	for _, op := range []string{OpSend, OpRead, OpStream} {
		capa := ch.Capability(op)
		if capa == nil {
			continue
		}
		timeout, bytes := DefaultTimeout, int64(DefaultChannelBytes)
		if op == OpStream {
			timeout, bytes = DefaultStreamTimeout, DefaultFrameBytes
		}
		cm := newMap()
		add(cm, "command", strList(capa.Command))
		if capa.Timeout != timeout {
			add(cm, "timeout", intNode(int64(capa.Timeout)))
		}
		if capa.MaxBytes != bytes {
			add(cm, "max_bytes", intNode(capa.MaxBytes))
		}
		if capa.Idempotent {
			add(cm, "idempotent", boolNode(true))
		}
		add(m, op, cm)
	}
	return m
}

func newMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, strNode(key), v)
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if needsQuotes(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// needsQuotes reports a string that bf's YAML 1.2 reading would take for another type if
// written plain. yaml.v3 quotes by its own rules; this makes sure of ours.
func needsQuotes(s string) bool {
	if s == "" || strings.ContainsAny(s, "\n\t") {
		return s == ""
	}
	v, err := yamlx.Parse("", []byte("k: "+s))
	if err != nil {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return true
	}
	got, ok := m["k"].(string)
	return !ok || got != s
}

func intNode(i int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(i, 10)}
}

func floatNode(f float64) *yaml.Node {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func strList(list []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, s := range list {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

// valueNode writes a normalised field value.
func valueNode(v any) *yaml.Node {
	switch x := v.(type) {
	case string:
		return strNode(x)
	case bool:
		return boolNode(x)
	case int64:
		return intNode(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		return floatNode(x)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, item := range x {
			n.Content = append(n.Content, valueNode(item))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// keyOrder records the key order of every mapping in data, by dotted path. data has
// already parsed, so errors cannot happen; a failure just leaves the order unknown.
func keyOrder(data []byte) map[string][]string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	out := map[string][]string{}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if depth > yamlx.MaxDepth || n.Kind != yaml.MappingNode {
			return
		}
		keys := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			keys = append(keys, k)
			walk(n.Content[i+1], yamlx.Join(path, k), depth+1)
		}
		out[path] = keys
	}
	walk(doc.Content[0], "", 1)
	return out
}
