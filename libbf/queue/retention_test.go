package queue

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const day = 24 * time.Hour

// TestTombstones: identities of completed work are kept 35 days after it finished, then
// deleted; unresolved work never expires.
func TestTombstones(t *testing.T) {
	tests := []struct {
		name  string
		after time.Duration
		want  []string // IDs still held
		echo  bool
	}{
		{name: "a day later", after: day, want: []string{"cancelled", "delivered", "failed", "job", "job.1", "pending"}, echo: true},
		{name: "just before 35 days", after: 35*day - time.Millisecond, want: []string{"cancelled", "delivered", "failed", "job", "job.1", "pending"}, echo: true},
		{name: "at 35 days", after: 35 * day, want: []string{"cancelled", "delivered", "failed", "job", "job.1", "pending"}, echo: true},
		{name: "after 35 days", after: 35*day + time.Millisecond, want: []string{"failed", "pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, c, _ := openTest(t, Options{})
			for _, id := range []string{"cancelled", "delivered", "failed", "pending"} {
				mustAdmit(t, q, NewDelivery{ID: id, Channel: "chat", Text: "text of " + id, Send: idem})
			}
			q.Cancel("cancelled")
			mustBegin(t, q, "delivered", idem).Finish(Sent(Receipt{ID: "m-ours", Conversation: "t"}))
			mustBegin(t, q, "failed", idem).Finish(SendFailed("send exited with status 1"))
			mustBegin(t, q, answered(t, q, "job", idem), idem).Finish(Sent(Receipt{ID: "m-job"}))
			c.Add(tt.after)
			if err := q.Compact(); err != nil {
				t.Fatal(err)
			}
			items, _ := q.List()
			var got []string
			for _, it := range items {
				got = append(got, it.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("held (-want +got):\n%s", diff)
			}
			for _, id := range []string{"m-ours", "m-job"} {
				if echo, err := q.IsEcho("chat", id); err != nil || echo != tt.echo {
					t.Errorf("IsEcho(%s) = %v, %v; want %v", id, echo, err, tt.echo)
				}
			}
			if echo, _ := q.IsEcho("mail", "m-ours"); echo {
				t.Error("another channel's message taken for an echo")
			}
			// A manual delivery ID can be reused once its tombstone expired.
			_, admitted, err := q.AdmitDelivery(NewDelivery{ID: "delivered", Channel: "chat", Text: "new text", Send: idem})
			if tt.echo {
				checkErr(t, err, ErrConflict, "delivery delivered was already saved with other content; send new content with a new delivery ID")
			} else if err != nil || !admitted {
				t.Errorf("reusing an expired ID: admitted %v, %v", admitted, err)
			}
		})
	}
}

// TestMessageTombstones: a replayed message is recognised for 35 days, then answered again.
func TestMessageTombstones(t *testing.T) {
	tests := []struct {
		after time.Duration
		new   int
	}{{34 * day, 0}, {35*day + time.Millisecond, 1}}
	for _, tt := range tests {
		t.Run(tt.after.String(), func(t *testing.T) {
			q, c, _ := openTest(t, Options{})
			m := Message{ID: "m-1", Sender: "dana", Conversation: "t", Time: epoch, Text: "hi"}
			if _, err := q.AdmitMessages(Batch{Channel: "chat", Input: "in", Messages: []Message{m}}); err != nil {
				t.Fatal(err)
			}
			c.Add(tt.after)
			res, err := q.AdmitMessages(Batch{Channel: "chat", Input: "in", Messages: []Message{m}})
			if err != nil || res.New != tt.new {
				t.Errorf("replay admitted %d new, want %d (%v)", res.New, tt.new, err)
			}
		})
	}
}

// TestRetentionBudgets: completed bodies beyond each kind's budget are dropped, oldest
// first; unresolved bodies stay whatever their size.
func TestRetentionBudgets(t *testing.T) {
	q, c, _ := openTest(t, Options{RetentionBytes: 2500, ConversationMessages: 3})
	text := strings.Repeat("x", 1000)
	for i := range 4 {
		id := fmt.Sprintf("d%d", i)
		mustAdmit(t, q, NewDelivery{ID: id, Channel: "chat", Text: text, Send: idem})
		mustBegin(t, q, id, idem).Finish(Sent(Receipt{ID: "m" + id}))
		c.Add(time.Second)
	}
	for i := range 3 {
		mustAdmit(t, q, NewDelivery{ID: fmt.Sprintf("open%d", i), Channel: "chat", Text: text, Send: idem})
	}
	var msgs []Message
	for i := range 5 {
		msgs = append(msgs, Message{ID: fmt.Sprintf("m-%d", i), Sender: "dana", Conversation: "t", Time: epoch.Add(time.Duration(i) * time.Second), Text: "short"})
		c.Add(time.Second)
		if _, err := q.AdmitMessages(Batch{Channel: "chat", Input: "in", Messages: msgs[i : i+1]}); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for _, id := range []string{"d0", "d1", "d2", "d3", "open0", "open1", "open2"} {
		got[id] = mustGet(t, q, id).BodyExpired
	}
	want := map[string]bool{"d0": true, "d1": true, "d2": false, "d3": false, "open0": false, "open1": false, "open2": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bodies expired (-want +got):\n%s", diff)
	}
	var kept []string
	q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT id FROM messages WHERE text IS NOT NULL ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			rows.Scan(&id)
			kept = append(kept, id)
		}
		return nil
	})
	if diff := cmp.Diff([]string{"m-2", "m-3", "m-4"}, kept); diff != "" {
		t.Errorf("conversation cache (-want +got):\n%s", diff)
	}
	s, _ := q.Summary()
	// d2, d3 and the open deliveries keep 1,000-byte bodies; every row keeps its IDs.
	if s.StoredBytes < 5000 || s.StoredBytes > 5200 {
		t.Errorf("stored bytes = %d, want the five kept bodies and identities", s.StoredBytes)
	}
}
