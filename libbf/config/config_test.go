package config

import (
	"errors"
	"github.com/bfgo/bf/libbf/compat"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bfgo/bf/libbf/yamlx"
)

var ignoreOrder = cmpopts.IgnoreUnexported(Config{})

func fullWant() *Config {
	return &Config{
		Version: 8,
		Name:    "acme",
		Brains: map[string]*Brain{
			"team":    {Path: "../team"},
			"archive": {Path: "~/brains/archive"},
		},
		Fields: map[string]*Field{
			"author": {
				Description: "Person explicitly credited as author; not ownership.",
				Type:        TypeIdentity, Cardinality: Many, Relation: true,
				Targets: []string{"person:email/", "bf:"},
				Examples: []any{
					[]any{"person:email/dana@example.test", "bf://acme/people/dana"},
					[]any{},
				},
			},
			"participant": {
				Description: "Person who took part in the event.",
				Type:        TypeIdentity, Cardinality: Many, Relation: true,
			},
			"organizer": {
				Description: "Person who organized the event.",
				Type:        TypeIdentity, Cardinality: Many, Relation: true, Broader: "participant",
			},
			"kind": {
				Description: "Common kind of source item.",
				Type:        TypeString, Cardinality: one,
				Examples: []any{"commit", "message", "document"},
				Default:  "/attributes/kind",
			},
			"size": {
				Description: "Size in bytes.", Type: TypeInteger, Cardinality: optional,
				Examples: []any{int64(0), int64(42)},
			},
			"score": {
				Description: "Relevance score.", Type: typeNumber, Cardinality: optional,
				Examples: []any{int64(1), 2.5},
			},
			"draft": {
				Description: "Whether the item is a draft.", Type: TypeBoolean, Cardinality: optional,
				Examples: []any{true},
			},
			"due": {
				Description: "When the item is due.", Type: TypeTimestamp, Cardinality: optional,
				Examples: []any{"2026-10-05T07:00:00.000000Z"},
			},
		},
		Sensors: map[string]*Sensor{
			"git-commits": {
				Program: Program{
					Command:  Command{"sensors/git-history.py", "{{home}}/code", "{{start}}", "{{end}}", "{{lines:sensors/repos.txt}}"},
					Enabled:  false,
					Timeout:  600,
					MaxBytes: 1048576,
					Refresh:  3600,
					Lookback: 604800,
				},
				Mode:    ModeWindow,
				Overlap: 600,
				Reconcile: &Reconcile{
					Refresh: 86400, Lookback: 2592000,
				},
				Priority: priorityLow,
				Fields: map[string]*Mapping{
					"author": {Path: "/attributes/author_refs"},
					"kind":   {Value: "commit"},
					"due":    {Value: "2026-10-05T07:00:00.000000Z"},
				},
				SilentAfter: 172800,
			},
			"catalog": {
				Program: Program{
					Command:  Command{"uv", "run", "--no-project", "sensors/catalog.py", "{{brain}}"},
					Enabled:  true,
					Timeout:  300,
					MaxBytes: 64 << 20,
					Refresh:  0,
					Lookback: 86400,
				},
				Mode:     ModeSnapshot,
				Overlap:  300,
				Priority: priorityNormal,
			},
		},
		Routines: map[string]*Routine{
			"weekly-review": {
				Program: Program{
					Command:  Command{"routines/review.sh", "{{start}}"},
					Enabled:  false,
					Timeout:  60,
					MaxBytes: 2097152,
					Refresh:  604800,
					Lookback: 3600,
				},
				Hooks:  []string{"pre-push", "post-merge"},
				Output: OutputAction,
				Keep:   4,
			},
		},
		Watch: Watch{Interval: 120, PollInterval: 0.5, Notifications: "all", NotificationCooldown: 0},
		Assistants: map[string]*Assistant{
			"helper": {
				Command: Command{"claude", "-p", "--json-schema", "{{schema}}", "{{context}}"},
				Prompt:  "prompts/helper.md",
				Enabled: false,
				Schedules: map[string]*Schedule{
					"morning": {At: "08:30", Days: []string{"mon", "tue", "wed", "thu", "fri"}, Timezone: "Europe/Paris"},
					"hourly":  {Every: 3600},
				},
				Inputs: []*Input{
					{Channel: "chat-home", Mode: InputRead, Every: 60},
					{Channel: "chat-work", Mode: InputStream},
				},
				Post:         "desktop",
				Reply:        &Reply{Path: "/structured_output"},
				Gate:         Command{"assistants/gate.sh", "{{start}}"},
				When:         &When{Sources: []string{"git-commits"}, Review: true, Actions: true, Attention: true},
				Propose:      true,
				Idempotent:   Idempotent{Kinds: []string{RunSchedule, RunWake}},
				Retries:      3,
				InputArgs:    []string{"--resume"},
				ScheduleArgs: []string{"--fresh", "{{end}}"},
				Keep:         100,
				Timeout:      900,
				MaxBytes:     4194304,
			},
			"digest": {
				Command:    Command{"cat"},
				Prompt:     "prompts/daily-digest.md",
				Enabled:    true,
				Idempotent: Idempotent{All: true},
				Retries:    5,
				Timeout:    300,
				MaxBytes:   1 << 20,
			},
		},
		Channels: map[string]*Channel{
			"chat-home": {
				Send:   &Capability{Command: Command{"python3", "channels/chat.py", "send", "home"}, Idempotent: true, Timeout: 30, MaxBytes: 65536},
				Read:   &Capability{Command: Command{"python3", "channels/chat.py", "read", "home", "{{start}}", "{{end}}"}, Timeout: 120, MaxBytes: 268435456},
				Stream: &Capability{Command: Command{"python3", "channels/chat.py", "stream", "home", "--since={{start}}"}, Timeout: 10, MaxBytes: 1024},
			},
			"chat-work": {
				Send:   &Capability{Command: Command{"channels/work.sh", "send"}, Timeout: 300, MaxBytes: 64 << 20},
				Stream: &Capability{Command: Command{"channels/work.sh", "stream"}, Timeout: 30, MaxBytes: 1 << 20},
			},
			"desktop": {
				Send: &Capability{Command: Command{"notify-adapter", "{{brain}}"}, Timeout: 300, MaxBytes: 64 << 20},
			},
		},
		Validate: &Validate{
			IndexNote:      "concepts/index.md",
			RequiredStatus: []string{"stable", "draft"},
			ForbidPatterns: []string{`(?i)password\s*=`, `BEGIN [A-Z]+ PRIVATE KEY`},
		},
	}
}

