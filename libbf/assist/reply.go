package assist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// schema is the JSON Schema of the {say, wake} object a harness with reply: {path} prints
// at that path; {{schema}} passes it to harnesses that take one (such as --json-schema).
const schema = `{"type":"object","properties":{"say":{"type":["string","null"],"description":"What to say; null or empty to stay silent."},` +
	`"wake":{"type":["object","null"],"description":"Run again later: after seconds, or at an ISO 8601 instant with offset.",` +
	`"properties":{"after":{"type":"integer","minimum":1,"maximum":31536000},"at":{"type":"string"},` +
	`"slot":{"type":"string","description":"Names this wake; a new wake of a slot replaces the pending one."}},"additionalProperties":false}},` +
	`"required":["say"],"additionalProperties":false}`

// defaultSlot is the slot of a wake that names none.
const defaultSlot = "default"

// answer is what a harness answered.
type answer struct {
	// Say is the text to deliver or record; blank means silent.
	Say string
	// Wake, when not zero, is when the assistant asked to run again, in slot Slot.
	Wake time.Time
	Slot string
}

// parseAnswer reads a harness's stdout: the whole text, or with reply the {say, wake}
// object at its JSON Pointer. Errors are bf's sentences, never the output itself.
func parseAnswer(out []byte, r *config.Reply, now time.Time) (answer, error) {
	if !utf8.Valid(out) {
		return answer{}, errors.New("the harness printed text that is not UTF-8")
	}
	if r == nil {
		return answer{Say: string(out)}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return answer{}, errors.New("the harness did not print one JSON object; reply: {path} expects one")
	}
	if dec.More() {
		return answer{}, errors.New("the harness printed more than one JSON value; reply: {path} expects one object")
	}
	if _, ok := doc.(map[string]any); !ok {
		return answer{}, errors.New("the harness did not print one JSON object; reply: {path} expects one")
	}
	obj, ok := collect.Pointer(doc, r.Path).(map[string]any)
	if !ok {
		return answer{}, fmt.Errorf("the harness's output holds no {say, wake} object at %s", r.Path)
	}
	var a answer
	for k, v := range obj {
		switch k {
		case "say":
			switch s := v.(type) {
			case nil:
			case string:
				a.Say = s
			default:
				return answer{}, errors.New("reply say: expected a string or null")
			}
		case "wake":
			if v == nil {
				continue
			}
			w, ok := v.(map[string]any)
			if !ok {
				return answer{}, errors.New("reply wake: expected an object {after} or {at}, or null")
			}
			if err := a.wake(w, now); err != nil {
				return answer{}, err
			}
		default:
			return answer{}, errors.New("reply: unexpected key; the reply object holds say and wake")
		}
	}
	if _, ok := obj["say"]; !ok {
		return answer{}, errors.New("reply say: required (null to stay silent)")
	}
	return a, nil
}

func (a *answer) wake(w map[string]any, now time.Time) error {
	a.Slot = defaultSlot
	_, hasAfter := w["after"]
	_, hasAt := w["at"]
	if hasAfter == hasAt {
		return errors.New("reply wake: expected exactly one of after or at")
	}
	for k, v := range w {
		switch k {
		case "after":
			n, ok := v.(json.Number)
			secs, err := n.Int64()
			if !ok || err != nil || secs < 1 || secs > config.MaxSeconds {
				return errors.New("reply wake.after: expected whole seconds from 1 to 31536000")
			}
			a.Wake = now.Add(time.Duration(secs) * time.Second)
		case "at":
			s, ok := v.(string)
			t, err := timestamp.Parse(s)
			if !ok || err != nil {
				return errors.New("reply wake.at: expected an ISO 8601 instant with offset")
			}
			if t.Before(now) {
				t = now
			}
			if t.After(now.Add(config.MaxSeconds * time.Second)) {
				return errors.New("reply wake.at: expected an instant within a year")
			}
			a.Wake = t
		case "slot":
			s, ok := v.(string)
			if !ok || !ref.ValidName(s) {
				return errors.New("reply wake.slot: expected a lowercase name such as default")
			}
			a.Slot = s
		default:
			return errors.New("reply wake: unexpected key; a wake holds after or at, and slot")
		}
	}
	return nil
}
