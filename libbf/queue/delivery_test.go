package queue

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAttemptOutcomes covers how every kind of attempt end moves a delivery, for
// standalone sends and assistant deliveries on idempotent and default channels.
func TestAttemptOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		assistant bool
		send      Send
		outcome   Outcome
		want      view
	}{
		{"standalone delivered", false, nonIdem, Sent(Receipt{ID: "m-9", Conversation: "t"}),
			view{State: Delivered, Attempts: 1}},
		{"standalone idempotent failed", false, idem, SendFailed("send exited with status 1; see logs/channel.chat.send.log"),
			view{State: Failed, Attempts: 1, Error: "send exited with status 1; see logs/channel.chat.send.log; retry it with bf queue ID --retry"}},
		{"standalone default failed", false, nonIdem, SendFailed("send exited with status 1"),
			view{State: Uncertain, Attempts: 1, Error: "send exited with status 1; it may have been sent; inspect before retrying"}},
		{"standalone default never started", false, nonIdem, NotStarted("send command desktop not found on PATH"),
			view{State: Failed, Attempts: 1, Error: "send command desktop not found on PATH; retry it with bf queue ID --retry"}},
		{"standalone idempotent interrupted", false, idem, Interrupted(),
			view{State: Failed, Attempts: 1, Error: "interrupted send; retry it with bf queue ID --retry"}},
		{"standalone default interrupted", false, nonIdem, Interrupted(),
			view{State: Uncertain, Attempts: 1, Error: "interrupted send; inspect before retrying"}},
		{"assistant delivered", true, idem, Sent(Receipt{ID: "m-9", Conversation: "t"}),
			view{State: Delivered, Attempts: 1}},
		{"assistant idempotent failed retries", true, idem, SendFailed("send timed out after 300 seconds"),
			view{State: Pending, Attempts: 1, Error: "send timed out after 300 seconds", NextAttempt: epoch.Add(2 * time.Second)}},
		{"assistant idempotent interrupted retries", true, idem, Interrupted(),
			view{State: Pending, Attempts: 1, Error: "interrupted send", NextAttempt: epoch.Add(2 * time.Second)}},
		{"assistant default failed", true, nonIdem, SendFailed("send exited with status 2"),
			view{State: Uncertain, Attempts: 1, Error: "send exited with status 2; it may have been sent; inspect before retrying"}},
		{"assistant default interrupted", true, nonIdem, Interrupted(),
			view{State: Uncertain, Attempts: 1, Error: "interrupted send; inspect before retrying"}},
		{"assistant default never started retries", true, nonIdem, NotStarted("send command chat not found on PATH"),
			view{State: Pending, Attempts: 1, Error: "send command chat not found on PATH", NextAttempt: epoch.Add(2 * time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{})
			id := "ID"
			if tt.assistant {
				id = answered(t, q, "j", tt.send)
			} else {
				mustAdmit(t, q, NewDelivery{ID: id, Channel: "chat", Text: "The review is ready.", Send: tt.send})
			}
			a := mustBegin(t, q, id, tt.send)
			if got := mustItem(t, q, id).State; got != Sending {
				t.Fatalf("state while attempting = %s", got)
			}
			it, err := a.Finish(tt.outcome)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewOf(it)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(viewOf(it), viewOf(mustItem(t, q, id))); diff != "" {
				t.Errorf("stored state differs from returned (-returned +stored):\n%s", diff)
			}
			h := mustGet(t, q, id).History
			if len(h) != 1 || h[0].Outcome != tt.outcome.kind || h[0].Error != tt.outcome.reason || h[0].Ended.IsZero() {
				t.Errorf("history = %+v", h)
			}
		})
	}
}

