package channel

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// Outgoing is one message to send: the object a send command reads on stdin.
type Outgoing struct {
	// ID is the delivery ID. The caller saves it before the command runs and passes the
	// same one on every retry, so an idempotent adapter can recognise a repeat.
	ID string
	// Text is the message to post. bf never shortens it: a provider limit is the adapter's
	// to report, and the saved answer stays whole.
	Text string
	// Conversation is where it goes; empty asks for the endpoint's default destination.
	Conversation string
	// ReplyTo is the ID of the message it answers, if any.
	ReplyTo string
}

// Check validates o before anything is saved or run: the delivery ID and the routing
// fields follow the envelope's rules, and the text must be valid UTF-8 to reach the
// adapter unchanged. Text has no length limit of its own.
func (o Outgoing) Check() error {
	for _, f := range []struct {
		key, v   string
		required bool
	}{{"id", o.ID, true}, {"conversation", o.Conversation, false}, {"reply_to", o.ReplyTo, false}} {
		if !utf8.ValidString(f.v) {
			return &fieldError{Field: f.key, Reason: reasonUnicode}
		}
		if reason := checkRouting(f.v, f.required); reason != "" {
			return &fieldError{Field: f.key, Reason: reason}
		}
	}
	if !utf8.ValidString(o.Text) {
		return &fieldError{Field: "text", Reason: reasonUnicode}
	}
	return nil
}

// JSON is what the send command reads: one compact object and a newline, with
// conversation and reply_to left out when empty.
func (o Outgoing) JSON() []byte {
	var b object
	b.str("id", o.ID)
	b.str("text", o.Text)
	if o.Conversation != "" {
		b.str("conversation", o.Conversation)
	}
	if o.ReplyTo != "" {
		b.str("reply_to", o.ReplyTo)
	}
	return append(b.bytes(), '\n')
}

// Receipt is what a send command prints once the provider accepted the message.
type Receipt struct {
	// ID is the provider's ID of the sent message; a read or stream that later returns
	// a message with this ID is an echo of the brain's own send.
	ID string `json:"id"`
	// Conversation is where the message went: the requested one, or the endpoint's
	// default destination when none was requested.
	Conversation string `json:"conversation"`
}

const (
	reasonReceiptKey  = "unknown key; a receipt holds only id and conversation"
	reasonReceiptConv = "must be the requested conversation"
)

// parseReceipt reads a send command's output: one strict JSON object with a nonempty id and
// a conversation, which must equal requested when one was requested.
func parseReceipt(data []byte, requested string) (Receipt, error) {
	d, err := newDecoder(data)
	if err != nil {
		return Receipt{}, err
	}
	if d.peek() != '{' {
		return Receipt{}, &fieldError{Reason: "expected a JSON object"}
	}
	var r Receipt
	var hasID, hasConv bool
	err = d.object("", func(key string) error {
		var dst *string
		switch key {
		case "id":
			dst, hasID = &r.ID, true
		case "conversation":
			dst, hasConv = &r.Conversation, true
		default:
			return &fieldError{Field: FieldName(key), Reason: reasonReceiptKey}
		}
		if d.peek() != '"' {
			return &fieldError{Field: key, Reason: reasonString}
		}
		s, err := d.str(key)
		*dst = s
		return err
	})
	if err != nil {
		return Receipt{}, err
	}
	if err := d.end(); err != nil {
		return Receipt{}, err
	}
	switch {
	case !hasID:
		return Receipt{}, &fieldError{Field: "id", Reason: reasonRequired}
	case !hasConv:
		return Receipt{}, &fieldError{Field: "conversation", Reason: reasonRequired}
	}
	if reason := checkRouting(r.ID, true); reason != "" {
		return Receipt{}, &fieldError{Field: "id", Reason: reason}
	}
	if reason := checkRouting(r.Conversation, false); reason != "" {
		return Receipt{}, &fieldError{Field: "conversation", Reason: reason}
	}
	if requested != "" && r.Conversation != requested {
		return Receipt{}, &fieldError{Field: "conversation", Reason: reasonReceiptConv}
	}
	return r, nil
}

// Class says what a failed send may have done.
type Class int

