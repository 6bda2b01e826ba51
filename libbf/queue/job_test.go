package queue

import (
	"database/sql"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswerSpace(t *testing.T) {
	tests := []struct {
		answer, size int64
		routes       int
		want         int64
	}{
		{1 * miB, 0, 1, 13*miB + 2*64*1024},
		{1 * miB, 1000, 0, 7*miB + 1000 + 64*1024},
		{4 * miB, 2048, 1, 52*miB + 2*(2048+64*1024)},
		{1 * miB, 0, 2, 19*miB + 3*64*1024},
		{0, 0, 1, 2 * 64 * 1024},
	}
	for _, tt := range tests {
		if got := AnswerSpace(tt.answer, tt.size, tt.routes); got != tt.want {
			t.Errorf("AnswerSpace(%d, %d, %d) = %d, want %d", tt.answer, tt.size, tt.routes, got, tt.want)
		}
	}
}

// TestJobLifecycle covers each job transition and what it reserves.
func TestJobLifecycle(t *testing.T) {
	type step func(t *testing.T, q *Queue) error
	start := func(cfg JobConfig) step {
		return func(t *testing.T, q *Queue) error { _, err := q.StartJob("j", cfg); return err }
	}
	run := func(end func(r *Run) (Item, error)) step {
		return func(t *testing.T, q *Queue) error {
			r, err := q.StartJob("j", configFor(idem))
			if err != nil {
				return err
			}
			_, err = end(r)
			return err
		}
	}
	deliver := func(t *testing.T, q *Queue) error {
		_, err := mustBegin(t, q, "j.1", idem).Finish(Sent(Receipt{ID: "m"}))
		return err
	}
	killed := func(t *testing.T, q *Queue) error {
		if _, err := q.StartJob("j", configFor(idem)); err != nil {
			return err
		}
		orphan(t, q, "j")
		return nil
	}
	retry := func(t *testing.T, q *Queue) error { _, err := q.Retry("j"); return err }
	cancel := func(t *testing.T, q *Queue) error { _, err := q.Cancel("j"); return err }
	answer := run(func(r *Run) (Item, error) { return r.Answer([]byte("Two reviews are due.")) })
	fail := run(func(r *Run) (Item, error) { return r.Fail("harness exited with status 1; see logs/helper.log") })
	size := newJob("j", idem).size(newJob("j", idem).encodedRoutes())
	answerSpace := AnswerSpace(int64(len("Two reviews are due.")), size, 1)
	otherChannel := JobConfig{Assistant: helperConfig, Channels: map[string]Send{"chat": nonIdem}}

	tests := []struct {
		name      string
		steps     []step
		err       string
		want      view
		reserved  int64
		delivery  State
		noAnswers bool
	}{
		{name: "pending", want: view{State: Pending}},
		{name: "running", steps: []step{start(configFor(idem))}, want: view{State: Running, Attempts: 1},
			reserved: AnswerSpace(1<<20, size, 1)},
		{name: "answered", steps: []step{answer}, want: view{State: Answered, Attempts: 1}, reserved: answerSpace, delivery: Pending},
		{name: "completed once delivered", steps: []step{answer, deliver}, want: view{State: Completed, Attempts: 1}, delivery: Delivered},
		{name: "silent answer completes", steps: []step{run(func(r *Run) (Item, error) { return r.Answer(nil) })},
			want: view{State: Completed, Attempts: 1}, noAnswers: true},
		{name: "failed", steps: []step{fail}, want: view{State: Failed, Attempts: 1, Error: "harness exited with status 1; see logs/helper.log"}, noAnswers: true},
		{name: "interrupted by a signal", steps: []step{run(func(r *Run) (Item, error) { return r.Interrupt() })},
			want: view{State: Uncertain, Attempts: 1, Error: "interrupted harness attempt; inspect before retrying"}, noAnswers: true},
		{name: "killed", steps: []step{killed, retry}, want: view{State: Pending, Attempts: 1}, noAnswers: true},
		{name: "still running", steps: []step{start(configFor(idem)), retry}, err: "job is still running; retry or cancel it once its attempt ends",
			want: view{State: Running, Attempts: 1}, reserved: AnswerSpace(1<<20, size, 1), noAnswers: true},
		{name: "cancel while running", steps: []step{start(configFor(idem)), cancel}, err: "job is still running; retry or cancel it once its attempt ends",
			want: view{State: Running, Attempts: 1}, reserved: AnswerSpace(1<<20, size, 1), noAnswers: true},
		{name: "retry failed", steps: []step{fail, retry}, want: view{State: Pending, Attempts: 1}, noAnswers: true},
		{name: "cancel pending", steps: []step{cancel}, want: view{State: Cancelled}, noAnswers: true},
		{name: "cancel answered cancels its delivery", steps: []step{answer, cancel}, want: view{State: Cancelled, Attempts: 1}, delivery: Cancelled},
		{name: "cancelling the delivery completes the job", steps: []step{answer, func(t *testing.T, q *Queue) error { _, err := q.Cancel("j.1"); return err }},
			want: view{State: Completed, Attempts: 1}, delivery: Cancelled},
		{name: "cancel while its delivery is sent", steps: []step{answer, func(t *testing.T, q *Queue) error { mustBegin(t, q, "j.1", idem); return nil }, cancel},
			err:  "delivery is still being sent; retry or cancel it once its attempt ends",
			want: view{State: Answered, Attempts: 1}, reserved: answerSpace, delivery: Sending},
		{name: "retry completed", steps: []step{answer, deliver, retry}, err: "job j is already completed; there is nothing to retry",
			want: view{State: Completed, Attempts: 1}, delivery: Delivered},
		{name: "assistant configuration changed", steps: []step{start(JobConfig{Assistant: []byte("{}"), Channels: configFor(idem).Channels})},
			err:  "assistant configuration changed; restore it, then retry or cancel this job with bf queue",
			want: view{State: Failed, Error: "assistant configuration changed; restore it, then retry or cancel this job with bf queue"}, noAnswers: true},
		{name: "output channel changed", steps: []step{start(otherChannel)},
			err:  "output channel configuration changed; restore it, then retry or cancel this job with bf queue",
			want: view{State: Failed, Error: "output channel configuration changed; restore it, then retry or cancel this job with bf queue"}, noAnswers: true},
		{name: "output channel removed", steps: []step{start(JobConfig{Assistant: helperConfig})},
			err:  "output channel configuration changed; restore it, then retry or cancel this job with bf queue",
			want: view{State: Failed, Error: "output channel configuration changed; restore it, then retry or cancel this job with bf queue"}, noAnswers: true},
		{name: "restored configuration runs after retry", steps: []step{func(t *testing.T, q *Queue) error {
			q.StartJob("j", otherChannel) // fails the job
			return nil
		}, retry, answer},
			want: view{State: Answered, Attempts: 1}, reserved: answerSpace, delivery: Pending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{})
			if _, _, err := q.AdmitJob(newJob("j", idem)); err != nil {
				t.Fatal(err)
			}
			var err error
			for _, s := range tt.steps {
				if err = s(t, q); err != nil {
					break
				}
			}
			if tt.err != "" {
				if errText(err) != tt.err {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewOf(mustItem(t, q, "j"))); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
			s, err := q.Summary()
			if err != nil {
				t.Fatal(err)
			}
			if s.ReservedBytes != tt.reserved {
				t.Errorf("reserved %d bytes, want %d", s.ReservedBytes, tt.reserved)
			}
			d, err := q.Get("j.1")
			switch {
			case tt.noAnswers || tt.delivery == "":
				if err == nil {
					t.Errorf("unexpected delivery j.1 in state %s", d.State)
				}
			case err != nil:
				t.Fatal(err)
			case d.State != tt.delivery:
				t.Errorf("delivery j.1 is %s, want %s", d.State, tt.delivery)
			case *d.Text != "Two reviews are due." || d.Conversation != "t-j" || d.ReplyTo != "m-j" || d.Job != "j":
				t.Errorf("delivery j.1 = %+v", d)
			}
		})
	}
}