// TestRetryPolicy walks an assistant delivery on an idempotent channel through its 20
// automatic attempts: waits of 2, 4, 8… seconds capped at 300, then failed.
func TestRetryPolicy(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	id := answered(t, q, "j", idem)
	var waits []time.Duration
	var last Item
	for i := range 20 {
		a := mustBegin(t, q, id, idem)
		it, err := a.Finish(SendFailed("send exited with status 1"))
		if err != nil {
			t.Fatal(err)
		}
		last = it
		if it.State == Pending {
			waits = append(waits, it.NextAttempt.Sub(c.Now()))
			if _, err := q.BeginAttempt(id, &idem); !errors.Is(err, errNotDue) {
				t.Fatalf("attempt %d: early attempt error = %v, want ErrNotDue", i+2, err)
			}
			c.Add(it.NextAttempt.Sub(c.Now()))
		}
	}
	s := time.Second
	want := []time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 128 * s, 256 * s, 300 * s, 300 * s, 300 * s,
		300 * s, 300 * s, 300 * s, 300 * s, 300 * s, 300 * s, 300 * s, 300 * s}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	wantLast := view{State: Failed, Attempts: 20,
		Error: "send exited with status 1; stopped retrying after 20 attempts; retry or cancel it with bf queue"}
	if diff := cmp.Diff(wantLast, viewOf(last)); diff != "" {
		t.Errorf("after 20 attempts (-want +got):\n%s", diff)
	}
	// An explicit retry starts the attempts over: the next failure waits the first
	// backoff again. The count shown is every attempt made, as the history numbers them.
	it, err := q.Retry(id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(view{State: Pending, Attempts: 20}, viewOf(it)); diff != "" {
		t.Errorf("after retry (-want +got):\n%s", diff)
	}
	a := mustBegin(t, q, id, idem)
	it, _ = a.Finish(SendFailed("send exited with status 1"))
	if it.Attempts != 21 || it.State != Pending || !it.NextAttempt.Equal(c.Now().Add(2*time.Second)) {
		t.Errorf("first attempt after retry: %+v, want pending 2 s later", viewOf(it))
	}
	if got := len(mustGet(t, q, id).History); got != 21 {
		t.Errorf("history keeps %d attempts, want 21", got)
	}
}

