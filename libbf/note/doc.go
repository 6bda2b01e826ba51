// Package note parses one Markdown note of a brain into the model every later layer uses:
// front matter, title, headings and their slugs, sections, tasks and link targets.
//
// Parsing is pure: a brain-relative path and the file's bytes in, a Note out. Nothing here
// reads the disk or resolves a link against it; validation and the search cache do that
// with the brain in hand.
//
// Where the reference notes on the original implementation are silent, this package
// decides as follows:
//
//   - Parse returns an error (a Problem) only for files that cannot be notes: over 4 MiB,
//     not UTF-8, or with Git conflict markers. Invalid front matter values are
//     Note.Problems (the note leaves search); YAML that does not parse, an unclosed block
//     and heading anchor mistakes are Note.Warnings (the note stays searchable).
//   - A YAML null counts as an absent key. Front matter that is not a mapping is ignored
//     like YAML that does not parse.
//   - In ordinary Markdown an invalid title, type, status, updated, summary or
//     description is dropped with a warning instead of making the document invalid.
//   - sources and verified entries are checked as values: a bad one makes the note
//     invalid, like a malformed alias.
//   - The OKF type message "OKF concepts require a nonempty type in YAML frontmatter" is
//     used for projects and actions too: OKF calls every knowledge document a concept.
//   - Explicit anchors: an anchor already held by an earlier heading, or a generated slug
//     equal to an earlier explicit anchor, is a duplicate; the heading then takes a
//     generated slug. A generated slug's -N suffix skips anchors written later, but its
//     plain stem does not, so the later anchor is then the duplicate.
//   - The H1 that opens a note stands for the whole note: it is no separate passage and
//     no parent in display titles. Any other heading, later H1s included, is a passage.
//     The introduction stops at the first passage heading.
//   - Task text is the whole first paragraph after the checkbox, not only its first line.
//   - A footnote nobody cites keeps the section where it is defined as its links' origin.
//   - In an action, a link starting with '/' is absolute and leaves the brain.
//   - Lines opening more than 32 containers or indented deeper than 64 columns are
//     flattened before parsing, so a hostile note cannot make parsing quadratic.
package note
