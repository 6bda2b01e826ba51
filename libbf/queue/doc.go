// Package queue is the durable local queue of assistant jobs and channel deliveries: the
// SQLite file queue.sqlite3 in a brain's state folder ($XDG_STATE_HOME/bf/runtime/<dev>-<ino>/).
//
// The guarantee is durable local acceptance and conservative recovery. Every change is one
// transaction, committed before anything acts on it: a delivery is saved before its send
// command runs, an attempt is recorded as started before it starts, and a stream message is
// committed with its jobs and its input's progress before it is acknowledged.
//
// # Durability
//
// The file uses SQLite's rollback journal (not WAL) with synchronous=EXTRA, so a commit
// is on stable storage when it returns and a copy of queue.sqlite3 taken while no bf
// process runs is a complete backup. A process killed while writing leaves
// queue.sqlite3-journal beside the file; the next Open rolls it back, while OpenReadOnly
// (which may not) reports errInterruptedWrite. The queue file is never opened by other
// means while SQLite holds it, since closing any descriptor of a file drops the process's
// locks on it.
//
// # Format
//
// One format, kept in PRAGMA user_version with a bf application_id, and no automatic
// migration: an earlier one is refused with errOldFormat, anything else with
// errUnknownFormat. Both say to preserve the file.
//
// # Binding
//
// A queue is bound to its brain's path and name. Open rebinds it when nothing is
// unresolved and refuses (ErrRebind) otherwise; Adopt renames the state folder of a
// brain whose device was numbered anew.
//
// # Work
//
// Deliveries move through pending, sending, then delivered, failed, uncertain or
// cancelled; jobs through pending, running, answered, then completed, failed, uncertain or
// cancelled. Attempts hold a lease naming their process; a dead owner means the attempt was
// interrupted, which Recover, Retry, Cancel and the next attempt record. Capacity limits,
// answer-space reservations and retention live in Options.
package queue
