package channel

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Limits of a message envelope.
const (
	// maxFieldChars bounds IDs and routing fields: id, sender, conversation, reply_to and
	// cursor.
	maxFieldChars = 4096
	// maxTextChars bounds a message's text.
	maxTextChars = 32768
)

// Message is one admitted message envelope, as a read or a stream returns it: the queue's
// message (queue.Message documents its fields), with the checks and the canonical JSON
// of the channel protocol.
type Message queue.Message

// fieldError is an invalid document or envelope: the field's path and the reason. It
// never holds the offending value, which is untrusted provider data.
type fieldError struct {
	Field  string
	Reason string
}

// Error prints "FIELD: REASON", or REASON alone for the document as a whole.
func (e *fieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Reasons an envelope is refused.
const (
	reasonRequired   = "required"
	reasonEmpty      = "must not be empty"
	reasonString     = "expected a string"
	reasonBool       = "expected true or false"
	reasonObject     = "expected a JSON object"
	reasonFieldLong  = "holds more than 4096 characters"
	reasonTextLong   = "holds more than 32768 characters"
	reasonControl    = "holds a control or format character"
	reasonUnknownKey = "unknown key; a message holds only id, sender, conversation, time, text, reply_to, cursor and own"
)

// envelopeKeys lists the keys of an envelope in the order fields are checked, so the first
// problem reported does not depend on the order the adapter wrote them.
var envelopeKeys = []string{"id", "sender", "conversation", "time", "text", "reply_to", "cursor", "own"}

// parseMessage reads one envelope: a strict JSON object (no duplicate keys, valid Unicode,
// nothing after it) holding the required id, sender, conversation, time and text and
// optionally reply_to, cursor and own. null stands for an absent optional field.
func parseMessage(data []byte) (Message, error) {
	d, err := newDecoder(data)
	if err != nil {
		return Message{}, err
	}
	m, err := d.message("")
	if err != nil {
		return Message{}, err
	}
	if err := d.end(); err != nil {
		return Message{}, err
	}
	return m, nil
}

// message decodes the envelope at the decoder; field is its path in errors ("" for a
// stream frame, "messages.N" in a read batch).
func (d *decoder) message(field string) (Message, error) {
	if d.peek() != '{' {
		return Message{}, &fieldError{Field: field, Reason: reasonObject}
	}
	raw := map[string]any{}
	err := d.object(field, func(key string) error {
		if !isEnvelopeKey(key) {
			return &fieldError{Field: join(field, FieldName(key)), Reason: reasonUnknownKey}
		}
		path := join(field, key)
		switch d.peek() {
		case '"':
			s, err := d.str(path)
			raw[key] = s
			return err
		case 't', 'f', 'n':
			v, ok, err := d.literal(path)
			if ok {
				raw[key] = v
			} else {
				raw[key] = nil
			}
			return err
		}
		raw[key] = struct{}{} // a number, object or array: wrong for every key
		return d.skip(path)
	})
	if err != nil {
		return Message{}, err
	}
	return fromRaw(field, raw)
}

func isEnvelopeKey(k string) bool {
	for _, e := range envelopeKeys {
		if k == e {
			return true
		}
	}
	return false
}

// fromRaw checks the decoded members in envelopeKeys order.
func fromRaw(field string, raw map[string]any) (Message, error) {
	var m Message
	text := func(key string, required bool) (string, error) {
		v, present := raw[key]
		if !present || v == nil {
			if required {
				return "", &fieldError{Field: join(field, key), Reason: reasonRequired}
			}
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", &fieldError{Field: join(field, key), Reason: reasonString}
		}
		return s, nil
	}
	var err error
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{
		{"id", &m.ID, true}, {"sender", &m.Sender, true}, {"conversation", &m.Conversation, true},
	} {
		if *f.dst, err = text(f.key, f.required); err != nil {
			return Message{}, err
		}
		if reason := checkRouting(*f.dst, true); reason != "" {
			return Message{}, &fieldError{Field: join(field, f.key), Reason: reason}
		}
	}
	when, err := text("time", true)
	if err != nil {
		return Message{}, err
	}
	if m.Time, err = timestamp.Parse(when); err != nil {
		return Message{}, &fieldError{Field: join(field, "time"), Reason: err.Error()}
	}
	if m.Text, err = text("text", true); err != nil {
		return Message{}, err
	}
	if utf8.RuneCountInString(m.Text) > maxTextChars {
		return Message{}, &fieldError{Field: join(field, "text"), Reason: reasonTextLong}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"reply_to", &m.ReplyTo}, {"cursor", &m.Cursor}} {
		if *f.dst, err = text(f.key, false); err != nil {
			return Message{}, err
		}
		if reason := checkRouting(*f.dst, false); reason != "" {
			return Message{}, &fieldError{Field: join(field, f.key), Reason: reason}
		}
	}
	if v, present := raw["own"]; present && v != nil {
		b, ok := v.(bool)
		if !ok {
			return Message{}, &fieldError{Field: join(field, "own"), Reason: reasonBool}
		}
		m.Own = b
	}
	return m, nil
}

