package messaging

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

// maxInput is the most bf channel send reads on stdin: 16 MiB.
const maxInput = 16 << 20

// ReadInput reads the message bf channel send gets on stdin, refusing more than maxInput
// bytes as invalid input.
func ReadInput(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the message on stdin: %w", err)
	}
	if len(data) > maxInput {
		return nil, &reply.InputError{Argument: "stdin", Err: errors.New("holds more than 16 MiB; send a shorter message")}
	}
	return data, nil
}

// notDeliveredError is a send or a delivery retry whose delivery did not arrive. The
// reply returned with it holds the delivery's state and error.
type notDeliveredError struct {
	ID    string
	State queue.State
	// Reason is the delivery's error: bf's own sentence, never provider output.
	Reason string
}

func (e *notDeliveredError) Error() string {
	switch {
	case e.State == queue.Cancelled:
		return fmt.Sprintf("delivery %s was cancelled; send it again under a new delivery ID", e.ID)
	case e.State == queue.Sending:
		return fmt.Sprintf("delivery %s is still being sent by another bf process; see bf queue %s once its attempt ends", e.ID, e.ID)
	case e.Reason != "":
		return fmt.Sprintf("delivery %s is %s: %s", e.ID, e.State, e.Reason)
	}
	return fmt.Sprintf("delivery %s is %s; see bf queue %s", e.ID, e.State, e.ID)
}

// inputKeys are the keys of the object bf channel send reads.
var inputKeys = map[string]bool{"id": true, "text": true, "conversation": true, "reply_to": true}

const reasonInput = "expected one JSON object holding text and optionally id, conversation and reply_to"

// parseInput reads the JSON object of bf channel send: text (a string, required) and the
// optional strings id, conversation and reply_to, null standing for an absent one. Unknown
// or repeated keys, other types and anything after the object are refused.
func parseInput(data []byte) (channel.Outgoing, error) {
	fail := func(format string, args ...any) (channel.Outgoing, error) {
		return channel.Outgoing{}, &reply.InputError{Argument: "stdin", Err: fmt.Errorf(format, args...)}
	}
	if !utf8.Valid(data) {
		return fail("must be valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fail("%s", reasonInput)
	}
	values := map[string]string{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("%s", reasonInput)
		}
		key, _ := tok.(string)
		if !inputKeys[key] {
			return fail("%s: unknown key; a message to send holds only text, id, conversation and reply_to", channel.FieldName(key))
		}
		if seen[key] {
			return fail("%s: duplicate key", key)
		}
		seen[key] = true
		tok, err = dec.Token()
		if err != nil {
			return fail("%s", reasonInput)
		}
		switch v := tok.(type) {
		case string:
			values[key] = v
		case nil:
			if key == "text" {
				return fail("text: expected a string")
			}
		default:
			return fail("%s: expected a string", key)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return fail("%s", reasonInput)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("unexpected text after the JSON object")
	}
	if _, ok := values["text"]; !ok {
		return fail("text: required")
	}
	return channel.Outgoing{ID: values["id"], Text: values["text"], Conversation: values["conversation"], ReplyTo: values["reply_to"]}, nil
}

// newDeliveryID returns a new delivery ID: "d-" and 20 random hexadecimal digits.
func newDeliveryID() string {
	var b [10]byte
	rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "d-" + hex.EncodeToString(b[:])
}

// Send is bf channel send NAME --stdin with data read from stdin.
func Send(ctx context.Context, b *brain.Brain, name string, data []byte) (*SendReply, error) {
	return Messenger{}.Send(ctx, b, name, data)
}

// Send parses data, gives the message a delivery ID when it has none, saves the delivery
// and attempts it once. A delivery that did not arrive returns its reply and a
// *notDeliveredError. Sending a saved ID again with the same content returns the saved
// delivery without sending it again (Existing); one never attempted, such as after a
// send killed before its attempt, is attempted. Other content under a saved ID fails.
func (o Messenger) Send(ctx context.Context, b *brain.Brain, name string, data []byte) (*SendReply, error) {
	out, err := parseInput(data)
	if err != nil {
		return nil, err
	}
	e, c, err := o.endpoint(b, name, config.OpSend)
	if err != nil {
		return nil, err
	}
	if out.ID == "" {
		out.ID = newDeliveryID()
	}
	if err := out.Check(); err != nil {
		return nil, &reply.InputError{Argument: "stdin", Err: err}
	}
	op, err := o.openQueue(b, create, true, true)
	if err != nil {
		return nil, err
	}
	defer op.close()
	item, admitted, err := op.q.AdmitDelivery(queue.NewDelivery{
		ID: out.ID, Channel: name, Conversation: out.Conversation, ReplyTo: out.ReplyTo, Text: out.Text, Send: *snapshot(c),
	})
	if err != nil {
		return nil, err
	}
	if !admitted && !(item.State == queue.Pending && item.Attempts == 0) {
		return o.saved(op.q, item.ID, true)
	}
	return o.attempt(ctx, op.q, e, c, item.ID, !admitted)
}

// saved returns the reply of delivery id as the queue holds it.
func (o Messenger) saved(q *queue.Queue, id string, existing bool) (*SendReply, error) {
	d, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	r := o.sendReply(d, existing)
	if !r.Delivered() {
		return r, &notDeliveredError{ID: r.ID, State: r.State, Reason: r.Error}
	}
	return r, nil
}

// attempt sends pending delivery id once through e and records the outcome. c is the
// channel's send capability now, nil when the channel or its send was removed: the
// delivery then sends nothing and becomes uncertain.
func (o Messenger) attempt(ctx context.Context, q *queue.Queue, e *channel.Endpoint, c *config.Capability, id string, existing bool) (*SendReply, error) {
	a, err := q.BeginAttempt(id, snapshot(c))
	if errors.Is(err, queue.ErrConfigChanged) || errors.Is(err, queue.ErrState) {
		return o.saved(q, id, existing)
	}
	if err != nil {
		return nil, err
	}
	d := a.Delivery()
	text := ""
	if d.Text != nil {
		text = *d.Text
	}
	r, err := e.SendStarted(ctx, channel.Outgoing{ID: d.ID, Text: text, Conversation: d.Conversation, ReplyTo: d.ReplyTo}, a.Started)
	if _, ferr := a.Finish(outcome(r, err)); ferr != nil {
		return nil, ferr
	}
	res, err := o.saved(q, id, existing)
	if cerr := ctx.Err(); cerr != nil && res != nil && !res.Delivered() {
		return res, cerr
	}
	return res, err
}

// outcome maps a send's result to the queue's record of the attempt: a command that never
// started (or was refused before starting) sent nothing; one that ran and failed may have
// sent; one stopped by Ctrl-C or SIGTERM was interrupted.
func outcome(r channel.Receipt, err error) queue.Outcome {
	if err == nil {
		return queue.Sent(queue.Receipt{ID: r.ID, Conversation: r.Conversation})
	}
	var se *channel.SendError
	if errors.As(err, &se) {
		switch se.Class {
		case channel.NotSent, channel.Rejected:
			return queue.NotStarted(err.Error())
		case channel.Interrupted:
			return queue.Interrupted()
		}
	}
	return queue.SendFailed(err.Error())
}
