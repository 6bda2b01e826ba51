package queue

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const fullMsg = "assistant queue is full; finish, retry or cancel unfinished work before accepting more"

// TestCapacityRefusal fills the queue to each limit and checks that the refusal reads as
// promised and that nothing admitted before changed.
func TestCapacityRefusal(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		fill   int    // deliveries admitted before the refusal
		text   string // text of each
		refuse func(q *Queue) error
	}{
		{name: "obligations", opts: Options{MaxObligations: 3}, fill: 3, text: "x",
			refuse: func(q *Queue) error {
				_, _, err := q.AdmitDelivery(NewDelivery{ID: "over", Channel: "chat", Text: "x", Send: idem})
				return err
			}},
		{name: "a job counts its future deliveries", opts: Options{MaxObligations: 3}, fill: 2, text: "x",
			refuse: func(q *Queue) error {
				_, _, err := q.AdmitJob(newJob("over", idem)) // 1 job + 1 route
				return err
			}},
		// Each delivery stores 1,000 bytes of text plus its ID and channel and is charged
		// twice its size: the fourth would bring 3 × 1,006 + 2 × 1,008 = 5,034 of 4,500.
		{name: "admission bytes", opts: Options{AdmitBytes: 4500}, fill: 3, text: strings.Repeat("x", 1000),
			refuse: func(q *Queue) error {
				_, _, err := q.AdmitDelivery(NewDelivery{ID: "over", Channel: "chat", Text: strings.Repeat("x", 1000), Send: idem})
				return err
			}},
		{name: "reserved answer space counts", opts: Options{AdmitBytes: 2 * miB}, fill: 0, text: "",
			refuse: func(q *Queue) error {
				j := newJob("big", idem)
				j.MaxBytes = 140 * 1024
				if _, _, err := q.AdmitJob(j); err != nil {
					return err
				}
				if _, err := q.StartJob("big", configFor(idem)); err != nil {
					return err
				}
				_, _, err := q.AdmitDelivery(NewDelivery{ID: "over", Channel: "chat", Text: strings.Repeat("x", 100*1024), Send: idem})
				return err
			}},
		{name: "database file", opts: Options{MaxDatabaseBytes: 200 * 1024}, fill: 1, text: strings.Repeat("y", 40*1024),
			refuse: func(q *Queue) error {
				_, _, err := q.AdmitDelivery(NewDelivery{ID: "over", Channel: "chat", Text: strings.Repeat("y", 60*1024), Send: idem})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, tt.opts)
			for i := range tt.fill {
				mustAdmit(t, q, NewDelivery{ID: fmt.Sprintf("d%d", i), Channel: "chat", Text: tt.text, Send: idem})
			}
			before, err := q.List()
			if err != nil {
				t.Fatal(err)
			}
			err = tt.refuse(q)
			checkErr(t, err, ErrFull, fullMsg)
			if _, err := q.Get("over"); err == nil {
				t.Error("the refused delivery was stored")
			}
			after, err := q.List()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, after[:len(before)]); diff != "" || len(after) > len(before)+1 {
				t.Errorf("admitted work changed (-before +after):\n%s", diff)
			}
			for i := range tt.fill {
				if d := mustGet(t, q, fmt.Sprintf("d%d", i)); d.Text == nil || *d.Text != tt.text {
					t.Errorf("d%d lost its text", i)
				}
			}
			// Finishing work makes room again.
			if tt.fill > 0 {
				if _, err := q.Cancel("d0"); err != nil {
					t.Fatal(err)
				}
				if err := q.write("test", func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, "UPDATE deliveries SET body = NULL, held = 0 WHERE id = 'd0'")
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if err := tt.refuse(q); err != nil && tt.name != "database file" {
					t.Errorf("still refused after cancelling: %v", err)
				}
			}
		})
	}
}

func batchOf(n int, text string) []Message {
	var msgs []Message
	for i := n - 1; i >= 0; i-- { // out of order: admission sorts by time
		msgs = append(msgs, Message{ID: fmt.Sprintf("m-%d", i), Sender: "dana", Conversation: "t",
			Time: epoch.Add(time.Duration(i) * time.Second), Text: text, Cursor: fmt.Sprintf("c%d", i)})
	}
	return msgs
}

func jobsFor(m Message) []NewJob {
	j := newJob("job-"+m.ID, idem)
	j.Input = nil
	return []NewJob{j}
}

