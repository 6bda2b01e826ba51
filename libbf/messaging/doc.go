// Package messaging is what bf channel, bf queue and the messaging block of bf status do
// with a brain's channels (package channel) and its durable queue (package queue), so
// the commands stay thin.
//
//   - Send (bf channel send NAME --stdin) parses one JSON object, gives it a delivery ID
//     when it has none, saves the delivery in the queue, attempts it once and records how
//     the attempt ended. An ID saved before with the same content is not sent again: its
//     saved delivery is returned (a never attempted one is attempted); other content
//     under a saved ID is refused.
//   - Read (bf channel read NAME --since T --until T) runs the channel's read over a
//     window and returns its complete batch. It admits nothing and moves no checkpoint.
//   - Stream (bf channel stream NAME) runs the channel's stream in the foreground to test
//     an adapter by hand: every message the stream would admit is printed as one
//     canonical JSON line, and acknowledged once printed. Nothing is admitted and no
//     cursor is kept: each run resumes from its start time with an empty cursor.
//   - List, Get, Retry and Cancel are bf queue. A delivery retry attempts that delivery
//     at once, so a standalone send needs no watcher.
//   - Block is the messaging block of bf status.
//
// # Opening the queue
//
// Commands that change the queue first adopt a state folder left under an earlier device
// number (queue.Adopt), then open the queue bound to the brain's resolved path and name,
// which rolls back a write a killed process left behind and rebinds a moved brain without
// unresolved work. Execution commands (send, read, stream, a retry or a cancel) also
// record every attempt whose process died (queue.Recover). bf queue and bf queue ID open
// the queue without recording, so an attempt killed outright shows as sending there
// until one of those commands runs.
//
// Sends, reads, streams and delivery retries run the brain's programs and need
// collection trust (bf register PATH --collect).
//
// # Interruption
//
// When ctx ends during an attempt (Ctrl-C or SIGTERM), the send command is stopped and
// the attempt is recorded as interrupted before the function returns: the delivery
// becomes uncertain, or failed on an idempotent channel. A ctx that ended before the send
// command started records an attempt that sent nothing.
package messaging
