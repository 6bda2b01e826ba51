package cache

import "github.com/bfgo/bf/libbf/config"

// schemaVersion is the layout of .bf/index.sqlite, stored in PRAGMA user_version. A generation
// with another value is never read: it is rebuilt from the brain's files. Version 2 added
// the scopes table; version 3 keeps the typed links of ordinary Markdown as claims and adds
// the reviews, chunks, vectors and bigrams tables; version 4 adds the heavy table; version 5
// widens edges_target to edges(target, item, relation) and items_kind_time to items(kind, time,
// source, observed) and adds items_projects, a partial index holding what home orders projects
// by, so backlinks, period activity and home's projects read only indexes; version 6 adds
// note_days, the days notes are dated, which every search and page reads; version 7 adds
// edges_supersedes, a partial index of the supersedes edges fused search reads; version 8
// keeps in reviews the records collection did not write (package provenance); version 9
// moves the vectors to their own store (.bf/vectors.sqlite, vectorTables), which rebuilds
// keep, and adds chunk_state; version 10 adds the heads of the frequent terms and the
// passages refreshes touched (heads.go); version 11 adds term_docs, the rows holding each
// term that has a head, kept exact by every refresh, so a search need not count them.
const schemaVersion = 11

// searchTokenizer is the search table's tokenizer: FTS5's porter stemmer over unicode61,
// accents removed.
const searchTokenizer = `tokenize='porter unicode61 remove_diacritics 2'`

// File names inside a brain's .bf/ folder.
const (
	// Dir is the cache folder at the brain root (mode 0700, owned by the user).
	Dir = ".bf"
	// IndexFile is the live generation, in WAL mode.
	IndexFile = "index.sqlite"
	// newIndexFile is a generation being built; it replaces IndexFile when complete.
	newIndexFile = "index.sqlite.new"
	// readerLockFile is flocked shared while a generation is compared with the files and
	// refreshed, and exclusive by whoever writes records (a record transaction, its recovery).
	readerLockFile = "reader.lock"
	// WriterLockFile is flocked exclusive while a generation is refreshed or replaced.
	WriterLockFile = "writer.lock"
	// buildLockFile is flocked exclusive for the whole of a full build, so a short-lived
	// reader can tell a build from a refresh (see yield.go).
	buildLockFile = "build.lock"
)

// Item kinds (items.kind).
const (
	KindNote   = "note"
	KindRecord = "record"
)