// checkRouting returns why s cannot be an ID or routing field, or "". These values name
// threads and messages in listings and logs, so characters that hide or rearrange text are
// refused.
func checkRouting(s string, required bool) string {
	if required && s == "" {
		return reasonEmpty
	}
	if len(s) > maxFieldChars && utf8.RuneCountInString(s) > maxFieldChars {
		return reasonFieldLong
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return reasonControl
		}
	}
	return ""
}

// Check validates a Message built in code (a test double, a message to admit) with the
// rules parseMessage applies to adapter output.
func (m Message) Check() error {
	for _, f := range []struct {
		key, v   string
		required bool
	}{{"id", m.ID, true}, {"sender", m.Sender, true}, {"conversation", m.Conversation, true}} {
		if reason := checkRouting(f.v, f.required); reason != "" {
			return &fieldError{Field: f.key, Reason: reason}
		}
		if !utf8.ValidString(f.v) {
			return &fieldError{Field: f.key, Reason: reasonUnicode}
		}
	}
	if m.Time.IsZero() {
		return &fieldError{Field: "time", Reason: reasonRequired}
	}
	if !utf8.ValidString(m.Text) {
		return &fieldError{Field: "text", Reason: reasonUnicode}
	}
	if utf8.RuneCountInString(m.Text) > maxTextChars {
		return &fieldError{Field: "text", Reason: reasonTextLong}
	}
	for _, f := range []struct{ key, v string }{{"reply_to", m.ReplyTo}, {"cursor", m.Cursor}} {
		if reason := checkRouting(f.v, false); reason != "" {
			return &fieldError{Field: f.key, Reason: reason}
		}
		if !utf8.ValidString(f.v) {
			return &fieldError{Field: f.key, Reason: reasonUnicode}
		}
	}
	return nil
}

// Canonical is the envelope's one JSON form: compact, keys sorted, no HTML escaping, time
// in canonical UTC, empty optional fields and own: false left out. Two envelopes with the
// same content encode to the same bytes.
func (m Message) Canonical() []byte {
	var o object
	o.str("conversation", m.Conversation)
	if m.Cursor != "" {
		o.str("cursor", m.Cursor)
	}
	o.str("id", m.ID)
	if m.Own {
		o.boolean("own", true)
	}
	if m.ReplyTo != "" {
		o.str("reply_to", m.ReplyTo)
	}
	o.str("sender", m.Sender)
	o.str("text", m.Text)
	o.str("time", timestamp.Canonical(m.Time))
	return o.bytes()
}

// MarshalJSON encodes the canonical form, so replies that embed messages print them alike.
func (m Message) MarshalJSON() ([]byte, error) { return m.Canonical(), nil }

// FieldName is how an error names a key of a message it refuses (an adapter's or a
// caller's): as written when it looks like a field name, otherwise a neutral word, since
// a key is data and may carry anything.
func FieldName(k string) string {
	if k == "" || len(k) > 64 {
		return "(key)"
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "(key)"
		}
	}
	return k
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func index(field string, n int) string { return join(field, strconv.Itoa(n)) }
