// Package pages computes bf read's pages over one or several brains: home, the folder
// listings of projects, concepts and actions, the task list, periods, the memories pages,
// tags, and an action folder's page; and the review signals that listings, home and the
// whole read of a note carry.
//
// Read is the one entry point. It opens each selected brain's cache (which refreshes it),
// reads every brain in one read-only snapshot, merges the brains into one global order and
// returns one page: items measured in the shape several brains print them (brain, uri and
// bf:// addresses), at most reply.Budget bytes of items per page, and next_offset while
// more follow. One selected brain without selection problems prints the local shape.
//
// Time. Notes are dated by their updated day, placed at local midnight in the request's
// location (daylight-saving days included). Records are placed by their event time, or by
// attributes.observed when they have none; records with neither stay out of periods.
// Upcoming items and newer evidence use event times only: observation never counts.
//
// Choices made where the format leaves room:
//   - Home changed holds every non-deprecated note dated in the last 7 days other than
//     projects, which list themselves in projects; actions stay, even those home actions
//     lists. Its entries keep ref, kind, title, date, modified and review only.
//   - Home attention lists, per brain, the enabled programs with a refresh (assistants:
//     with a schedule) that failed, are overdue, never succeeded on this machine or went
//     silent, judged from this machine's run history. Sensors come first, then routines,
//     then assistants, each by name.
//   - A source page (memories/SOURCE) orders its records by event time, newest first,
//     undated records last; memories/SOURCE/undated lists them by ref, descending. Source
//     period pages place records like period pages (time, else observed) and keep
//     low-priority records: the page belongs to that source.
//   - A record file page (memories/SOURCE/FILE) of a known source whose file is not indexed
//     is an empty listing, not an error.
//   - A page restricted to one brain (a bf://NAME/ read) prints the local shape when no
//     selection problem concerns that brain, and its review signals count the evidence of
//     that brain only; unrestricted pages and exact reads count every selected brain.
//   - Newer evidence follows the backlink rules of package graph, with one difference: a
//     name counts for none when another item holds it as a name or as its ref.
//   - The action page is the whole read of the folder's ACTION.md; it is returned whole
//     (text paging of large exact reads belongs to the exact-read code). Its files are the
//     folder's regular files, recursively, sorted, without ACTION.md and hidden names;
//     symbolic links and special files are reported in problems. Its projects are notes
//     under projects/ that ACTION.md links to by path, by own address or by a name only
//     that note holds, by ref, at most 20.
package pages
