// Package assist runs a brain's assistants: the harness programs declared under
// assistants: in bf.yaml, which answer channel messages, speak on named schedules, wake
// themselves up, and run by hand with bf run.
//
// Every run is a job of the brain's durable queue (package queue). Exec runs one job:
// it starts the job's attempt in the queue, expands the prompt (prompts/NAME.md, or the file prompt: names)
// with the run's request, writes a private context file, runs the harness through
// package proc (direct argv, never a shell) with the prompt on stdin, reads its answer
// (plain stdout, or the {say, wake} object of reply: {path}), stores the run as a record
// in memories/NAME/ through package store, then records the answer in the queue, which
// creates its deliveries. Cycle is one pass of a worker (bf watch): it admits due
// schedules and wakes, reads due inputs, runs ready jobs and attempts due deliveries.
package assist
