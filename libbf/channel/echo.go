package channel

import "fmt"

// Receipts knows the receipts of a brain's recent sends. The queue implements it: IsEcho
// reports whether messageID is the receipt ID of one of channel's deliveries the queue
// still keeps (35 days by default: longer than a Pub/Sub subscription keeps redelivering,
// 31 days).
type Receipts interface {
	IsEcho(channel, messageID string) (bool, error)
}

// DropEchoes returns msgs without the brain's own sends coming back: messages of channel
// whose ID is one of its recent send receipts. It reports how many it dropped. Adapters
// should filter echoes themselves; this catches the ones they miss. An echo that arrives
// before its send returned has no receipt yet and passes.
func DropEchoes(r Receipts, channel string, msgs []Message) ([]Message, int, error) {
	kept := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		echo, err := r.IsEcho(channel, m.ID)
		if err != nil {
			return nil, 0, fmt.Errorf("channel %s: cannot look up the receipts of its sends: %w", channel, err)
		}
		if !echo {
			kept = append(kept, m)
		}
	}
	return kept, len(msgs) - len(kept), nil
}
