package channel

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// receiptSet is the receipts of recent sends, keyed by channel then message ID.
type receiptSet struct {
	ids  map[string]map[string]bool
	err  error
	asks int
}

func (r *receiptSet) IsEcho(channel, id string) (bool, error) {
	r.asks++
	if r.err != nil {
		return false, r.err
	}
	return r.ids[channel][id], nil
}

func TestDropEchoes(t *testing.T) {
	msg := func(id string) Message { return Message{ID: id, Sender: "s", Conversation: "c", Time: t0} }
	receipts := &receiptSet{ids: map[string]map[string]bool{
		"chat": {"sent-1": true, "sent-2": true},
		"mail": {"m-1": true},
	}}
	tests := []struct {
		name    string
		channel string
		in      []Message
		want    []Message
		dropped int
	}{
		{"own sends dropped", "chat", []Message{msg("m-1"), msg("sent-1"), msg("m-2"), msg("sent-2")}, []Message{msg("m-1"), msg("m-2")}, 2},
		{"another channel's receipts do not count", "mail", []Message{msg("sent-1"), msg("m-1")}, []Message{msg("sent-1")}, 1},
		{"nothing to drop", "chat", []Message{msg("a")}, []Message{msg("a")}, 0},
		{"empty", "chat", nil, []Message{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped, err := DropEchoes(receipts, tc.channel, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || dropped != tc.dropped {
				t.Errorf("dropped %d (want %d); kept (-want +got):\n%s", dropped, tc.dropped, diff)
			}
		})
	}
}

func TestDropEchoesLookupFails(t *testing.T) {
	boom := errors.New("disk I/O error")
	_, _, err := DropEchoes(&receiptSet{err: boom}, "chat", []Message{{ID: "a"}})
	if !errors.Is(err, boom) || err.Error() != "channel chat: cannot look up the receipts of its sends: disk I/O error" {
		t.Fatalf("error = %v", err)
	}
}