// TestAnswerSpaceReservation: a job waits while others hold the space it needs, a job
// needing more than any may reserve fails, and a saved answer retried reserves again.
func TestAnswerSpaceReservation(t *testing.T) {
	small := func(id string, maxBytes int64) NewJob {
		j := newJob(id, idem)
		j.MaxBytes = maxBytes
		return j
	}
	t.Run("waits for space", func(t *testing.T) {
		q, _, _ := openTest(t, Options{AdmitBytes: 3 * miB})
		for _, id := range []string{"a", "b"} {
			if _, _, err := q.AdmitJob(small(id, 130*1024)); err != nil {
				t.Fatal(err)
			}
		}
		ra, err := q.StartJob("a", configFor(idem))
		if err != nil {
			t.Fatal(err)
		}
		_, err = q.StartJob("b", configFor(idem))
		checkErr(t, err, ErrNoAnswerSpace, "assistant queue lacks answer space for this job; it waits until running work finishes")
		if got := mustItem(t, q, "b").State; got != Pending {
			t.Errorf("b is %s, want pending", got)
		}
		if _, err := ra.Fail("harness exited with status 1"); err != nil {
			t.Fatal(err)
		}
		if _, err := q.StartJob("b", configFor(idem)); err != nil {
			t.Errorf("b cannot start once a failed: %v", err)
		}
	})
	t.Run("needs more than one job may reserve", func(t *testing.T) {
		q, _, _ := openTest(t, Options{AdmitBytes: 10 * miB})
		if _, _, err := q.AdmitJob(small("a", 1*miB)); err != nil {
			t.Fatal(err)
		}
		_, err := q.StartJob("a", configFor(idem))
		want := "assistant helper needs 14 MiB of queue space per answer, more than one job may reserve; lower its max_bytes"
		checkErr(t, err, ErrNoAnswerSpace, want)
		if diff := cmp.Diff(view{State: Failed, Error: want}, viewOf(mustItem(t, q, "a"))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("saved answer retried", func(t *testing.T) {
		q, _, _ := openTest(t, Options{AdmitBytes: 3 * miB})
		if _, _, err := q.AdmitJob(small("a", 100*1024)); err != nil {
			t.Fatal(err)
		}
		r, err := q.StartJob("a", configFor(idem))
		if err != nil {
			t.Fatal(err)
		}
		r.Answer([]byte("saved"))
		// The job fails after answering (its assistant was disabled): it keeps the answer.
		err = q.write("test", func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'failed', reserved = 0 WHERE id = 'a'")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// Another running job takes the space.
		if _, _, err := q.AdmitJob(small("b", 220*1024)); err != nil {
			t.Fatal(err)
		}
		if _, err := q.StartJob("b", configFor(idem)); err != nil {
			t.Fatal(err)
		}
		_, err = q.Retry("a")
		checkErr(t, err, ErrNoAnswerSpace, "assistant queue lacks space to record this saved answer; resolve other work first")
		if _, err := q.Cancel("b"); err == nil {
			t.Fatal("cancelled a running job")
		}
		orphan(t, q, "b")
		if _, err := q.Recover(); err != nil {
			t.Fatal(err)
		}
		it, err := q.Retry("a")
		if err != nil {
			t.Fatal(err)
		}
		if it.State != Answered {
			t.Errorf("retried saved answer is %s, want answered", it.State)
		}
	})
}