func readFull(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseFull(t *testing.T) {
	got, err := Parse("bf.yaml", readFull(t))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fullWant(), got, ignoreOrder); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	c, err := Parse("bf.yaml", readFull(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("bf.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back, ignoreOrder); diff != "" {
		t.Errorf("round trip mismatch (-parsed +reparsed):\n%s\n%s", diff, out)
	}
	// Declaration order survives: team before archive, author before participant.
	s := string(out)
	if strings.Index(s, "team:") > strings.Index(s, "archive:") || strings.Index(s, "author:") > strings.Index(s, "participant:") {
		t.Errorf("declaration order lost:\n%s", s)
	}
	// Defaults are omitted.
	if strings.Contains(s, "mode: window") || strings.Contains(s, "lookback: 86400") {
		t.Errorf("default written:\n%s", s)
	}
}

const starterYAML = `# bf brain configuration (format 8): name, fields and relations, programs, channels, watch
version: 8
name: brain
fields:
  author:
    description: Person explicitly credited as author; not ownership.
    type: identity
    cardinality: many
    relation: true
  owner:
    description: Person or organization explicitly responsible for the subject.
    type: identity
    cardinality: many
    relation: true
  depends-on:
    description: The subject requires the target to operate or remain valid.
    type: identity
    cardinality: many
    relation: true
  related-to:
    description: An explicit association without a more specific known relation.
    type: identity
    cardinality: many
    relation: true
`

func TestStarterRoundTrip(t *testing.T) {
	start := Starter("brain")
	out, err := start.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(starterYAML, string(out)); diff != "" {
		t.Errorf("starter bf.yaml (-want +got):\n%s", diff)
	}
	back, err := Parse("bf.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(start, back, ignoreOrder); diff != "" {
		t.Errorf("Starter→Marshal→Parse (-want +got):\n%s", diff)
	}
	if got := back.Relations(); !cmp.Equal(got, []string{"author", "depends-on", "owner", "related-to"}) {
		t.Errorf("Relations = %v", got)
	}
	if _, err := Starter("Not A Name").Marshal(); err == nil || err.Error() != "bf.yaml: name: "+nameRule {
		t.Errorf("invalid starter name: %v", err)
	}
}

func TestMarshalQuotesAmbiguousStrings(t *testing.T) {
	c := Starter("brain")
	tricky := []string{"8", "true", "yes", "~", "null", "1e3", "0o17", "0x1F", ".inf", "+12", "1:30",
		"2026-10-05", "# x", "a: b", "{{start}}", "- x", "[x]", "'q'", `"d"`, " lead", "trail ", "ünïcode", "a #b", "*x", "&x", "!x", "%x", "@x", "`x", "|", ">"}
	c.Fields["kind"] = &Field{Description: "Kind.", Type: TypeString, Cardinality: Many, Examples: []any{anySlice(tricky)}}
	c.Brains = map[string]*Brain{"other": {Path: "yes"}}
	c.Assistants = map[string]*Assistant{"bot": {Command: Command{"h", "line one\n\tindented: yes\n# not a comment\n"}, Enabled: true,
		Prompt: "prompts/bot.md", Retries: defaultRetries, Timeout: DefaultTimeout, MaxBytes: defaultAssistantBytes}}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("bf.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back, ignoreOrder); diff != "" {
		t.Errorf("mismatch:\n%s\n%s", diff, out)
	}
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

func TestDefaults(t *testing.T) {
	src := `version: 8
name: acme
fields:
  kind: {description: Kind., type: string}
sensors:
  s:
    command: [s]
    timeout:
routines:
  r: {command: [r]}
watch:
assistants:
  a: {command: [h]}
channels:
  c:
    send: {command: [c]}
    read: {command: [c, "{{start}}", "{{end}}"]}
    stream: {command: [c]}
validate:
brains:
`
	got, err := Parse("bf.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Version: 8, Name: "acme",
		Brains: map[string]*Brain{},
		Fields: map[string]*Field{"kind": {Description: "Kind.", Type: TypeString, Cardinality: optional}},
		Sensors: map[string]*Sensor{"s": {Program: Program{Command: Command{"s"}, Enabled: true, Timeout: 300, MaxBytes: 64 << 20,
			Lookback: 86400}, Mode: ModeWindow, Overlap: 300, Priority: priorityNormal}},
		Routines: map[string]*Routine{"r": {Program: Program{Command: Command{"r"}, Enabled: true, Timeout: 300, MaxBytes: 1 << 20,
			Lookback: 86400}, Output: OutputLog}},
		Watch: defaultWatch(),
		Assistants: map[string]*Assistant{"a": {Command: Command{"h"}, Prompt: "prompts/a.md", Enabled: true,
			Retries: 5, Timeout: 300, MaxBytes: 1 << 20}},
		Channels: map[string]*Channel{"c": {
			Send:   &Capability{Command: Command{"c"}, Timeout: 300, MaxBytes: 64 << 20},
			Read:   &Capability{Command: Command{"c", "{{start}}", "{{end}}"}, Timeout: 300, MaxBytes: 64 << 20},
			Stream: &Capability{Command: Command{"c"}, Timeout: 30, MaxBytes: 1 << 20},
		}},
	}
	if diff := cmp.Diff(want, got, ignoreOrder, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	out, err := got.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	const wantOut = header + `
version: 8
name: acme
fields:
  kind:
    description: Kind.
    type: string
sensors:
  s:
    command: [s]
routines:
  r:
    command: [r]
assistants:
  a:
    command: [h]
channels:
  c:
    send:
      command: [c]
    read:
      command: [c, "{{start}}", "{{end}}"]
    stream:
      command: [c]
`
	if diff := cmp.Diff(wantOut, string(out)); diff != "" {
		t.Errorf("Marshal omits defaults (-want +got):\n%s", diff)
	}
}

func TestVersion(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "bf.yaml has no version; this release reads version: 8"},
		{"name: acme\n", "bf.yaml has no version; this release reads version: 8"},
		{"version:\nname: acme\n", "bf.yaml has no version; this release reads version: 8"},
		{"version: 6\nname: acme\n", "bf.yaml declares version 6; this release reads version: 8"},
		{"version: 7\n", "bf.yaml declares version 7; this release reads version: 8"},
		{"version: 0\n", "bf.yaml declares version 0; this release reads version: 8"},
		{"version: 999\nunknown: 1\n", "bf.yaml declares version 999; this release reads version: 8"},
		{"version: 1000\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: -1\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: '8'\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: 8.0\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: true\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: [8]\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"version: 99999999999999999999\n", "bf.yaml declares an invalid version; this release reads version: 8"},
		{"- 8\n", "bf.yaml: expected a mapping of settings"},
		{"version: 8\nname: 5\n", "bf.yaml: name: expected a string"},
		{"version: 8\nname: Acme\n", "bf.yaml: name: " + nameRule},
		{"version: 8\nname: ''\n", "bf.yaml: name: " + nameRule},
		{"version: 8\nname: a\nname: b\n", "bf.yaml: name: duplicate key"},
		{"version: 8\n", "bf.yaml: name: required"},
	}
	for _, tt := range tests {
		_, err := Parse("bf.yaml", []byte(tt.src))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %q", tt.src, err, tt.want)
		}
	}
	var ve *VersionError
	if _, err := Parse("bf.yaml", []byte("version: 7\n")); !errors.As(err, &ve) || ve.Found != 7 {
		t.Errorf("VersionError not returned: %v", err)
	}
}

// TestRejections checks each refusal with its exact text. Each source is appended to a
// valid base that declares a relation, a string field and a channel with every capability.
func TestRejections(t *testing.T) {
	tests := []struct{ name, src, want string }{
		// Shape.
		{"unknown top key", "sensorz: {}\n", "sensorz: unknown key"},
		{"unknown nested key", "sensors:\n  git: {command: [git], tmeout: 5}\n", "sensors.git.tmeout: unknown key"},
		{"prompts is format 7", "prompts: {}\n", "prompts: unknown key"},
		// Brains.
		{"brain own name", "brains:\n  acme: {path: ../x}\n", "brains.acme: a brain cannot reference its own name"},
		{"brain bad name", "brains:\n  Team: {path: ../x}\n", "brains.Team: " + nameRule},
		{"brain no path", "brains:\n  team: {}\n", "brains.team.path: required"},
		{"brain null", "brains:\n  team:\n", "brains.team.path: required"},
		{"brain empty path", "brains:\n  team: {path: ''}\n", "brains.team.path: expected 1-4096 characters"},
		{"brain long path", "brains:\n  team: {path: " + strings.Repeat("a", 4097) + "}\n", "brains.team.path: expected 1-4096 characters"},
		{"brain control path", "brains:\n  team: {path: \"a\\tb\"}\n", "brains.team.path: path contains a control character"},
		{"brain path type", "brains:\n  team: {path: 5}\n", "brains.team.path: expected a string"},
		{"brains over 32", "brains:\n" + manyBrains(33), "brains: expected at most 32 brains"},
		// Fields.
		{"field cites", "fields:\n  cites: {description: x, type: identity}\n", "fields.cites: cites is built in: OKF sources and ?rel=cites links assert it; it cannot be declared"},
		{"field tagged-with", "fields:\n  tagged-with: {description: x, type: identity}\n", "fields.tagged-with: tagged-with is reserved for tag membership; add tags to notes instead of declaring it"},
		{"field links", "fields:\n  links: {description: x, type: identity}\n", "fields.links: links names the backlink group of untyped links; choose another relation name"},
		{"field bad name", "fields:\n  Kind: {description: x, type: string}\n", "fields.Kind: " + nameRule},
		{"field no description", "fields:\n  x: {type: string}\n", "fields.x.description: required"},
		{"field empty description", "fields:\n  x: {description: '', type: string}\n", "fields.x.description: expected 1-4096 characters"},
		{"field long description", "fields:\n  x: {description: " + strings.Repeat("d", 4097) + ", type: string}\n", "fields.x.description: expected 1-4096 characters"},
		{"field no type", "fields:\n  x: {description: x}\n", "fields.x.type: required"},
		{"field bad type", "fields:\n  x: {description: x, type: date}\n", "fields.x.type: expected string, integer, number, boolean, timestamp or identity"},
		{"field bad cardinality", "fields:\n  x: {description: x, type: string, cardinality: some}\n", "fields.x.cardinality: expected one, optional or many"},
		{"relation not identity", "fields:\n  x: {description: x, type: string, relation: true}\n", "fields.x: relation fields require type: identity"},
		{"relation not bool", "fields:\n  x: {description: x, type: identity, relation: yes}\n", "fields.x.relation: expected true or false"},
		{"broader without relation", "fields:\n  x: {description: x, type: identity, broader: owner}\n", "fields.x.broader: broader requires relation: true"},
		{"broader itself", "fields:\n  x: {description: x, type: identity, relation: true, broader: x}\n", "fields.x.broader: a relation cannot be broader than itself"},
		{"broader undeclared", "fields:\n  x: {description: x, type: identity, relation: true, broader: nobody}\n", "fields.x.broader: expected another declared relation"},
		{"broader not relation", "fields:\n  x: {description: x, type: identity, relation: true, broader: kind}\n", "fields.x.broader: expected another declared relation"},
		{"broader two levels", "fields:\n  x: {description: x, type: identity, relation: true}\n  y: {description: y, type: identity, relation: true, broader: x}\n  z: {description: z, type: identity, relation: true, broader: y}\n", "fields.z.broader: expected a relation without a broader of its own; broader relations nest one level only"},
		{"broader empty", "fields:\n  x: {description: x, type: identity, relation: true, broader: ''}\n", "fields.x.broader: expected another declared relation"},
		{"targets without relation", "fields:\n  x: {description: x, type: identity, targets: ['a:']}\n", "fields.x.targets: targets require relation: true"},
		{"targets empty", "fields:\n  x: {description: x, type: identity, relation: true, targets: []}\n", "fields.x.targets: expected 1-64 prefixes"},
		{"targets over 64", "fields:\n  x: {description: x, type: identity, relation: true, targets: [" + strings.Repeat("'a:', ", 65) + "]}\n", "fields.x.targets: expected 1-64 prefixes"},
		{"target shape", "fields:\n  x: {description: x, type: identity, relation: true, targets: ['a:', 'Person:']}\n", "fields.x.targets.1: expected an identity prefix such as person:email/, at most 1024 characters without whitespace"},
		{"target space", "fields:\n  x: {description: x, type: identity, relation: true, targets: ['a: b']}\n", "fields.x.targets.0: expected an identity prefix such as person:email/, at most 1024 characters without whitespace"},
		{"target long", "fields:\n  x: {description: x, type: identity, relation: true, targets: ['a:" + strings.Repeat("b", 1023) + "']}\n", "fields.x.targets.0: expected an identity prefix such as person:email/, at most 1024 characters without whitespace"},
		{"examples over 20", "fields:\n  x: {description: x, type: string, examples: [" + strings.Repeat("a, ", 21) + "]}\n", "fields.x.examples: expected at most 20 examples"},
		{"example type", "fields:\n  x: {description: x, type: integer, examples: [1, 2.5]}\n", "fields.x.examples.1: expected an integer"},
		{"example cardinality", "fields:\n  x: {description: x, type: string, cardinality: many, examples: [a]}\n", "fields.x.examples.0: expected a list"},
		{"example item", "fields:\n  x: {description: x, type: string, cardinality: many, examples: [[a, 5]]}\n", "fields.x.examples.0.1: expected a string"},
		{"example targets", "fields:\n  x: {description: x, type: identity, relation: true, targets: ['person:'], examples: [repo:x]}\n", "fields.x.examples.0: identity outside the declared targets"},
		{"example null", "fields:\n  x: {description: x, type: string, examples: [~]}\n", "fields.x.examples.0: expected a value"},
		{"default pointer", "fields:\n  x: {description: x, type: string, default: attributes/x}\n", "fields.x.default: " + pointerRule},
		{"default escape", "fields:\n  x: {description: x, type: string, default: /a~2}\n", "fields.x.default: " + pointerRule},
		// Sensors.
		{"sensor bad name", "sensors:\n  Git: {command: [git]}\n", "sensors.Git: " + nameRule},
		{"sensor no command", "sensors:\n  git: {refresh: 5}\n", "sensors.git.command: required"},
		{"sensor null", "sensors:\n  git:\n", "sensors.git.command: required"},
		{"sensor empty command", "sensors:\n  git: {command: []}\n", "sensors.git.command: expected 1-128 arguments"},
		{"sensor command string", "sensors:\n  git: {command: git log}\n", "sensors.git.command: expected a list"},
		{"sensor 129 args", "sensors:\n  git: {command: [" + strings.Repeat("a, ", 129) + "]}\n", "sensors.git.command: expected 1-128 arguments"},
		{"sensor absolute", "sensors:\n  git: {command: [/usr/bin/git]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor dotdot", "sensors:\n  git: {command: [sensors/../x]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor dot", "sensors:\n  git: {command: [sensors/./x]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor bare dotdot", "sensors:\n  git: {command: ['..']}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor other folder", "sensors:\n  git: {command: [scripts/x]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor channels folder", "sensors:\n  git: {command: [channels/x]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor trailing slash", "sensors:\n  git: {command: [sensors/x/]}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor backslash", "sensors:\n  git: {command: ['sensors\\x']}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor placeholder program", "sensors:\n  git: {command: ['{{brain}}/x']}\n", "sensors.git.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"sensor NUL", "sensors:\n  git: {command: [git, \"a\\0b\"]}\n", "sensors.git.command.1: argument contains a NUL character"},
		{"sensor long arg", "sensors:\n  git: {command: [git, " + strings.Repeat("a", 16385) + "]}\n", "sensors.git.command.1: argument exceeds 16384 characters"},
		{"sensor unknown placeholder", "sensors:\n  git: {command: [git, '{{since}}']}\n", "sensors.git.command.1: unknown placeholder; commands take {{brain}}, {{home}}, {{start}}, {{end}} or {{lines:FILE}}"},
		{"sensor stray braces", "sensors:\n  git: {command: [git, 'a}}']}\n", "sensors.git.command.1: unknown placeholder; commands take {{brain}}, {{home}}, {{start}}, {{end}} or {{lines:FILE}}"},
		{"sensor schema placeholder", "sensors:\n  git: {command: [git, '{{schema}}']}\n", "sensors.git.command.1: unknown placeholder; commands take {{brain}}, {{home}}, {{start}}, {{end}} or {{lines:FILE}}"},
		{"sensor lines inside", "sensors:\n  git: {command: [git, '--x={{lines:a.txt}}']}\n", "sensors.git.command.1: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{"sensor lines escape", "sensors:\n  git: {command: [git, '{{lines:../a.txt}}']}\n", "sensors.git.command.1: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{"sensor lines absolute", "sensors:\n  git: {command: [git, '{{lines:/etc/a}}']}\n", "sensors.git.command.1: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{"sensor enabled type", "sensors:\n  git: {command: [git], enabled: 'no'}\n", "sensors.git.enabled: expected true or false"},
		{"sensor timeout 0", "sensors:\n  git: {command: [git], timeout: 0}\n", "sensors.git.timeout: expected an integer from 1 to 3600"},
		{"sensor timeout big", "sensors:\n  git: {command: [git], timeout: 3601}\n", "sensors.git.timeout: expected an integer from 1 to 3600"},
		{"sensor timeout string", "sensors:\n  git: {command: [git], timeout: '5'}\n", "sensors.git.timeout: expected an integer"},
		{"sensor timeout float", "sensors:\n  git: {command: [git], timeout: 5.0}\n", "sensors.git.timeout: expected an integer"},
		{"sensor max_bytes", "sensors:\n  git: {command: [git], max_bytes: 268435457}\n", "sensors.git.max_bytes: expected an integer from 1 to 268435456"},
		{"sensor max_bytes 0", "sensors:\n  git: {command: [git], max_bytes: 0}\n", "sensors.git.max_bytes: expected an integer from 1 to 268435456"},
		{"sensor refresh", "sensors:\n  git: {command: [git], refresh: -1}\n", "sensors.git.refresh: expected an integer from 0 to 31536000"},
		{"sensor refresh year", "sensors:\n  git: {command: [git], refresh: 31536001}\n", "sensors.git.refresh: expected an integer from 0 to 31536000"},
		{"sensor lookback", "sensors:\n  git: {command: [git], lookback: 0}\n", "sensors.git.lookback: expected an integer from 1 to 31536000"},
		{"sensor mode", "sensors:\n  git: {command: [git], mode: full}\n", "sensors.git.mode: expected window or snapshot"},
		{"sensor overlap", "sensors:\n  git: {command: [git], overlap: -5}\n", "sensors.git.overlap: expected an integer from 0 to 31536000"},
		{"reconcile snapshot", "sensors:\n  git: {command: [git], mode: snapshot, reconcile: {refresh: 1, lookback: 1}}\n", "sensors.git.reconcile: reconcile applies to window mode only"},
		{"reconcile missing", "sensors:\n  git: {command: [git], reconcile: {refresh: 5}}\n", "sensors.git.reconcile.lookback: required"},
		{"reconcile range", "sensors:\n  git: {command: [git], reconcile: {refresh: 0, lookback: 5}}\n", "sensors.git.reconcile.refresh: expected an integer from 1 to 31536000"},
		{"reconcile unknown", "sensors:\n  git: {command: [git], reconcile: {every: 5}}\n", "sensors.git.reconcile.every: unknown key"},
		{"sensor priority", "sensors:\n  git: {command: [git], priority: high}\n", "sensors.git.priority: expected normal or low"},
		{"sensor silent_after", "sensors:\n  git: {command: [git], silent_after: 0}\n", "sensors.git.silent_after: expected an integer from 1 to 31536000"},
		{"sensor trust", "sensors:\n  git: {command: [git], trust: owner}\n", "sensors.git.trust: unknown key"},
		{"mapping undeclared", "sensors:\n  git: {command: [git], fields: {nobody: {path: /x}}}\n", "sensors.git.fields.nobody: not declared in fields"},
		{"mapping both", "sensors:\n  git: {command: [git], fields: {kind: {path: /x, value: y}}}\n", "sensors.git.fields.kind: expected exactly one of path or value"},
		{"mapping none", "sensors:\n  git: {command: [git], fields: {kind: {}}}\n", "sensors.git.fields.kind: expected exactly one of path or value"},
		{"mapping null", "sensors:\n  git: {command: [git], fields: {kind: }}\n", "sensors.git.fields.kind: expected exactly one of path or value"},
		{"mapping null value", "sensors:\n  git: {command: [git], fields: {kind: {value: null}}}\n", "sensors.git.fields.kind.value: expected a non-null value"},
		{"mapping bad pointer", "sensors:\n  git: {command: [git], fields: {kind: {path: x}}}\n", "sensors.git.fields.kind.path: " + pointerRule},
		{"mapping long pointer", "sensors:\n  git: {command: [git], fields: {kind: {path: /" + strings.Repeat("a", 4096) + "}}}\n", "sensors.git.fields.kind.path: " + pointerRule},
		{"mapping value type", "sensors:\n  git: {command: [git], fields: {kind: {value: 5}}}\n", "sensors.git.fields.kind.value: expected a string"},
		{"mapping value control", "sensors:\n  git: {command: [git], fields: {kind: {value: \"a\\nb\"}}}\n", "sensors.git.fields.kind.value: string contains a control character"},
		{"mapping value targets", "sensors:\n  git: {command: [git], fields: {owner: {value: [person:a, repo:b]}}}\n", "sensors.git.fields.owner.value.1: identity outside the declared targets"},
		{"mapping value identity", "sensors:\n  git: {command: [git], fields: {owner: {value: [nobody]}}}\n", "sensors.git.fields.owner.value.0: expected an explicit namespaced identity"},
		{"mapping unknown key", "sensors:\n  git: {command: [git], fields: {kind: {path: /x, default: 1}}}\n", "sensors.git.fields.kind.default: unknown key"},
		// Routines.
		{"routine bad name", "routines:\n  weekly--review: {command: [r]}\n", "routines.weekly--review: " + routineNameRule},
		{"routine trailing hyphen", "routines:\n  weekly-: {command: [r]}\n", "routines.weekly-: " + routineNameRule},
		{"routine sensor clash", "sensors:\n  git: {command: [git]}\nroutines:\n  git: {command: [r]}\n", "routines.git: sensor and routine names must be distinct; they share logs and locks"},
		{"routine command folder", "routines:\n  r: {command: [channels/r]}\n", "routines.r.command.0: expected a program on PATH or a normalised path under sensors/ or routines/"},
		{"routine max_bytes", "routines:\n  r: {command: [r], max_bytes: 4194305}\n", "routines.r.max_bytes: expected an integer from 1 to 4194304"},
		{"routine hooks 17", "routines:\n  r: {command: [r], hooks: [" + manyHooks(17) + "]}\n", "routines.r.hooks: expected at most 16 hooks"},
		{"routine hook slug", "routines:\n  r: {command: [r], hooks: [Pre_Push]}\n", "routines.r.hooks.0: expected a hook name such as pre-push"},
		{"routine hook duplicate", "routines:\n  r: {command: [r], hooks: [pre-push, pre-push]}\n", "routines.r.hooks.1: duplicate hook"},
		{"routine output", "routines:\n  r: {command: [r], output: note}\n", "routines.r.output: expected log or action"},
		{"routine keep log", "routines:\n  r: {command: [r], keep: 3}\n", "routines.r.keep: keep applies to output: action only"},
		{"routine keep range", "routines:\n  r: {command: [r], output: action, keep: 0}\n", "routines.r.keep: expected an integer from 1 to 100000"},
		{"routine mode", "routines:\n  r: {command: [r], mode: window}\n", "routines.r.mode: unknown key"},
		// Watch.
		{"watch interval", "watch: {interval: 4}\n", "watch.interval: expected an integer from 5 to 86400"},
		{"watch poll low", "watch: {poll_interval: 0.1}\n", "watch.poll_interval: expected a number from 0.2 to 60"},
		{"watch poll high", "watch: {poll_interval: 61}\n", "watch.poll_interval: expected a number from 0.2 to 60"},
		{"watch poll nan", "watch: {poll_interval: .nan}\n", "watch.poll_interval: expected a finite number"},
		{"watch poll string", "watch: {poll_interval: '2'}\n", "watch.poll_interval: expected a number"},
		{"watch notifications", "watch: {notifications: 'yes'}\n", "watch.notifications: expected off, failure, success or all"},
		{"watch cooldown", "watch: {notification_cooldown: 86401}\n", "watch.notification_cooldown: expected an integer from 0 to 86400"},
		{"watch unknown", "watch: {sensors: [x]}\n", "watch.sensors: unknown key"},
		// Channels.
		{"channel bad name", "channels:\n  Chat: {send: {command: [c]}}\n", "channels.Chat: " + nameRule},
		{"channel empty", "channels:\n  chat: {}\n", "channels.chat: a channel needs at least one of send, read or stream"},
		{"channel null", "channels:\n  chat:\n", "channels.chat: a channel needs at least one of send, read or stream"},
		{"channel unknown op", "channels:\n  chat: {send: {command: [c]}, write: {command: [c]}}\n", "channels.chat.write: unknown key"},
		{"channel no command", "channels:\n  chat: {send: {timeout: 5}}\n", "channels.chat.send.command: required"},
		{"channel sensors folder", "channels:\n  chat: {send: {command: [sensors/chat.py]}}\n", "channels.chat.send.command.0: expected a program on PATH or a normalised path under channels/"},
		{"channel send start", "channels:\n  chat: {send: {command: [c, '{{start}}']}}\n", "channels.chat.send.command.1: unknown placeholder; send commands take {{brain}}, {{home}} or {{lines:FILE}}"},
		{"channel read window", "channels:\n  chat: {read: {command: [c, '{{start}}']}}\n", "channels.chat.read.command: read commands must pass {{start}} and {{end}}"},
		{"channel stream end", "channels:\n  chat: {stream: {command: [c, '{{end}}']}}\n", "channels.chat.stream.command.1: unknown placeholder; stream commands take {{brain}}, {{home}}, {{start}} or {{lines:FILE}}"},
		{"channel timeout", "channels:\n  chat: {send: {command: [c], timeout: 3601}}\n", "channels.chat.send.timeout: expected an integer from 1 to 3600"},
		{"channel stream timeout", "channels:\n  chat: {stream: {command: [c], timeout: 0}}\n", "channels.chat.stream.timeout: expected an integer from 1 to 3600"},
		{"channel send bytes", "channels:\n  chat: {send: {command: [c], max_bytes: 268435457}}\n", "channels.chat.send.max_bytes: expected an integer from 1 to 268435456"},
		{"channel stream small frame", "channels:\n  chat: {stream: {command: [c], max_bytes: 1023}}\n", "channels.chat.stream.max_bytes: expected an integer from 1024 to 1048576"},
		{"channel stream big frame", "channels:\n  chat: {stream: {command: [c], max_bytes: 1048577}}\n", "channels.chat.stream.max_bytes: expected an integer from 1024 to 1048576"},
		{"channel read idempotent", "channels:\n  chat: {read: {command: [c, '{{start}}', '{{end}}'], idempotent: true}}\n", "channels.chat.read.idempotent: idempotent applies to send only"},
		{"channel stream idempotent", "channels:\n  chat: {stream: {command: [c], idempotent: false}}\n", "channels.chat.stream.idempotent: idempotent applies to send only"},
		{"channel idempotent type", "channels:\n  chat: {send: {command: [c], idempotent: 1}}\n", "channels.chat.send.idempotent: expected true or false"},
		{"channel enabled", "channels:\n  chat: {send: {command: [c]}, enabled: false}\n", "channels.chat.enabled: unknown key"},
		// Assistants.
		{"assistant bad name", "assistants:\n  Bot: {command: [h]}\n", "assistants.Bot: " + nameRule},
		{"assistant clash", "sensors:\n  bot: {command: [s]}\nassistants:\n  bot: {command: [h]}\n", "assistants.bot: assistant names must differ from sensor and routine names; they share logs, locks and memories"},
		{"assistant no command", "assistants:\n  bot: {enabled: true}\n", "assistants.bot.command: required"},
		{"assistant folder", "assistants:\n  bot: {command: [routines/h]}\n", "assistants.bot.command.0: expected a program on PATH or a normalised path under assistants/"},
		{"assistant placeholder", "assistants:\n  bot: {command: [h, '{{prompt}}']}\n", "assistants.bot.command.1: unknown placeholder; assistant commands take {{brain}}, {{home}}, {{start}}, {{end}}, {{schema}}, {{context}} or {{lines:FILE}}"},
		{"assistant schema without reply", "assistants:\n  bot: {command: [h, '{{schema}}']}\n", "assistants.bot.command.1: {{schema}} needs reply: {path: POINTER}"},
		{"assistant prompt path", "assistants:\n  bot: {command: [h], prompt: ../x.md}\n", "assistants.bot.prompt: " + markdownPathRule},
		{"assistant prompt ext", "assistants:\n  bot: {command: [h], prompt: prompts/x.txt}\n", "assistants.bot.prompt: " + markdownPathRule},
		{"schedule neither", "assistants:\n  bot: {command: [h], schedules: {daily: {}}}\n", "assistants.bot.schedules.daily: expected exactly one of every or at"},
		{"schedule both", "assistants:\n  bot: {command: [h], schedules: {daily: {every: 60, at: '08:00'}}}\n", "assistants.bot.schedules.daily: expected exactly one of every or at"},
		{"schedule bad name", "assistants:\n  bot: {command: [h], schedules: {Daily: {every: 60}}}\n", "assistants.bot.schedules.Daily: " + nameRule},
		{"schedule every", "assistants:\n  bot: {command: [h], schedules: {daily: {every: 0}}}\n", "assistants.bot.schedules.daily.every: expected an integer from 1 to 31536000"},
		{"schedule every days", "assistants:\n  bot: {command: [h], schedules: {daily: {every: 60, days: [mon]}}}\n", "assistants.bot.schedules.daily.days: days applies to at schedules only"},
		{"schedule every timezone", "assistants:\n  bot: {command: [h], schedules: {daily: {every: 60, timezone: UTC}}}\n", "assistants.bot.schedules.daily.timezone: timezone applies to at schedules only"},
		{"schedule at", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '24:00'}}}\n", "assistants.bot.schedules.daily.at: expected HH:MM on a 24-hour clock"},
		{"schedule at short", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '8:00'}}}\n", "assistants.bot.schedules.daily.at: expected HH:MM on a 24-hour clock"},
		{"schedule at number", "assistants:\n  bot: {command: [h], schedules: {daily: {at: 800}}}\n", "assistants.bot.schedules.daily.at: expected a string"},
		{"schedule day", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '08:00', days: [monday]}}}\n", "assistants.bot.schedules.daily.days.0: expected mon, tue, wed, thu, fri, sat or sun"},
		{"schedule day duplicate", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '08:00', days: [mon, mon]}}}\n", "assistants.bot.schedules.daily.days.1: duplicate day"},
		{"schedule timezone", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '08:00', timezone: Mars/Olympus}}}\n", "assistants.bot.schedules.daily.timezone: expected an IANA time zone such as Europe/Paris"},
		{"schedule timezone local", "assistants:\n  bot: {command: [h], schedules: {daily: {at: '08:00', timezone: Local}}}\n", "assistants.bot.schedules.daily.timezone: expected an IANA time zone such as Europe/Paris"},
		{"input no channel", "assistants:\n  bot: {command: [h], inputs: [{mode: read, every: 60}]}\n", "assistants.bot.inputs.0.channel: required"},
		{"input no mode", "assistants:\n  bot: {command: [h], inputs: [{channel: chat}]}\n", "assistants.bot.inputs.0.mode: required"},
		{"input mode", "assistants:\n  bot: {command: [h], inputs: [{channel: chat, mode: poll}]}\n", "assistants.bot.inputs.0.mode: expected read or stream"},
		{"input undeclared", "assistants:\n  bot: {command: [h], inputs: [{channel: nowhere, mode: stream}]}\n", "assistants.bot.inputs.0.channel: expected a declared channel"},
		{"input no read", "assistants:\n  bot: {command: [h], inputs: [{channel: notify, mode: read, every: 60}]}\n", "assistants.bot.inputs.0.channel: channel notify declares no read; add read: to it, or name a channel that has one"},
		{"input no send", "assistants:\n  bot: {command: [h], inputs: [{channel: feed, mode: read, every: 60}]}\n", "assistants.bot.inputs.0.channel: channel declares no send, which answers its messages; add send: to it"},
		{"input read every", "assistants:\n  bot: {command: [h], inputs: [{channel: chat, mode: read}]}\n", "assistants.bot.inputs.0.every: read inputs require every"},
		{"input read every range", "assistants:\n  bot: {command: [h], inputs: [{channel: chat, mode: read, every: 0}]}\n", "assistants.bot.inputs.0.every: expected an integer from 1 to 31536000"},
		{"input stream every", "assistants:\n  bot: {command: [h], inputs: [{channel: chat, mode: stream, every: 60}]}\n", "assistants.bot.inputs.0.every: every applies to read inputs only"},
		{"input duplicate", "assistants:\n  bot: {command: [h], inputs: [{channel: chat, mode: stream}, {channel: chat, mode: read, every: 5}]}\n", "assistants.bot.inputs.1.channel: channel is already an input"},
		{"input map", "assistants:\n  bot: {command: [h], inputs: {chat: read}}\n", "assistants.bot.inputs: expected a list"},
		{"post undeclared", "assistants:\n  bot: {command: [h], post: nowhere}\n", "assistants.bot.post: expected a declared channel"},
		{"post no send", "assistants:\n  bot: {command: [h], post: feed}\n", "assistants.bot.post: channel feed declares no send; add send: to it, or name a channel that has one"},
		{"reply no path", "assistants:\n  bot: {command: [h], reply: {}}\n", "assistants.bot.reply.path: required"},
		{"reply pointer", "assistants:\n  bot: {command: [h], reply: {path: say}}\n", "assistants.bot.reply.path: " + pointerRule},
		{"gate empty", "assistants:\n  bot: {command: [h], gate: []}\n", "assistants.bot.gate: expected 1-128 arguments"},
		{"gate folder", "assistants:\n  bot: {command: [h], gate: [routines/g]}\n", "assistants.bot.gate.0: expected a program on PATH or a normalised path under assistants/"},
		{"gate context", "assistants:\n  bot: {command: [h], gate: [g, '{{context}}']}\n", "assistants.bot.gate.1: unknown placeholder; gate commands take {{brain}}, {{home}}, {{start}}, {{end}} or {{lines:FILE}}"},
		{"when empty", "assistants:\n  bot: {command: [h], when: {}}\n", "assistants.bot.when: expected at least one of sources, review, actions or attention"},
		{"when source", "assistants:\n  bot: {command: [h], when: {sources: [nowhere]}}\n", "assistants.bot.when.sources.0: expected a declared sensor"},
		{"when unknown", "assistants:\n  bot: {command: [h], when: {mood: good}}\n", "assistants.bot.when.mood: unknown key"},
		{"idempotent kind", "assistants:\n  bot: {command: [h], idempotent: [schedule, manual]}\n", "assistants.bot.idempotent: expected true, false or a list of run kinds: schedule, message, wake"},
		{"idempotent duplicate", "assistants:\n  bot: {command: [h], idempotent: [wake, wake]}\n", "assistants.bot.idempotent: expected true, false or a list of run kinds: schedule, message, wake"},
		{"idempotent string", "assistants:\n  bot: {command: [h], idempotent: 'yes'}\n", "assistants.bot.idempotent: expected true, false or a list of run kinds: schedule, message, wake"},
		{"retries without idempotent", "assistants:\n  bot: {command: [h], retries: 3}\n", "assistants.bot.retries: retries apply only to idempotent run kinds"},
		{"retries range", "assistants:\n  bot: {command: [h], idempotent: true, retries: 21}\n", "assistants.bot.retries: expected an integer from 1 to 20"},
		{"input_args placeholder", "assistants:\n  bot: {command: [h], input_args: ['{{since}}']}\n", "assistants.bot.input_args.0: unknown placeholder; assistant commands take {{brain}}, {{home}}, {{start}}, {{end}}, {{schema}}, {{context}} or {{lines:FILE}}"},
		{"schedule_args too many", "assistants:\n  bot: {command: [h, a], schedule_args: [" + strings.Repeat("a, ", 127) + "]}\n", "assistants.bot.schedule_args: command and schedule_args together exceed 128 arguments"},
		{"schedule_args schema", "assistants:\n  bot: {command: [h], schedule_args: ['{{schema}}']}\n", "assistants.bot.schedule_args.0: {{schema}} needs reply: {path: POINTER}"},
		{"assistant keep", "assistants:\n  bot: {command: [h], keep: 0}\n", "assistants.bot.keep: expected an integer from 1 to 100000"},
		{"assistant timeout", "assistants:\n  bot: {command: [h], timeout: 3601}\n", "assistants.bot.timeout: expected an integer from 1 to 3600"},
		{"assistant max_bytes", "assistants:\n  bot: {command: [h], max_bytes: 4194305}\n", "assistants.bot.max_bytes: expected an integer from 1 to 4194304"},
		{"assistant refresh", "assistants:\n  bot: {command: [h], refresh: 60}\n", "assistants.bot.refresh: removed; declare named schedules instead: schedules: {NAME: {every: SECONDS}}"},
		{"assistant outputs", "assistants:\n  bot: {command: [h], outputs: [chat]}\n", "assistants.bot.outputs: removed; name one channel in post, and messages are answered in their own conversation"},
		{"assistant triggers", "assistants:\n  bot: {command: [h], triggers: [git]}\n", "assistants.bot.triggers: removed; run the assistant on schedules, or gate them with when: {sources: [SENSOR]}"},
		{"assistant lookback", "assistants:\n  bot: {command: [h], lookback: 60}\n", "assistants.bot.lookback: removed; a schedule run's window starts at its previous run"},
		{"assistant text", "assistants:\n  bot: {command: [h], text: hi}\n", "assistants.bot.text: removed; a prompt lives in one place, its file: write it to prompts/NAME.md, or name another file with prompt: PATH"},
		{"assistant status", "assistants:\n  bot: {command: [h], status: true}\n", "assistants.bot.status: removed; use reply: {path: POINTER} to let the harness choose whether to speak"},
		// Validate.
		{"validate index", "validate: {index_note: /concepts/index.md}\n", "validate.index_note: " + markdownPathRule},
		{"validate status", "validate: {required_status: [stable, archived]}\n", "validate.required_status.1: expected draft, stable or deprecated"},
		{"validate status duplicate", "validate: {required_status: [stable, stable]}\n", "validate.required_status.1: duplicate status"},
		{"validate pattern", "validate: {forbid_patterns: ['ok', '(?=secret)']}\n", "validate.forbid_patterns.1: invalid regular expression (Go RE2 syntax)"},
		{"validate pattern empty", "validate: {forbid_patterns: ['']}\n", "validate.forbid_patterns.0: expected 1-4096 characters"},
		{"validate patterns 65", "validate: {forbid_patterns: [" + strings.Repeat("a, ", 65) + "]}\n", "validate.forbid_patterns: expected at most 64 patterns"},
		{"validate unknown", "validate: {strict: true}\n", "validate.strict: unknown key"},
	}
	const base = `version: 8
name: acme
`
	const decl = `fields:
  owner: {description: Owner., type: identity, cardinality: many, relation: true, targets: ["person:"]}
  kind: {description: Kind., type: string}
channels:
  chat:
    send: {command: [c]}
    read: {command: [c, "{{start}}", "{{end}}"]}
    stream: {command: [c]}
  notify:
    send: {command: [c]}
  feed:
    read: {command: [c, "{{start}}", "{{end}}"]}
`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := base + tt.src
			// Add the shared declarations unless the case declares its own section.
			if !strings.Contains(tt.src, "fields:\n  ") && !strings.Contains(tt.src, "channels:") {
				src += decl
			} else if !strings.Contains(tt.src, "channels:") {
				src += decl[strings.Index(decl, "channels:"):]
			}
			_, err := Parse("bf.yaml", []byte(src))
			want := "bf.yaml: " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
			var ye *yamlx.Error
			if err != nil && !errors.As(err, &ye) {
				t.Errorf("error %T is not a *yamlx.Error", err)
			} else if ye != nil && (ye.File != "bf.yaml" || ye.Path == "") {
				t.Errorf("error lacks file or path: %+v", ye)
			}
		})
	}
}

