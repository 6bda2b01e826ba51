#!/usr/bin/env bash
# make demo: run bf on a fresh brain and on the bundled example brain, with its own HOME
# so nothing on this machine changes.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
bin="$repo/bin"
export PATH="$bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="" XDG_STATE_HOME="" BF_BRAIN=""
mkdir -p "$HOME"

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; }
run() { step "$*"; "$@" || printf '(exit %d)\n' "$?"; }

run bf --help
run bf init "$tmp/brain"
cd "$tmp/brain"
run bf validate
step "add projects/website.md with a broken link"
printf -- '---\ntype: project\nsummary: Relaunch the website.\n---\n\n# Website\n\nSee the [plan](../concepts/plan.md).\n' > projects/website.md
run bf validate
run bf register "$tmp/brain"
cd /
run bf validate --brain brain

cp -r "$repo/examples/brain" "$tmp/example"
run bf validate --brain "$tmp/example"
run bf search "when does dunning stop" --brain "$tmp/example" --limit 2
run bf search "repo:github.com/acme/billing" --brain "$tmp/example" --limit 2
run bf search ledgr --brain "$tmp/example" --scope concepts --limit 1
cd "$tmp/example"
step "bf read   # the home page, first 800 bytes"
bf read | head -c 800
printf ' …\n'
run bf read concepts/ledger.md#decision
run bf read bf://acme/people/dana --rel owner
run bf eval

# Collect this repository's own commits with the example git-history sensor (built by
# make build into bin/, like the inbox channel below).
step "collect the commits of this repository into a fresh brain"
bf init "$tmp/history" > /dev/null
mkdir -p "$tmp/history/sensors"
cp "$bin/git-history" "$tmp/history/sensors/"
cat >> "$tmp/history/bf.yaml" <<YAML
sensors:
  git:
    command: [sensors/git-history, "{{start}}", "{{end}}", "$repo"]
    lookback: 31536000
    refresh: 3600
YAML
cd "$tmp/history"
run bf collect git
run bf register "$tmp/history" --collect
run bf collect git
run bf search "record store crash" --limit 2
step "bf status   # sources of the brain, first 600 bytes"
bf status | head -c 600
printf ' …\n'

# A channel over plain files: read a message from an inbox folder, answer it through the
# durable queue, and list the queue.
step "add the inbox example channel to the same brain"
mkdir -p channels inbox
cp "$bin/inbox" channels/
cat >> bf.yaml <<'YAML'
channels:
  inbox:
    send:
      command: [channels/inbox, send, "{{brain}}/outbox.jsonl"]
      idempotent: true
    read:
      command: [channels/inbox, read, "{{brain}}/inbox", "{{start}}", "{{end}}", --allow, me]
YAML
printf '%s\n' '{"sender":"me","conversation":"week","time":"2026-10-16T09:00:00Z","text":"What changed in the record store?"}' > inbox/m1.json
run bf channel read inbox --since 2026-10-16 --until 2026-10-17
step "printf '{\"text\":\"See the record store commit.\",\"conversation\":\"week\",\"reply_to\":\"m1\"}' | bf channel send inbox --stdin"
printf '%s\n' '{"text":"See the record store commit.","conversation":"week","reply_to":"m1"}' | bf channel send inbox --stdin || printf '(exit %d)\n' "$?"
run cat outbox.jsonl
run bf queue

# An assistant answers the inbox by itself: cat is its harness, so its answer is the prompt
# it was given. The first watch cycle starts the input; the next one reads the new message,
# runs the harness, stores the run in memories/helper/ and delivers the answer.
step "write prompts/helper.md and declare an assistant that answers the inbox, with cat as its harness"
mkdir -p prompts
printf '%s\n' "You answer questions about this brain's history." > prompts/helper.md
cat >> bf.yaml <<'YAML'
assistants:
  helper:
    command: [cat]
    inputs:
      - {channel: inbox, mode: read, every: 1}
YAML
run bf validate
bf watch --json --cycles 1 > /dev/null
printf '{"sender":"me","conversation":"week","time":"%s","text":"Who answers this?"}\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > inbox/m2.json
sleep 1.5
step "bf watch --json --cycles 1   # its last line"
bf watch --json --cycles 1 | tail -n 1
run tail -n 1 outbox.jsonl
run bf queue
run bf status --check

# Import an Obsidian vault into a new brain: links rewritten, the result valid and searchable.
step "import the example Obsidian vault (examples/vault) into a new brain"
cp -r "$repo/examples/vault" "$tmp/vault"
run bf import "$tmp/vault" "$tmp/imported" --type Projects=project
run bf validate --brain "$tmp/imported"
run bf search "boredom" --brain "$tmp/imported" --limit 1
step "bf read concepts/Deep\\ Work.md   # backlinks from converted wikilinks, first 600 bytes"
bf read "concepts/Deep Work.md" --brain "$tmp/imported" | head -c 600
printf ' …\n'
step "cat concepts/Reading\\ list.md"
cat "$tmp/imported/concepts/Reading list.md"

# Agent memory: the person's own rule and preference, an agent's fact and its correction
# (unreviewed until the person accepts them), then the brief a session starts with.
step "agent memory in a fresh brain"
bf init "$tmp/memory" > /dev/null
cd "$tmp/memory"
run bf remember --reviewed --type policy --title "Never force-push to main" --body "Other clones track main; rewrite a branch of your own instead." --importance 5
run bf remember --reviewed --type preference --title "Short answers, code first" --body "The user reads diffs, not prose." --confidence high --source "stated by the user"
run bf remember --type infra --title "Staging runs on box stage-2" --body "stage-2 serves staging; deploy with make stage."
run bf remember --type infra --title "Staging moved to box stage-3" --body "stage-3 serves staging since the March rebuild; stage-2 is production now." --supersedes staging-runs-on-box-stage-2
run bf recall staging box --no-touch
run bf review --unreviewed
run bf review --accept concepts/memory/staging-moved-to-box-stage-3.md
step "bf brief   # the brief's text"

bf brief
run bf validate
