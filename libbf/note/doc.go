// Package note parses one Markdown note of a brain into the model every later layer uses:
// front matter, title, headings and their slugs, sections, tasks and link targets.
//
// Parsing is pure: a brain-relative path and the file's bytes in, a Note out. Nothing here
// reads the disk or resolves a link against it; validation and the search cache do that
// with the brain in hand.
//
// The main rules:
//
//   - A file's Kind, from where it sits, decides which rules apply; ordinary Markdown only
//     reads title, type, status, updated, summary and description, and drops a bad value
//     instead of becoming invalid.
//   - Parse returns an error (a Problem) only for files that cannot be notes: over 4 MiB,
//     not UTF-8, or with Git conflict markers. Invalid front matter values are
//     Note.Problems (the note leaves search); YAML that does not parse, an unclosed block
//     and heading anchor mistakes are Note.Warnings (the note stays searchable).
//   - An H1 that is the note's first heading stands for the whole note: it is no separate
//     passage and no parent in display titles.
//   - Lines nested beyond fixed bounds are flattened before parsing (see defuse), so a
//     hostile note cannot make parsing quadratic.
//
// docs/decisions.md lists the choices these rules make where the format leaves room.
package note