func manyBrains(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("  b" + strconv.Itoa(i) + ": {path: x}\n")
	}
	return b.String()
}

func manyHooks(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = "h" + strconv.Itoa(i)
	}
	return strings.Join(out, ", ")
}

// TestErrorsNeverEchoValues plants a secret in every kind of rejected value.
func TestErrorsNeverEchoValues(t *testing.T) {
	const secret = "s3cr3t-token"
	srcs := []string{
		"sensors:\n  git: {command: [/" + secret + "]}\n",
		"sensors:\n  git: {command: [git, '{{" + secret + "}}']}\n",
		"sensors:\n  git: {command: [git], timeout: " + secret + "}\n",
		"brains:\n  team: {path: \"" + secret + "\\t\"}\n",
		"validate: {forbid_patterns: ['(" + secret + "']}\n",
		"watch: {notifications: " + secret + "}\n",
		"fields:\n  x: {description: x, type: timestamp, examples: [" + secret + "]}\n",
		"fields:\n  x: {description: x, type: identity, examples: [" + secret + "]}\n",
	}
	for _, s := range srcs {
		_, err := Parse("bf.yaml", []byte("version: 8\nname: acme\n"+s))
		if err == nil {
			t.Errorf("accepted %q", s)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error echoes the value: %v", err)
		}
	}
}