const (
	// NotSent: the command never started (not on PATH, not executable, an unusable
	// command line, or the attempt was stopped before it started). Nothing was sent, so
	// sending again is always safe.
	NotSent Class = iota + 1
	// maybeSent: the command ran and failed: a nonzero exit, a timeout, too much output or
	// an invalid receipt. The provider may have posted the message.
	maybeSent
	// Interrupted: the caller's context (Ctrl-C, SIGTERM, watch stopping) ended a running
	// command. The provider may have posted the message.
	Interrupted
	// Rejected: the message or the channel cannot be sent at all (an invalid delivery
	// ID, no send capability). Nothing ran; retrying the same thing fails the same way.
	Rejected
)

func (c Class) String() string {
	switch c {
	case NotSent:
		return "not sent"
	case maybeSent:
		return "maybe sent"
	case Interrupted:
		return "interrupted"
	case Rejected:
		return "rejected"
	}
	return "unknown"
}

// SendError is a failed send. Its message is bf's own sentence (an exit status, a
// timeout, the receipt field at fault) and names the log; it never quotes what the
// adapter or the provider printed.
type SendError struct {
	Channel string
	Class   Class
	// Log is the brain-relative log of the send command.
	Log string
	// Err is the cause: a *proc.Error, a *fieldError for a receipt or an outgoing
	// message, or errNoCapability.
	Err error
}

func (e *SendError) Error() string {
	var fe *fieldError
	switch {
	case e.Class == Rejected && errors.As(e.Err, &fe):
		return fmt.Sprintf("channel %s: invalid message to send: %v", e.Channel, e.Err)
	case e.Class == Rejected:
		return e.Err.Error() // already names the channel
	case errors.As(e.Err, &fe):
		return fmt.Sprintf("channel %s: send must print one JSON receipt: %v; see %s", e.Channel, e.Err, e.Log)
	}
	return fmt.Sprintf("channel %s: %v", e.Channel, e.Err)
}

func (e *SendError) Unwrap() error { return e.Err }

// Resend reports whether sending the same delivery again is safe: when nothing was sent,
// or when the channel is idempotent, so a repeat creates no second message. Otherwise the
// delivery is uncertain until someone inspects it.
func (e *SendError) Resend(idempotent bool) bool {
	switch e.Class {
	case NotSent:
		return true
	case maybeSent, Interrupted:
		return idempotent
	}
	return false
}

// Send runs the channel's send command once with o on stdin and returns the validated
// receipt. The caller must have saved o.ID as the delivery's identity before calling, and
// records the outcome afterwards; a failure is always a *SendError whose Class says
// whether the message may have gone out.
func (e *Endpoint) Send(ctx context.Context, o Outgoing) (Receipt, error) {
	return e.SendStarted(ctx, o, nil)
}

// SendStarted is Send that calls started with the send command's process group as soon
// as it runs (see proc.Spec.Started), so the attempt's record can tell a command that
// outlived a killed bf from one that ended.
func (e *Endpoint) SendStarted(ctx context.Context, o Outgoing, started func(pgid int)) (Receipt, error) {
	log := log(e.Name, config.OpSend)
	c, err := e.capability(config.OpSend)
	if err != nil {
		return Receipt{}, &SendError{Channel: e.Name, Class: Rejected, Log: log, Err: err}
	}
	if err := o.Check(); err != nil {
		return Receipt{}, &SendError{Channel: e.Name, Class: Rejected, Log: log, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return Receipt{}, &SendError{Channel: e.Name, Class: NotSent, Log: log,
			Err: &proc.Error{Kind: proc.Canceled, Program: program(e.Name, config.OpSend), Err: err}}
	}
	spec := e.spec(config.OpSend, c, proc.Vars{})
	spec.Stdin = o.JSON()
	spec.Started = started
	res, err := proc.Run(ctx, spec)
	if err != nil {
		return Receipt{}, &SendError{Channel: e.Name, Class: classify(err), Log: log, Err: err}
	}
	r, err := parseReceipt(res.Stdout, o.Conversation)
	if err != nil {
		return Receipt{}, &SendError{Channel: e.Name, Class: maybeSent, Log: log, Err: err}
	}
	return r, nil
}

// classify tells from how a run failed whether the command may have sent anything.
func classify(err error) Class {
	var pe *proc.Error
	if !errors.As(err, &pe) {
		return maybeSent
	}
	switch pe.Kind {
	case proc.Start, proc.NotOnPath, proc.Args:
		return NotSent
	case proc.Canceled:
		// A context that ended before the program started leaves no run behind: proc
		// returns before writing any log entry. Any doubt counts as started.
		if pe.Log == "" && pe.LogErr == nil && pe.After == 0 {
			return NotSent
		}
		return Interrupted
	}
	return maybeSent
}
