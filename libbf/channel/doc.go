// Package channel speaks the channel adapter protocol: the commands a brain declares under
// channels: in bf.yaml to send messages to, read messages from and stream messages out of
// a messaging surface. bf knows JSON envelopes and argv; the adapter owns the provider,
// its credentials, who may write to the brain and where answers may go.
//
//   - Send (Endpoint.Send) writes one JSON object on the command's stdin and reads one
//     receipt from its stdout. A failure says whether the message may have gone out
//     (Class), which decides between retrying and asking the user.
//   - Read (Endpoint.Read) runs a finite command over a [start, end) window and accepts
//     only a complete batch: at most maxBatch messages with distinct IDs, all inside the
//     window. Poll catches a read input up on a backlog in parts.
//   - Stream (Endpoint.Stream) supervises a long-lived adapter: a resume frame on stdin,
//     one envelope per stdout line, an acknowledgement once the caller has committed the
//     message, restarts with backoff.
//
// Everything an adapter prints is untrusted. Errors name the field and the reason and
// point at the command's log (logs/channel.NAME.OPERATION.log); they never quote message
// text or provider output. Durable state (deliveries, admitted messages, checkpoints and
// cursors) belongs to the caller, normally the queue: this package runs commands and
// checks what they print, and tells the caller when it is safe to commit or acknowledge.
package channel