func TestEmptySections(t *testing.T) {
	src := "version: 8\nname: acme\nbrains:\nfields:\nsensors:\nroutines:\nwatch:\nassistants:\nchannels:\nvalidate:\n"
	got, err := Parse("bf.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{Version: 8, Name: "acme", Watch: defaultWatch()}
	if diff := cmp.Diff(want, got, ignoreOrder, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCompatRetrieval(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(compat.Dir(t), "bf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "version: 7", "version: 8", 1))
	c, err := Parse("bf.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if !c.LowPriority("catalog") || c.Sensors["catalog"].Enabled {
		t.Errorf("catalog sensor: %+v", c.Sensors["catalog"])
	}
	if got := c.Relations(); !cmp.Equal(got, []string{"repository"}) {
		t.Errorf("Relations = %v", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); !errors.Is(err, fs.ErrNotExist) || err.Error() != "open bf.yaml: no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	p := filepath.Join(dir, "bf.yaml")
	if err := os.WriteFile(p, []byte(starterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil || c.Name != "brain" {
		t.Fatalf("Load = %v, %v", c, err)
	}

	link := t.TempDir()
	if err := os.Symlink(p, filepath.Join(link, "bf.yaml")); err != nil {
		t.Skip(err)
	}
	if _, err := Load(link); err == nil || err.Error() != "bf.yaml: expected a regular file, not a symlink or special file" {
		t.Errorf("symlink: %v", err)
	}

	big := t.TempDir()
	if err := os.WriteFile(filepath.Join(big, "bf.yaml"), []byte("version: 8\n#"+strings.Repeat("x", maxFileBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || err.Error() != "bf.yaml: file exceeds 1 MiB" {
		t.Errorf("big: %v", err)
	}

	sub := t.TempDir()
	if err := os.Mkdir(filepath.Join(sub, "bf.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(sub); err == nil || err.Error() != "bf.yaml: expected a regular file, not a symlink or special file" {
		t.Errorf("folder: %v", err)
	}
}

func TestAccessors(t *testing.T) {
	c, err := Parse("bf.yaml", readFull(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Relations(); !cmp.Equal(got, []string{"author", "organizer", "participant"}) {
		t.Errorf("Relations = %v", got)
	}
	if got := c.Narrower("participant"); !cmp.Equal(got, []string{"organizer"}) {
		t.Errorf("Narrower = %v", got)
	}
	if got := c.Narrower("author"); got != nil {
		t.Errorf("Narrower(author) = %v", got)
	}
	if f, ok := c.Relation("organizer"); !ok || f.Broader != "participant" {
		t.Errorf("Relation(organizer) = %v, %v", f, ok)
	}
	if _, ok := c.Relation("kind"); ok {
		t.Error("kind is not a relation")
	}
	for rel, want := range map[string]bool{"cites": true, "links": true, "tagged-with": true, "author": true, "kind": false, "x": false} {
		if c.KnownRelation(rel) != want {
			t.Errorf("KnownRelation(%s) != %v", rel, want)
		}
	}
	if !isBuiltinRelation("cites") || isBuiltinRelation("author") {
		t.Error("IsBuiltinRelation")
	}
	if !c.LowPriority("git-commits") || c.LowPriority("catalog") || c.LowPriority("absent") {
		t.Error("LowPriority")
	}
	wantMappings := map[string]*Mapping{
		"author": {Path: "/attributes/author_refs"},
		"kind":   {Value: "commit"},
		"due":    {Value: "2026-10-05T07:00:00.000000Z"},
	}
	if diff := cmp.Diff(wantMappings, c.Mappings("git-commits")); diff != "" {
		t.Errorf("Mappings(git-commits):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]*Mapping{"kind": {Path: "/attributes/kind"}}, c.Mappings("catalog")); diff != "" {
		t.Errorf("Mappings(catalog) uses the field default:\n%s", diff)
	}
	if got := c.Programs(); !cmp.Equal(got, []string{"catalog", "git-commits", "weekly-review"}) {
		t.Errorf("Programs = %v", got)
	}
	if got := c.HookRoutines("pre-push"); got != nil {
		t.Errorf("a disabled routine runs on hooks: %v", got)
	}
	if got := c.Sensors["catalog"].Command.Paths(); !cmp.Equal(got, []string{"sensors/catalog.py"}) {
		t.Errorf("Paths = %v", got)
	}
	if got := c.Sensors["git-commits"].Command.Lines(); !cmp.Equal(got, []string{"sensors/repos.txt"}) {
		t.Errorf("Lines = %v", got)
	}
	a := c.Assistants["helper"]
	if !a.Idempotent.Retries(RunWake) || a.Idempotent.Retries(RunMessage) || a.Prompt != "prompts/helper.md" {
		t.Errorf("helper: %+v", a)
	}
	if d := c.Assistants["digest"]; !d.Idempotent.Retries(RunMessage) || d.Prompt != "prompts/daily-digest.md" {
		t.Errorf("digest: %+v", d)
	}
	if got := len(c.Validate.Patterns()); got != 2 {
		t.Errorf("Patterns = %d", got)
	}
	if ch := c.Channels["desktop"]; ch.Capability(OpSend) == nil || ch.Capability(OpRead) != nil || ch.Capability("x") != nil {
		t.Error("Capability")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(readFull(f))
	f.Add([]byte(starterYAML))
	f.Add([]byte("version: 8\nname: a\nsensors:\n  s: {command: [s, '{{lines:x}}'], fields: {k: {value: [1]}}}\n"))
	f.Add([]byte("version: 8\nname: a\nfields:\n  k: {description: d, type: number, cardinality: many, examples: [[1, 1.0, .inf]]}\n"))
	f.Add([]byte("version: 8\nname: a\nassistants:\n  b: {command: [h], schedules: {s: {at: '08:00', timezone: UTC}}, idempotent: [wake]}\n"))
	f.Add([]byte("version: 7\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("bf.yaml", data)
		if err != nil {
			if strings.HasPrefix(err.Error(), "bf.yaml") {
				return
			}
			t.Fatalf("error without file: %v", err)
		}
		// Whatever parses can be written back and read again.
		out, err := c.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed config: %v", err)
		}
		back, err := Parse("bf.yaml", out)
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, out)
		}
		if diff := cmp.Diff(c, back, ignoreOrder, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-parsed +reparsed):\n%s", diff)
		}
		_ = c.Relations()
		for _, r := range c.Relations() {
			_ = c.Narrower(r)
		}
	})
}