// tables documents every table and column of the cache, for readers writing queries and for
// bf schema style listings. It is documentation, not DDL: the statements live in this package.
//
// Conventions:
//   - instants are canonical UTC strings YYYY-MM-DDTHH:MM:SS.ffffffZ (timestamp.Canonical), and
//     ” when unknown; they sort as text;
//   - a note's items.time is the day of its `updated` front matter at 00:00:00.000000Z; it means
//     LOCAL midnight of that day, so readers convert it at query time (a timezone change never
//     needs a rebuild); a record's items.time is its event time, a real UTC instant;
//   - file fingerprints are integers: size in bytes, mtime and ctime in nanoseconds since the
//     Unix epoch, inode number; a fingerprint of -1 is "unknown, compare again next time";
//   - FTS values are NFKC-folded; passages.original keeps the unfolded text column when folding
//     changed it.
var tables = []table{
	{Name: "meta", Doc: "one row: what this generation was built for", Columns: []column{
		{"signature", "SHA-256 hex of the compact JSON {name, fields} of bf.yaml (fields without description, examples, broader, targets); another value forces a full rebuild"},
		{"file", "inode of the database file when it was built, as decimal text; a copied cache has another inode and is rebuilt"},
	}},
	{Name: "files", Doc: "one row per input file (notes under projects/, concepts/, actions/ and record files memories/SOURCE/*.json), including skipped ones", Columns: []column{
		{"path", "brain-relative path, primary key"},
		{"size", "size in bytes"},
		{"mtime", "modification time, ns since the epoch"},
		{"ctime", "status change time, ns since the epoch"},
		{"inode", "inode number"},
		{"error", "'' for an indexed file; otherwise the short reason it was skipped (≤1 KiB), reported in problems while its fingerprint is unchanged"},
	}},
	{Name: "folders", Doc: "one row per record source folder memories/SOURCE, so a warm open lists a source only when it changed", Columns: []column{
		{"path", "brain-relative folder path (memories/SOURCE), primary key"},
		{"mtime", "modification time, ns since the epoch, when last listed"},
		{"ctime", "status change time, ns since the epoch, when last listed"},
		{"inode", "inode number when last listed"},
		{"subfolder", "1 when the folder held a subfolder when last listed: it is then listed on every open"},
	}},
	{Name: "scopes", Doc: "one row per authored root whose files rows are exactly one listing of it, so a warm open that lists the same need not read them", Columns: []column{
		{"scope", "authored root with its slash (projects/, actions/, concepts/), primary key"},
		{"digest", "SHA-256 hex of that listing's paths and fingerprints, in path order"},
	}},
	{Name: "items", Doc: "one row per indexed note or record", Columns: []column{
		{"id", "integer primary key"},
		{"ref", "unique: the note's brain-relative path, or SOURCE:ID for a record"},
		{"path", "brain-relative file path (a record's memories/SOURCE/<sha256>.json)"},
		{"kind", "'note' or 'record'"},
		{"source", "record source name; '' for notes"},
		{"title", "display title (front matter title, first H1 or the file stem; a record's title)"},
		{"time", "event time: a record's time, a note's updated day at 00:00:00.000000Z (local midnight for readers); '' when undated"},
		{"type", "note type (front matter or folder default project/concept/action); '' for records"},
		{"status", "note status (draft, stable, deprecated) or ''"},
		{"lead", "plain-text excerpt for listings, at most 320 characters"},
		{"url", "a record's url, or ''"},
		{"updated", "a record's attributes.updated, canonical UTC, or '' (always '' for notes: their time already is their updated day)"},
		{"observed", "a record's attributes.observed, canonical UTC, or ''"},
		{"partial", "1 when a record's attributes.partial is true, else 0"},
		{"tasks_open", "open checkbox tasks of the note; 0 unless its tasks count (entry notes that are not deprecated)"},
		{"tasks_done", "done checkbox tasks of the note, counted like tasks_open"},
		{"next", "plain text of the first open task (when tasks count), or ''"},
		{"weight", "ranking weight: 2 for entry notes (projects/ and concepts/ notes other than index.md and log.md, actions/<d>/ACTION.md), else 1"},
		{"stale_after", "a note's stale_after instant, canonical UTC, or ''"},
		{"fields", "compact JSON object of declared field values of the item, or ''"},
	}},
	{Name: "tasks", Doc: "checkbox tasks of notes whose tasks count (projects, concepts and ACTION.md entry notes, not deprecated)", Columns: []column{
		{"item", "items.id"},
		{"line", "1-based line in the file"},
		{"fragment", "slug of the enclosing section, '' before the first section"},
		{"text", "task text, at most 320 characters, emphasis stripped, links kept as [label](target) with relative paths resolved to brain-relative refs"},
		{"done", "1 when checked, else 0"},
	}},
	{Name: "passages", Doc: "one row per searchable passage; search.rowid = passages.id", Columns: []column{
		{"id", "integer primary key, equal to the rowid of its search row"},
		{"item", "items.id"},
		{"fragment", "'' for the whole note or a record; the section slug otherwise"},
		{"title", "display title: the item title, or Note — Parent — Heading for a section"},
		{"original", "unfolded value of the search text column when NFKC folding changed it, else ''"},
	}},
	{Name: "search", Doc: "FTS5 table, tokenize='porter unicode61 remove_diacritics 2', values NFKC-folded; bm25 weights title 10, text 1, names 0.5, context 3", Columns: []column{
		{"title", "note title, section heading or record title"},
		{"text", "whole note: summary and introduction; section: its own lines; record: its text"},
		{"names", "whole note: type, aliases, resolved link targets, declared field values; record: source, aliases, links, url, field values; section: ''"},
		{"context", "whole note: its tags; section: the note title and enclosing heading titles; record: ''"},
	}},
	{Name: "bigrams", Doc: "FTS5 table, tokenize='unicode61': the runs of Chinese, Japanese, Korean and Thai letters of passages holding any, as overlapping character bigrams, so fused search finds a word inside a run; rowid = passages.id", Columns: []column{
		{"text", "the bigrams of the passage's folded title and text, separated by spaces"},
	}},
	{Name: "heavy", Doc: "the term counts of large passages that repeat few terms (over 64 KiB, at most 256 distinct term and column pairs): every term of such a passage, so search computes its BM25 without FTS5 listing each instance", Columns: []column{
		{"passage", "passages.id"},
		{"term", "an indexed (stemmed, folded) term"},
		{"col", "the search column: 0 title, 1 text, 2 names, 3 context"},
		{"count", "its occurrences in that column of the passage"},
	}},
	{Name: "heads", Doc: "the heads of the terms in more than 5,000 passages when the generation was built: the 512 passages of the best BM25 and bounds for the others, so a one-word search reads a head instead of scoring every match (heads.go)", Columns: []column{
		{"term", "an indexed (stemmed, folded) term"},
		{"entries", "uvarints: passage id, twice the term's weighted count in it, its size in tokens; best first"},
		{"rest", "uvarints: twice a weighted count and a size of the other passages holding the term, none beaten on both by another pair"},
	}},
	{Name: "term_docs", Doc: "for every term of the heads table, the search rows holding it, kept exact by every refresh: the count BM25's idf needs, which FTS5 would find by reading the term's whole list (heads.go)", Columns: []column{
		{"term", "an indexed (stemmed, folded) term, primary key"},
		{"docs", "number of search rows holding it in any column"},
	}},
	{Name: "touched", Doc: "the passages refreshes wrote or removed since the build: search scores them apart from the heads", Columns: []column{
		{"passage", "passages.id"},
	}},
	{Name: "vocabulary", Doc: "fts5vocab(search, row): term, doc, cnt — for spelling suggestions", Columns: []column{
		{"term", "an indexed (stemmed, folded) term"},
		{"doc", "number of passages holding it"},
		{"cnt", "number of occurrences"},
	}},
	{Name: "names", Doc: "identities an item answers to", Columns: []column{
		{"name", "bf://NAME/path or bf://NAME/SOURCE:ID (own address), the entity, aliases, an identity-shaped resource; canonical"},
		{"item", "items.id"},
	}},
	{Name: "links", Doc: "every link target of an item (untyped, typed, sources, relation field values); tag membership is in tags, not here", Columns: []column{
		{"item", "items.id"},
		{"target", "canonical target: brain-relative path with #fragment for notes, bf:// without ?rel=, record refs and identities as written"},
	}},
	{Name: "tags", Doc: "tag membership", Columns: []column{
		{"item", "items.id"},
		{"target", "bf://NAME/tags/LABEL"},
	}},
	{Name: "note_days", Doc: "every distinct day a note's items.time holds, kept by every build and refresh", Columns: []column{
		{"day", "YYYY-MM-DD, primary key"},
	}},
	{Name: "reviews", Doc: "the items no one has confirmed (package provenance): notes whose front matter says `review: unreviewed` (or holds a malformed mark), and records collection did not write (no ledger line names their current bytes)", Columns: []column{
		{"item", "items.id, primary key"},
		{"state", "`unreviewed`: fused search, bf ask and MCP resources leave the item out at the default trust floor, and no edge it states or name it claims is walked"},
	}},
	{Name: "chunks", Doc: "block-aligned chunks of notes and records for the dense strategy, written only when bf.yaml declares embeddings", Columns: []column{
		{"id", "integer primary key"},
		{"item", "items.id"},
		{"fragment", "the section's slug, or '' for a note's introduction or a record"},
		{"hash", "SHA-256 hex of text: the key of its vector in .bf/vectors.sqlite"},
		{"text", "the chunk as embedded: a prefix naming title, heading path, type, linked entities and date (records: source, title, time), a blank line, then sibling blocks packed to about 1,200 characters with one block of overlap"},
	}},
	{Name: "chunk_state", Doc: "one row naming this generation's chunks, so a copy of them (the dense strategy's scan file) knows whether it is current", Columns: []column{
		{"generation", "drawn at random by the build that made the generation"},
		{"changes", "how many refreshes changed items since that build"},
	}},
	{Name: "edges", Doc: "claims: subject relation target, with where it was stated", Columns: []column{
		{"item", "items.id of the stating item"},
		{"subject", "the item's entity, or its own bf:// address"},
		{"relation", "'' untyped, 'cites', 'tagged-with' or a declared relation"},
		{"target", "canonical target, as in links (a tag address for tagged-with)"},
		{"origin", "path#slug (link inside a section), path (note level) or SOURCE:ID (record)"},
	}},
}

