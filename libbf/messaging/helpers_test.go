package messaging

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/queue"
)

// The tests show times in a zone two hours east of UTC.
var zone = time.FixedZone("CEST", 2*3600)

// fixture is a brain on a machine of its own.
type fixture struct {
	*brainfix.Brain
	t    *testing.T
	opts Messenger
}

// adapter is a send, read and stream adapter in one shell script. send appends each
// stdin line to sent.log (one line per invocation) and prints a receipt whose ID is
// "r-" and the delivery ID; a message whose text holds "fail" fails after logging it,
// and one holding "hang" waits until the test kills it.
const adapter = `
case "$1" in
send)
  read -r line
  printf '%s\n' "$line" >> sent.log
  id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
  case "$line" in
  *hang*) touch hanging; sleep 30;;
  *fail*) echo "provider said no" >&2; exit 1;;
  esac
  conv=$(printf '%s' "$line" | sed -n 's/.*"conversation":"\([^"]*\)".*/\1/p')
  printf '{"id":"r-%s","conversation":"%s"}\n' "$id" "${conv:-default}"
  ;;
read)
  cat batch.json
  ;;
stream)
  read -r resume
  printf '%s\n' "$resume" > resume.json
  cat stream.jsonl
  while read -r frame; do printf '%s\n' "$frame" >> acks.log; done
  ;;
esac
`

const brainConfig = `version: 8
name: ops
channels:
  chat:
    send:
      command: [channels/adapter, send]
      idempotent: true
    read:
      command: [channels/adapter, read, "{{start}}", "{{end}}"]
    stream:
      command: [channels/adapter, stream]
  plain:
    send:
      command: [channels/adapter, send]
  gone:
    send:
      command: [no-such-program-on-path]
  mute:
    read:
      command: [channels/adapter, read, "{{start}}", "{{end}}"]
`

func newFixture(t *testing.T, trusted bool) *fixture {
	t.Helper()
	f := &fixture{Brain: brainfix.New(t, brainfix.Spec{Config: brainConfig}), t: t}
	f.opts = Messenger{Env: &f.Env, Location: zone, Now: func() time.Time { return time.Date(2026, 10, 16, 12, 0, 0, 0, zone) }}
	f.WriteMode("channels/adapter", "#!/bin/sh\n"+adapter, 0o755)
	if trusted {
		f.Trust()
	}
	return f
}

// stateDir is the brain's state folder, where its queue lives.
func (f *fixture) stateDir() string {
	f.t.Helper()
	dir, err := f.Env.BrainStatePath(f.Open().ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return dir
}

func (f *fixture) send(channel, input string) (*SendReply, error) {
	f.t.Helper()
	return f.opts.Send(context.Background(), f.Open(), channel, []byte(input))
}

// sent returns the lines the adapter's send received, one per invocation.
func (f *fixture) sent() []string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.Root, "sent.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// states maps each ID of the queue to its state.
func (f *fixture) states() map[string]queue.State {
	f.t.Helper()
	l, err := f.opts.List(context.Background(), f.Open())
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]queue.State{}
	for _, it := range l.Items {
		out[it.ID] = it.State
	}
	return out
}

// waitFile waits until the brain holds rel.
func (f *fixture) waitFile(rel string) {
	f.t.Helper()
	for range 2000 {
		if _, err := os.Stat(filepath.Join(f.Root, rel)); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.t.Fatalf("%s never appeared", rel)
}