// TestRetryAndCancel covers bf queue ID --retry and --cancel from every delivery state.
func TestRetryAndCancel(t *testing.T) {
	type setup func(t *testing.T, q *Queue) string
	standalone := func(send Send, o *Outcome) setup {
		return func(t *testing.T, q *Queue) string {
			mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "hello", Send: send})
			if o != nil {
				if _, err := mustBegin(t, q, "d", send).Finish(*o); err != nil {
					t.Fatal(err)
				}
			}
			return "d"
		}
	}
	failed, sent, unsure := SendFailed("send exited with status 1"), Sent(Receipt{ID: "m-1"}), SendFailed("send exited with status 1")
	sending := func(t *testing.T, q *Queue) string {
		mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "hello", Send: idem})
		mustBegin(t, q, "d", idem)
		return "d"
	}
	killed := func(send Send) setup {
		return func(t *testing.T, q *Queue) string {
			mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "hello", Send: send})
			mustBegin(t, q, "d", send)
			orphan(t, q, "d")
			return "d"
		}
	}
	cancelled := func(t *testing.T, q *Queue) string {
		standalone(idem, nil)(t, q)
		if _, err := q.Cancel("d"); err != nil {
			t.Fatal(err)
		}
		return "d"
	}
	tests := []struct {
		name       string
		setup      setup
		retry      view
		retryErr   string
		cancel     view
		cancelErr  string
		retryKind  error
		cancelKind error
	}{
		{name: "pending", setup: standalone(idem, nil), retry: view{State: Pending}, cancel: view{State: Cancelled}},
		{name: "failed", setup: standalone(idem, &failed), retry: view{State: Pending, Attempts: 1},
			cancel: view{State: Cancelled, Attempts: 1, Error: "send exited with status 1; retry it with bf queue d --retry"}},
		{name: "uncertain", setup: standalone(nonIdem, &unsure), retry: view{State: Pending, Attempts: 1},
			cancel: view{State: Cancelled, Attempts: 1, Error: "send exited with status 1; it may have been sent; inspect before retrying"}},
		{name: "delivered", setup: standalone(idem, &sent),
			retryErr: "delivery d is already delivered; there is nothing to retry", retryKind: ErrState,
			cancelErr: "delivery d is already delivered; there is nothing to cancel", cancelKind: ErrState},
		{name: "cancelled", setup: cancelled,
			retryErr: "delivery d was cancelled; send or run it again under a new ID", retryKind: ErrState,
			cancel: view{State: Cancelled}},
		{name: "being sent", setup: sending,
			retryErr: "delivery is still being sent; retry or cancel it once its attempt ends", retryKind: ErrInFlight,
			cancelErr: "delivery is still being sent; retry or cancel it once its attempt ends", cancelKind: ErrInFlight},
		{name: "killed while sending, idempotent", setup: killed(idem), retry: view{State: Pending, Attempts: 1},
			cancel: view{State: Cancelled, Attempts: 1, Error: "interrupted send; retry it with bf queue d --retry"}},
		{name: "killed while sending, default", setup: killed(nonIdem), retry: view{State: Pending, Attempts: 1},
			cancel: view{State: Cancelled, Attempts: 1, Error: "interrupted send; inspect before retrying"}},
	}
	for _, tt := range tests {
		for _, op := range []string{"retry", "cancel"} {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				q, _, _ := openTest(t, Options{})
				id := tt.setup(t, q)
				before := mustItem(t, q, id)
				var it Item
				var err error
				want, wantErr, kind := tt.retry, tt.retryErr, tt.retryKind
				if op == "retry" {
					it, err = q.Retry(id)
				} else {
					it, err = q.Cancel(id)
					want, wantErr, kind = tt.cancel, tt.cancelErr, tt.cancelKind
				}
				if wantErr != "" {
					checkErr(t, err, kind, wantErr)
					if diff := cmp.Diff(before, mustItem(t, q, id)); diff != "" {
						t.Errorf("a refused %s changed the delivery:\n%s", op, diff)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, viewOf(it)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestBeginAttemptRefusals covers the attempts BeginAttempt refuses and what each leaves.
func TestBeginAttemptRefusals(t *testing.T) {
	changed := Send{Command: []string{"chat", "send", "office"}, Idempotent: true}
	tests := []struct {
		name    string
		current *Send
		prepare func(t *testing.T, q *Queue)
		kind    error
		err     string
		after   view
	}{
		{name: "send command changed", current: &changed, kind: ErrConfigChanged,
			err:   "channel configuration changed; restore it, then retry or cancel this delivery with bf queue",
			after: view{State: Uncertain, Error: "channel configuration changed; restore it, then retry or cancel this delivery with bf queue"}},
		{name: "idempotent flag changed", current: &Send{Command: idem.Command}, kind: ErrConfigChanged,
			err:   "channel configuration changed; restore it, then retry or cancel this delivery with bf queue",
			after: view{State: Uncertain, Error: "channel configuration changed; restore it, then retry or cancel this delivery with bf queue"}},
		{name: "channel removed", current: nil, kind: ErrConfigChanged,
			err:   "channel configuration changed; restore it, then retry or cancel this delivery with bf queue",
			after: view{State: Uncertain, Error: "channel configuration changed; restore it, then retry or cancel this delivery with bf queue"}},
		{name: "being sent", current: &idem, prepare: func(t *testing.T, q *Queue) { mustBegin(t, q, "d", idem) },
			kind: ErrInFlight, err: "delivery is still being sent; retry or cancel it once its attempt ends",
			after: view{State: Sending, Attempts: 1}},
		{name: "already delivered", current: &idem, prepare: func(t *testing.T, q *Queue) {
			mustBegin(t, q, "d", idem).Finish(Sent(Receipt{ID: "m"}))
		}, kind: ErrState, err: "delivery d is already delivered; there is nothing to attempt", after: view{State: Delivered, Attempts: 1}},
		{name: "unknown", current: &idem, prepare: func(t *testing.T, q *Queue) {}, kind: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{})
			mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "hello", Send: idem})
			id := "d"
			if tt.prepare != nil {
				tt.prepare(t, q)
			}
			if tt.kind == ErrNotFound {
				id = "nope"
				tt.err = "no job or delivery nope in the assistant queue; list them with bf queue"
			}
			_, err := q.BeginAttempt(id, tt.current)
			checkErr(t, err, tt.kind, tt.err)
			if id == "d" {
				if diff := cmp.Diff(tt.after, viewOf(mustItem(t, q, "d"))); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
	t.Run("restored configuration sends after retry", func(t *testing.T) {
		q, _, _ := openTest(t, Options{})
		mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "hello", Send: idem})
		q.BeginAttempt("d", &changed)
		if _, err := q.Retry("d"); err != nil {
			t.Fatal(err)
		}
		it, err := mustBegin(t, q, "d", idem).Finish(Sent(Receipt{ID: "m"}))
		if err != nil || it.State != Delivered {
			t.Fatalf("%+v %v", it, err)
		}
	})
}

// TestAdmitDeliveryIdentity: the same ID and payload never sends a second message; the
// same ID with another payload fails.
func TestAdmitDeliveryIdentity(t *testing.T) {
	base := NewDelivery{ID: "d", Channel: "chat", Conversation: "t", ReplyTo: "m-1", Text: "hello", Send: idem}
	tests := []struct {
		name     string
		again    func(NewDelivery) NewDelivery
		admitted bool
		err      string
	}{
		{"identical", func(d NewDelivery) NewDelivery { return d }, false, ""},
		{"identical under a changed channel configuration", func(d NewDelivery) NewDelivery { d.Send = nonIdem; return d }, false, ""},
		{"other text", func(d NewDelivery) NewDelivery { d.Text = "bye"; return d }, false,
			"delivery d was already saved with other content; send new content with a new delivery ID"},
		{"other conversation", func(d NewDelivery) NewDelivery { d.Conversation = "t2"; return d }, false,
			"delivery d was already saved with other content; send new content with a new delivery ID"},
		{"other channel", func(d NewDelivery) NewDelivery { d.Channel = "mail"; return d }, false,
			"delivery d was already saved with other content; send new content with a new delivery ID"},
		{"other reply", func(d NewDelivery) NewDelivery { d.ReplyTo = ""; return d }, false,
			"delivery d was already saved with other content; send new content with a new delivery ID"},
		{"another ID", func(d NewDelivery) NewDelivery { d.ID = "e"; return d }, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{})
			mustAdmit(t, q, base)
			if _, err := mustBegin(t, q, "d", idem).Finish(Sent(Receipt{ID: "m-2", Conversation: "t"})); err != nil {
				t.Fatal(err)
			}
			it, admitted, err := q.AdmitDelivery(tt.again(base))
			if tt.err != "" {
				checkErr(t, err, ErrConflict, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if admitted != tt.admitted {
				t.Errorf("admitted = %v", admitted)
			}
			wantState := Delivered
			if tt.admitted {
				wantState = Pending
			}
			if it.State != wantState {
				t.Errorf("state = %s, want %s", it.State, wantState)
			}
			if h := mustGet(t, q, "d").History; len(h) != 1 {
				t.Errorf("attempts of d = %d, want 1", len(h))
			}
		})
	}
}

func TestAdmitDeliveryValidation(t *testing.T) {
	tests := []struct {
		name string
		d    NewDelivery
		err  string
	}{
		{"no channel", NewDelivery{ID: "d", Text: "x", Send: idem}, "channel: must not be empty; give a value"},
		{"control character in ID", NewDelivery{ID: "d\n1", Channel: "chat", Send: idem}, "delivery ID: holds a control or format character; remove it"},
		{"format character in conversation", NewDelivery{ID: "d", Channel: "chat", Conversation: "t\u200b", Send: idem},
			"conversation: holds a control or format character; remove it"},
		{"long ID", NewDelivery{ID: strings.Repeat("é", 4097), Channel: "chat", Send: idem}, "delivery ID: holds more than 4096 characters; give a shorter value"},
		{"no send command", NewDelivery{ID: "d", Channel: "chat"}, "channel chat: has no send command; declare send before sending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := openTest(t, Options{})
			_, _, err := q.AdmitDelivery(tt.d)
			checkErr(t, err, errInvalid, tt.err)
			if items, _ := q.List(); len(items) != 0 {
				t.Errorf("stored %d items", len(items))
			}
		})
	}
	t.Run("generated ID", func(t *testing.T) {
		q, _, _ := openTest(t, Options{})
		it := mustAdmit(t, q, NewDelivery{Channel: "chat", Text: "x", Send: idem})
		if !strings.HasPrefix(it.ID, "d-") || len(it.ID) != 22 {
			t.Errorf("generated ID %q", it.ID)
		}
	})
}

// TestDueHoldsConversation: an assistant's later delivery waits for an earlier pending,
// sending or uncertain one of its conversation; a failed one no longer holds it.
func TestDueHoldsConversation(t *testing.T) {
	tests := []struct {
		name  string
		first func(t *testing.T, q *Queue, id string)
		want  []string
	}{
		{"earlier pending", func(t *testing.T, q *Queue, id string) {}, []string{"a.1"}},
		{"earlier sending", func(t *testing.T, q *Queue, id string) { mustBegin(t, q, id, nonIdem) }, []string{}},
		{"earlier uncertain", func(t *testing.T, q *Queue, id string) {
			mustBegin(t, q, id, nonIdem).Finish(SendFailed("send exited with status 1"))
		}, []string{}},
		{"earlier failed", func(t *testing.T, q *Queue, id string) {
			q.opts.MaxAttempts = 1
			mustBegin(t, q, id, nonIdem).Finish(NotStarted("send command not found"))
		}, []string{"b.1"}},
		{"earlier delivered", func(t *testing.T, q *Queue, id string) {
			mustBegin(t, q, id, nonIdem).Finish(Sent(Receipt{ID: "m"}))
		}, []string{"b.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, c, _ := openTest(t, Options{})
			for _, id := range []string{"a", "b"} {
				j := newJob(id, nonIdem)
				j.Routes[0].Conversation = "shared"
				if _, _, err := q.AdmitJob(j); err != nil {
					t.Fatal(err)
				}
				r, err := q.StartJob(id, configFor(nonIdem))
				if err != nil {
					t.Fatal(err)
				}
				r.Answer([]byte("answer " + id))
				c.Add(time.Second)
			}
			mustAdmit(t, q, NewDelivery{ID: "solo", Channel: "chat", Conversation: "shared", Text: "x", Send: nonIdem})
			tt.first(t, q, "a.1")
			got, err := q.Due()
			if err != nil {
				t.Fatal(err)
			}
			want := append(tt.want, "solo")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("due (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecover(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	mustAdmit(t, q, NewDelivery{ID: "live", Channel: "chat", Text: "x", Send: idem})
	mustAdmit(t, q, NewDelivery{ID: "dead-idem", Channel: "chat", Text: "x", Send: idem})
	mustAdmit(t, q, NewDelivery{ID: "dead-plain", Channel: "desktop", Text: "x", Send: nonIdem})
	del := answered(t, q, "job", idem)
	if _, _, err := q.AdmitJob(newJob("run", idem)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.StartJob("run", configFor(idem)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"live", "dead-idem", "dead-plain", del} {
		mustBegin(t, q, id, map[bool]Send{true: nonIdem, false: idem}[id == "dead-plain"])
	}
	for _, id := range []string{"dead-idem", "dead-plain", del, "run"} {
		orphan(t, q, id)
	}
	c.Add(time.Minute)
	n, err := q.Recover()
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("recovered %d attempts, want 4", n)
	}
	want := map[string]view{
		"live":       {State: Sending, Attempts: 1},
		"dead-idem":  {State: Failed, Attempts: 1, Error: "interrupted send; retry it with bf queue dead-idem --retry"},
		"dead-plain": {State: Uncertain, Attempts: 1, Error: "interrupted send; inspect before retrying"},
		del:          {State: Pending, Attempts: 1, Error: "interrupted send", NextAttempt: epoch.Add(time.Minute + 2*time.Second)},
		"run":        {State: Uncertain, Attempts: 1, Error: "interrupted harness attempt; inspect before retrying"},
		"job":        {State: Answered, Attempts: 1},
	}
	got := map[string]view{}
	items, _ := q.List()
	for _, it := range items {
		got[it.ID] = viewOf(it)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n, _ := q.Recover(); n != 0 {
		t.Errorf("second recovery recorded %d attempts", n)
	}
}

// TestCancelAll: one call cancels every unresolved item named, in one transaction, and
// skips work still being attempted or already resolved.
func TestCancelAll(t *testing.T) {
	q, _, _ := openTest(t, Options{})
	for _, id := range []string{"f1", "f2", "f3", "live", "done"} {
		mustAdmit(t, q, NewDelivery{ID: id, Channel: "chat", Text: id, Send: idem})
	}
	for _, id := range []string{"f1", "f2", "f3"} {
		mustBegin(t, q, id, idem).Finish(SendFailed("send exited with status 1"))
	}
	mustBegin(t, q, "done", idem).Finish(Sent(Receipt{ID: "m"}))
	mustBegin(t, q, "live", idem) // still being sent by this process
	got, err := q.CancelAll([]string{"f1", "f2", "f3", "live", "done"})
	if err != nil {
		t.Fatal(err)
	}
	want := CancelReport{Cancelled: []string{"f1", "f2", "f3"}, Skipped: []string{"live", "done"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CancelAll (-want +got):\n%s", diff)
	}
	for id, state := range map[string]State{"f1": Cancelled, "f3": Cancelled, "live": Sending, "done": Delivered} {
		if s := mustItem(t, q, id).State; s != state {
			t.Errorf("%s is %s, want %s", id, s, state)
		}
	}
	if _, err := q.CancelAll([]string{"f1", "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("CancelAll with an unknown ID: %v, want ErrNotFound", err)
	}
}