// TestBatchAdmission: a read batch that does not fit admits its longest time-ordered
// prefix and moves the input's progress to the last admitted message.
func TestBatchAdmission(t *testing.T) {
	done := Progress{Position: epoch.Add(time.Hour), Cursor: "end"}
	tests := []struct {
		name     string
		obl      int
		batch    []Message
		err      string
		admitted int
		progress Progress
	}{
		{name: "all fit", obl: 100, batch: batchOf(5, "hi"), admitted: 5, progress: done},
		{name: "prefix fits", obl: 6, batch: batchOf(5, "hi"), admitted: 3,
			err:      "assistant queue is full: admitted 3 of 5 messages; finish, retry or cancel unfinished work, and the next poll reads the rest",
			progress: Progress{Position: epoch.Add(2 * time.Second), Cursor: "c2"}},
		{name: "nothing fits", obl: 1, batch: batchOf(5, "hi"), admitted: 0,
			err: "assistant queue is full: admitted 0 of 5 messages; finish, retry or cancel unfinished work, and the next poll reads the rest"},
		{name: "one stream message", obl: 1, batch: batchOf(1, "hi"), admitted: 0, err: fullMsg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{MaxObligations: tt.obl})
			res, err := q.AdmitMessages(Batch{Channel: "chat", Input: "helper/chat", Messages: tt.batch, Done: done, Jobs: jobsFor})
			if tt.err != "" {
				checkErr(t, err, ErrFull, tt.err)
			} else if err != nil {
				t.Fatal(err)
			}
			if res.Admitted != tt.admitted || res.New != tt.admitted || len(res.Jobs) != tt.admitted {
				t.Errorf("admission = %+v", res)
			}
			p, err := q.InputProgress("helper/chat")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.progress, p); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
			items, _ := q.List()
			if len(items) != tt.admitted {
				t.Errorf("%d jobs stored, want %d", len(items), tt.admitted)
			}
			for i, it := range items {
				if want := fmt.Sprintf("job-m-%d", i); it.ID != want {
					t.Errorf("job %d is %s, want %s (oldest first)", i, it.ID, want)
				}
			}
		})
	}
}

// TestMessageIdentity: a known message ID (replay or provider edit) is kept as first
// admitted and starts nothing; an echo of the channel's own send is dropped; own messages
// join the conversation without a job.
func TestMessageIdentity(t *testing.T) {
	q, _, _ := openTest(t, Options{})
	first := Message{ID: "m-1", Sender: "dana", Conversation: "t", Time: epoch, Text: "first"}
	res, err := q.AdmitMessages(Batch{Channel: "chat", Input: "in", Messages: []Message{first}, Jobs: jobsFor})
	if err != nil || res.New != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Conversation: "t", Text: "reply", Send: idem})
	mustBegin(t, q, "d", idem).Finish(Sent(Receipt{ID: "m-ours", Conversation: "t"}))

	edit := first
	edit.Text = "edited"
	batch := []Message{edit,
		{ID: "m-ours", Sender: "bot", Conversation: "t", Time: epoch.Add(time.Second), Text: "reply"},
		{ID: "m-own", Sender: "bot", Conversation: "t", Time: epoch.Add(2 * time.Second), Text: "posted", Own: true},
		{ID: "m-2", Sender: "dana", Conversation: "t", Time: epoch.Add(3 * time.Second), Text: "second"},
	}
	res, err = q.AdmitMessages(Batch{Channel: "chat", Input: "in", Messages: batch, Jobs: jobsFor})
	if err != nil {
		t.Fatal(err)
	}
	want := Admission{Admitted: 4, New: 2, Echoes: 1, Jobs: []string{"job-m-2"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var text string
	q.read(func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT text FROM messages WHERE id = 'm-1'").Scan(&text)
	})
	if text != "first" {
		t.Errorf("an edit replaced the admitted text: %q", text)
	}
	// Another channel's identical IDs are other messages.
	res, err = q.AdmitMessages(Batch{Channel: "mail", Input: "in2", Messages: []Message{first}, Jobs: func(m Message) []NewJob {
		j := jobsFor(m)[0]
		j.ID = "mail-" + j.ID
		return []NewJob{j}
	}})
	if err != nil || res.New != 1 {
		t.Errorf("%+v %v", res, err)
	}
}
