// Package libbf holds all of bf's behaviour; each bf-* command is a thin main that parses
// flags, makes one call into a package below and prints its reply. Every concept has one
// package, and one function there, that every caller uses. This map says where each one
// lives.
//
// # A brain and its files
//
//   - bf.yaml, its model, defaults and checks: config (decoding one file per section:
//     decode_fields.go, decode_programs.go, decode_assistants.go, decode_channels.go,
//     decode_validate.go); adding field declarations to the user's text: config (edit.go).
//     Each scalar setting's type, range, default and doc are described once
//     (config.Settings, settings.go): decoding and Marshal read them, and the schema's tests
//     hold brain.schema.json to them.
//   - Strict YAML: yamlx. JSON strings read and written exactly, and json_each lists:
//     jsontext.
//   - Names, record refs, identities, bf:// addresses, periods, page paths: ref.
//   - Instants and calendar days: timestamp. Text folding and query terms: fold.
//   - Cutting text into the search table's terms in Go, exactly as its FTS5 tokenizer
//     (porter unicode61 remove_diacritics 2) does: terms; termstest compares the two.
//   - One note parsed (front matter, headings, sections, tasks, links): note. One record:
//     record. Which files of a brain bf reads: scan.
//   - bf's Markdown dialect (the goldmark parsers of notes and leads, with bf's own task
//     checkbox, strikethrough and footnote parsers): markdown.
//   - Finding, opening and selecting brains, the machine registry and collection trust
//     (refusing an untrusted brain's programs: brain.Env.RequireTrust): brain. A new brain (bf init): starter. Importing a folder of Markdown: vault, with
//     Obsidian's dialect in obsidian.
//   - Checking every rule a brain keeps (bf validate): check.
//   - Who stated a note or record (a person, an agent, collection), the review mark and
//     the record ledgers that say so: provenance. What no person confirmed is listed and
//     accepted by bf review (memory, pending.go) and left out by fused search (fuse).
//
// # Writing safely
//
//   - Atomic file writes and durable folder changes, reading a file someone else wrote
//     (ReadRegular) and an OS error without its absolute path (Cause): durable. Advisory
//     locks: lock.
//   - The .bf folder's rules (a real folder of the user's, mode 0700), shared by the cache
//     and the record lock: bfdir.
//   - Storing a source's records as one transaction, and recovering one that was
//     interrupted: store.
//
// # Reading
//
//   - The disposable SQLite index in .bf/ (schema, open, refresh, build) and its
//     freshness: cache. The fast reading of a brain's folders that its listing walks (raw
//     getdents, fingerprints, several folders at once): internal/fastlist. With bf watch
//     running, the keeper (inotify, one per brain) answers the freshness check by sync
//     cookie: keeper, above cache, which it drives through cache.Comparer; the protocol
//     between them (the socket, the cookies, the messages, an Open's client):
//     internal/keepsync, below both. One brain's cache
//     in one read-only snapshot, note days and the SQL that places notes in time:
//     cache.Snapshot, cache.NoteDays (cache.Days when few are needed), cache.DaysCTE.
//     Opening every selected brain for a page, a search or an export (problems, stale
//     brains, the only brain failing): cache.OpenReadings. Reading a query's rows: cache.Collect (cache.ReadRows and
//     cache.EachRow for statements and callbacks). The heads of the frequent terms a
//     one-word search reads, and the passages refreshes touched: cache.Head, cache.Touched
//     (cache/heads.go). Chunks for the dense strategy: chunk;
//     their vectors, kept across rebuilds in .bf/vectors.sqlite: cache.OpenVectors
//     (cache/vectors.go); computing them and the dense scan over .bf/vectors.scan: vector. The private in-memory database where text runs through
//     FTS5 (excerpts' snippet()): scratch.
//   - bf search (words, identities, tags, scopes, suggestions, coverage): search. Fused
//     retrieval (lexical, dense, graph and recency by rank): fuse.
//   - bf read: read routes a ref to a computed page (pages), an exact read of a note,
//     section, record or identity (read), or backlinks and relation pages (graph).
//     Identity owners, names claimed by two items and how far an item's names expand:
//     graph (target.go: brainOwners, ClaimedElsewhere, MaxNames), for graph targets and identity
//     search alike.
//   - What every search and read reply shares (notice, problems, items, coverage, paging,
//     the reply encoding and caps): reply. Reply and config JSON Schemas (bf schema):
//     schema.
//   - bf export: export. bf eval: eval. bf ask: ask.
//
// # Running programs
//
//   - Running any program a brain declares (limits, logs, kill on timeout): proc.
//   - Sensors and routines, bf collect and the programs' part of bf update: collect;
//     their run history, due times, retries and coverage: history. bf status: status.
//   - bf update as one call (the programs, then one assistants' pass, then the
//     embeddings): update.
//   - Channel adapters (send, read, stream): channel. The durable queue of jobs and
//     deliveries: queue. What bf channel and bf queue do with them: messaging (a
//     messaging.Messenger on one machine, clock and zone).
//   - Assistants and their harnesses: assist (an assist.Runner runs their cycles, jobs
//     and streams). bf watch: watch.
//   - Agent memories (bf remember, recall, brief, review): memory; each memory field's
//     declaration and reading are described once (memory/fields.go).
//   - The MCP server and its tools, which check every argument with one checker
//     (input.go) and state what they write, run and send from one description per tool
//     (effects.go): mcpserver.
//   - The Language Server Protocol server of bf lsp (JSON-RPC framing in jsonrpc.go): lsp;
//     one note checked from an editor's unsaved text against the cache, with where each
//     finding is: check.Note.
//
// # Shared plumbing
//
//   - Flags, exit codes, diagnostics and the one JSON document a command prints: cli;
//     the one pinned clock (BF_NOW), parsed there and passed down: cli.Env.Clock.
//   - The progress line: progress. The version every binary reports: release.
//   - The shared example brain tests compare against: compat.
//   - Test brains (bf.yaml, notes, records, trust, registry, on a machine of their own):
//     brainfix, for tests only: the unit tests of every package and the e2e harness build
//     their brains with it.
//   - A host's session with an MCP server (initialize, list and call tools, compare a result
//     with the command's reply): mcptest, for tests only: libbf/mcpserver's protocol
//     tests (in process) and bf-mcp's (the binary) share it.
package libbf