// table describes one table of the cache.
type table struct {
	Name    string
	Doc     string
	Columns []column
}

// column describes one column.
type column struct {
	Name string
	Doc  string
}

// ddl creates an empty generation (without secondary indexes).
var ddl = []string{
	`CREATE TABLE meta(signature TEXT NOT NULL, file TEXT NOT NULL)`,
	`CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
		ctime INTEGER NOT NULL, inode INTEGER NOT NULL, error TEXT NOT NULL DEFAULT '') WITHOUT ROWID`,
	`CREATE TABLE folders(path TEXT PRIMARY KEY, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
		inode INTEGER NOT NULL, subfolder INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`,
	`CREATE TABLE scopes(scope TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE items(id INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
		kind TEXT NOT NULL, source TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
		time TEXT NOT NULL DEFAULT '', type TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT '',
		lead TEXT NOT NULL DEFAULT '', url TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL DEFAULT '',
		observed TEXT NOT NULL DEFAULT '', partial INTEGER NOT NULL DEFAULT 0,
		tasks_open INTEGER NOT NULL DEFAULT 0, tasks_done INTEGER NOT NULL DEFAULT 0,
		next TEXT NOT NULL DEFAULT '', weight INTEGER NOT NULL DEFAULT 1,
		stale_after TEXT NOT NULL DEFAULT '', fields TEXT NOT NULL DEFAULT '')`,
	`CREATE TABLE tasks(item INTEGER NOT NULL, line INTEGER NOT NULL, fragment TEXT NOT NULL,
		text TEXT NOT NULL, done INTEGER NOT NULL, PRIMARY KEY(item, line)) WITHOUT ROWID`,
	`CREATE TABLE passages(id INTEGER PRIMARY KEY, item INTEGER NOT NULL, fragment TEXT NOT NULL,
		title TEXT NOT NULL, original TEXT NOT NULL DEFAULT '')`,
	`CREATE VIRTUAL TABLE search USING fts5(title, text, names, context,
		` + searchTokenizer + `)`,
	`CREATE VIRTUAL TABLE vocabulary USING fts5vocab(search, row)`,
	`CREATE TABLE heavy(passage INTEGER NOT NULL, term TEXT NOT NULL, col INTEGER NOT NULL, count INTEGER NOT NULL,
		PRIMARY KEY(passage, term, col)) WITHOUT ROWID`,
	`CREATE TABLE heads(term TEXT PRIMARY KEY, entries BLOB NOT NULL, rest BLOB NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE term_docs(term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE touched(passage INTEGER PRIMARY KEY)`,
	`CREATE VIRTUAL TABLE bigrams USING fts5(text, tokenize='unicode61')`,
	`CREATE TABLE names(name TEXT NOT NULL, item INTEGER NOT NULL, PRIMARY KEY(name, item)) WITHOUT ROWID`,
	`CREATE TABLE links(item INTEGER NOT NULL, target TEXT NOT NULL, PRIMARY KEY(item, target)) WITHOUT ROWID`,
	`CREATE TABLE tags(item INTEGER NOT NULL, target TEXT NOT NULL, PRIMARY KEY(item, target)) WITHOUT ROWID`,
	`CREATE TABLE edges(item INTEGER NOT NULL, subject TEXT NOT NULL, relation TEXT NOT NULL,
		target TEXT NOT NULL, origin TEXT NOT NULL)`,
	`CREATE TABLE reviews(item INTEGER PRIMARY KEY, state TEXT NOT NULL)`,
	`CREATE TABLE note_days(day TEXT PRIMARY KEY) WITHOUT ROWID`,
	`CREATE TABLE chunks(id INTEGER PRIMARY KEY, item INTEGER NOT NULL, fragment TEXT NOT NULL,
		hash TEXT NOT NULL, text TEXT NOT NULL)`,
	`CREATE TABLE chunk_state(generation TEXT NOT NULL, changes INTEGER NOT NULL)`,
}

