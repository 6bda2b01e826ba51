package queue

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSummary(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	s, err := q.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if s.Unresolved != 0 || s.Oldest != nil || len(s.Attention) != 0 {
		t.Errorf("empty queue summary = %+v", s)
	}
	mustAdmit(t, q, NewDelivery{ID: "done", Channel: "chat", Text: "x", Send: idem})
	mustBegin(t, q, "done", idem).Finish(Sent(Receipt{ID: "m"}))
	c.Add(time.Second)
	mustAdmit(t, q, NewDelivery{ID: "unsure", Channel: "desktop", Text: "x", Send: nonIdem})
	mustBegin(t, q, "unsure", nonIdem).Finish(SendFailed("send exited with status 1"))
	c.Add(time.Second)
	answered(t, q, "job", idem)
	mustBegin(t, q, "job.1", idem)
	c.Add(time.Second)
	q.AdmitJob(newJob("later", idem))

	s, err = q.Summary()
	if err != nil {
		t.Fatal(err)
	}
	var attention, inFlight []string
	for _, it := range s.Attention {
		attention = append(attention, it.ID)
	}
	for _, it := range s.InFlight {
		inFlight = append(inFlight, it.ID)
	}
	got := struct {
		Jobs, Deliveries    map[State]int
		Unresolved          int
		Oldest              string
		Attention, InFlight []string
		Obligations         int
	}{s.Jobs, s.Deliveries, s.Unresolved, s.Oldest.ID, attention, inFlight, s.Obligations}
	want := struct {
		Jobs, Deliveries    map[State]int
		Unresolved          int
		Oldest              string
		Attention, InFlight []string
		Obligations         int
	}{
		Jobs:       map[State]int{Answered: 1, Pending: 1},
		Deliveries: map[State]int{Delivered: 1, Uncertain: 1, Sending: 1},
		Unresolved: 4, Oldest: "unsure", Attention: []string{"unsure"}, InFlight: []string{"job.1"},
		// unsure, the answered job and its delivery, and the pending job with its route.
		Obligations: 5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
