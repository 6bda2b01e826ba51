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

// header is the comment line Marshal writes first.
const header = "# bf brain configuration (format 8): name, fields and relations, programs, channels, watch"

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
		Watch: defaultWatch(),
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
			add(m, name, fieldNode(name, c.Fields[name]))
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
			add(m, name, routineNode(name, c.Routines[name]))
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
			add(m, name, channelNode(name, c.Channels[name]))
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
		addSetting(m, "embeddings", "timeout", e.Timeout)
		addSetting(m, "embeddings", "batch", e.Batch)
		addSetting(m, "embeddings", "query_timeout", e.QueryTimeout)
		addSetting(m, "embeddings", "cooldown", e.Cooldown)
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
		addSetting(m, "ask", "timeout", a.Timeout)
		add(root, "ask", m)
	}

	var buf bytes.Buffer
	buf.WriteString(header + "\n")
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

func fieldNode(name string, f *Field) *yaml.Node {
	m := newMap()
	if f == nil {
		return m
	}
	add(m, "description", strNode(f.Description))
	add(m, "type", strNode(string(f.Type)))
	addSetting(m, "fields."+name, "cardinality", string(f.Cardinality))
	addSetting(m, "fields."+name, "relation", f.Relation)
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
	p := "sensors." + name
	programNode(m, p, s.Program)
	addSetting(m, p, "mode", s.Mode)
	addSetting(m, p, "overlap", s.Overlap)
	if r := s.Reconcile; r != nil {
		rm := newMap()
		add(rm, "refresh", intNode(int64(r.Refresh)))
		add(rm, "lookback", intNode(int64(r.Lookback)))
		add(m, "reconcile", rm)
	}
	addSetting(m, p, "priority", s.Priority)
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
	addSetting(m, p, "silent_after", s.SilentAfter)
	return m
}

// programNode writes the settings of the sensor or routine at path that Program holds.
func programNode(m *yaml.Node, path string, g Program) {
	add(m, "command", strList(g.Command))
	addSetting(m, path, "enabled", g.Enabled)
	addSetting(m, path, "timeout", g.Timeout)
	addSetting(m, path, "max_bytes", g.MaxBytes)
	addSetting(m, path, "refresh", g.Refresh)
	addSetting(m, path, "lookback", g.Lookback)
}

func routineNode(name string, r *Routine) *yaml.Node {
	m := newMap()
	if r == nil {
		return m
	}
	p := "routines." + name
	programNode(m, p, r.Program)
	if len(r.Hooks) > 0 {
		add(m, "hooks", strList(r.Hooks))
	}
	addSetting(m, p, "output", r.Output)
	addSetting(m, p, "keep", r.Keep)
	return m
}

func watchNode(w Watch) *yaml.Node {
	m := newMap()
	addSetting(m, "watch", "interval", w.Interval)
	addSetting(m, "watch", "poll_interval", w.PollInterval)
	addSetting(m, "watch", "notifications", w.Notifications)
	addSetting(m, "watch", "notification_cooldown", w.NotificationCooldown)
	return m
}

// addSetting adds key: v to m unless v is the default of the setting at path.key
// (Setting.isDefault).
func addSetting[T int | int64 | float64 | string | bool](m *yaml.Node, path, key string, v T) {
	var n *yaml.Node
	var value any
	switch x := any(v).(type) {
	case int:
		value, n = int64(x), intNode(int64(x))
	case int64:
		value, n = x, intNode(x)
	case float64:
		value, n = x, floatNode(x)
	case string:
		value, n = x, strNode(x)
	case bool:
		value, n = x, boolNode(x)
	}
	if !described(yamlx.Join(path, key)).isDefault(value) {
		add(m, key, n)
	}
}

func (c *Config) assistantNode(name string, a *Assistant) *yaml.Node {
	m := newMap()
	if a == nil {
		return m
	}
	p := "assistants." + name
	add(m, "command", strList(a.Command))
	if a.Prompt != defaultPrompt(name) && a.Prompt != "" {
		add(m, "prompt", strNode(a.Prompt))
	}
	addSetting(m, p, "enabled", a.Enabled)
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
		for i, in := range a.Inputs {
			im := newMap()
			if in != nil {
				add(im, "channel", strNode(in.Channel))
				add(im, "mode", strNode(in.Mode))
				addSetting(im, yamlx.Join(p+".inputs", i), "every", in.Every)
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
	addSetting(m, p, "propose", a.Propose)
	switch {
	case a.Idempotent.All:
		add(m, "idempotent", boolNode(true))
	case len(a.Idempotent.Kinds) > 0:
		add(m, "idempotent", strList(a.Idempotent.Kinds))
	}
	addSetting(m, p, "retries", a.Retries)
	if len(a.InputArgs) > 0 {
		add(m, "input_args", strList(a.InputArgs))
	}
	if len(a.ScheduleArgs) > 0 {
		add(m, "schedule_args", strList(a.ScheduleArgs))
	}
	addSetting(m, p, "keep", a.Keep)
	addSetting(m, p, "timeout", a.Timeout)
	addSetting(m, p, "max_bytes", a.MaxBytes)
	return m
}

func channelNode(name string, ch *Channel) *yaml.Node {
	m := newMap()
	if ch == nil {
		return m
	}
	for _, op := range []string{OpSend, OpRead, OpStream} {
		capa := ch.Capability(op)
		if capa == nil {
			continue
		}
		p := "channels." + name + "." + op
		cm := newMap()
		add(cm, "command", strList(capa.Command))
		addSetting(cm, p, "timeout", capa.Timeout)
		addSetting(cm, p, "max_bytes", capa.MaxBytes)
		if op == OpSend {
			addSetting(cm, p, "idempotent", capa.Idempotent)
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