// indexes are created after a full fill (and exist in every live generation).
var indexes = []string{
	`CREATE INDEX edges_item ON edges(item)`,
	`CREATE INDEX edges_target ON edges(target, item, relation)`,
	`CREATE INDEX edges_subject ON edges(subject, relation)`,
	// Fused search reads every supersedes edge of the brain; they are few.
	`CREATE INDEX edges_supersedes ON edges(item) WHERE relation = '` + config.RelSupersedes + `'`,
	`CREATE INDEX items_path ON items(path)`,
	`CREATE INDEX items_kind_time ON items(kind, time, source, observed)`,
	`CREATE INDEX items_kind_source_time ON items(kind, source, time)`,
	`CREATE INDEX items_kind_updated ON items(kind, coalesce(nullif(updated, ''), time))`,
	// Home reads every project (not only those it shows) to order them: this index holds all
	// that step reads.
	`CREATE INDEX items_projects ON items(kind, type, weight, status, time, ref, path, tasks_open, tasks_done,
		next, stale_after) WHERE kind = 'note' AND weight = 2 AND type = 'project'`,
	`CREATE INDEX passages_item ON passages(item)`,
	`CREATE INDEX chunks_item ON chunks(item)`,
	`CREATE INDEX chunks_hash ON chunks(hash)`,
	`CREATE INDEX tasks_done ON tasks(done, item, line)`,
	`CREATE INDEX names_item ON names(item)`,
	`CREATE INDEX links_target ON links(target)`,
	`CREATE INDEX tags_target ON tags(target)`,
	`CREATE INDEX files_error ON files(path) WHERE error != ''`,
}
