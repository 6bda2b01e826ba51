// Command inbox is a channel adapter over plain files, to try channels without any account.
//
// Usage:
//
//	inbox send OUTBOX
//	inbox read INBOX START END [--allow SENDER]...
//	inbox stream INBOX [--allow SENDER]... [--poll SECONDS]
//
// INBOX is a folder holding one JSON file per incoming message; OUTBOX is a JSON Lines file
// that receives the messages the brain sends. Relative paths start at the working
// directory, which bf sets to the brain root; pass {{brain}}/inbox to be explicit.
//
// An inbox file holds one object:
//
//	{"sender": "me", "text": "What needs my attention?"}
//
// with these keys: sender and text (required), id (default: the file name without .json),
// conversation (default: "inbox"), time (an ISO 8601 instant with a timezone; default: the
// file's modification time), reply_to and own. Write a file under a name starting with "."
// and rename it when complete: names starting with "." are skipped, so a half-written
// message is never read.
//
// send reads {"id", "text", "conversation"?, "reply_to"?} on stdin, appends it to OUTBOX and
// prints the receipt {"id", "conversation"}. It is idempotent: sending a delivery ID again
// with the same content prints the saved receipt and appends nothing, and with other
// content fails, so bf.yaml may declare `idempotent: true`.
//
// read prints {"messages": [...]}, the messages whose time lies in [START, END), oldest
// first, or nothing at all: any unreadable file fails the whole batch with exit status 1.
//
// stream reads bf's resume frame on stdin, then follows INBOX: it prints each message whose
// time is at or after the frame's since and after its cursor, one per line, oldest first,
// and waits for bf's acknowledgement before the next. Each message carries its position as
// cursor, so a restarted stream resumes after the last acknowledged message and sends an
// unacknowledged one again. A message whose time is older than the stream's position is
// not sent: give new messages the current time, or leave time out.
//
// --allow admits only the named senders (repeat it for several); others are skipped and
// counted on stderr.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/examples/internal/exit"
	"github.com/bfgo/bf/examples/internal/text"
	"github.com/bfgo/bf/libbf/timestamp"
)

const (
	prog                = "inbox"
	maxInput            = 64 << 20 // a send's stdin; bf never sends more than an answer's max_bytes
	maxFile             = 1 << 20  // one inbox message file
	maxFrame            = 1 << 20  // one control frame from bf
	defaultConversation = "inbox"  // where inbox messages belong unless they say otherwise
	outboxConversation  = "outbox" // the default destination of sends
)

const usageText = `Usage:
    inbox send OUTBOX
    inbox read INBOX START END [--allow SENDER]...
    inbox stream INBOX [--allow SENDER]... [--poll SECONDS]`

var (
	envelopeKeys = []string{"id", "sender", "conversation", "time", "text", "reply_to", "own"}
	sendKeys     = []string{"id", "text", "conversation", "reply_to"}
)

// errClosed: bf stopped listening, as it does when it shuts a stream down.
var errClosed = errors.New("bf closed the stream")

type options struct {
	allow map[string]bool
	poll  time.Duration
}

func main() { os.Exit(run(os.Args[1:])) }

func run(argv []string) int {
	command, args, opts, err := parseArgs(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s\n", prog, err, usageText)
		return 2
	}
	switch command {
	case "send":
		err = send(args[0])
	case "read":
		err = read(args[0], args[1], args[2], opts)
	default:
		err = stream(args[0], opts)
	}
	var f exit.Failure
	switch {
	case err == nil:
		return 0
	case errors.As(err, &f):
		fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
	}
	return 1
}

func parseArgs(argv []string) (string, []string, options, error) {
	opts := options{allow: map[string]bool{}, poll: time.Second}
	if len(argv) == 0 {
		return "", nil, opts, exit.Usage{Msg: "expected send, read or stream"}
	}
	command, rest := argv[0], argv[1:]
	want, ok := map[string]int{"send": 1, "read": 3, "stream": 1}[command]
	if !ok {
		return "", nil, opts, exit.Usage{Msg: "expected send, read or stream"}
	}
	var args []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if (a == "--allow" || a == "--poll") && command != "send" {
			if i+1 >= len(rest) {
				return "", nil, opts, exit.Usage{Msg: a + " needs a value"}
			}
			i++
			if a == "--allow" {
				opts.allow[rest[i]] = true
				continue
			}
			secs, err := strconv.ParseFloat(strings.TrimSpace(rest[i]), 64)
			if err != nil {
				return "", nil, opts, exit.Usage{Msg: "--poll expects a number of seconds"}
			}
			if !(secs >= 0.05 && secs <= 60) {
				return "", nil, opts, exit.Usage{Msg: "--poll expects 0.05 to 60 seconds"}
			}
			opts.poll = time.Duration(secs * float64(time.Second))
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			return "", nil, opts, exit.Usage{Msg: "unknown option " + a}
		}
		args = append(args, a)
	}
	if len(args) != want {
		plural := ""
		if want > 1 {
			plural = "s"
		}
		return "", nil, opts, exit.Usage{Msg: fmt.Sprintf("%s expects %d argument%s", command, want, plural)}
	}
	return command, args, opts, nil
}

// --- JSON and time helpers ---

// loadObject reads one JSON object whose keys are never repeated, at any depth. Its values
// stay raw, to be checked key by key.
func loadObject(data []byte) (map[string]json.RawMessage, bool) {
	if !utf8.Valid(data) || !json.Valid(data) || !noDuplicates(data) {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) && json.Unmarshal(data, &obj) == nil {
		return obj, true
	}
	return nil, false
}

// noDuplicates reports whether no object in the JSON document repeats a key.
func noDuplicates(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := k.(string)
				if seen[key] {
					return false
				}
				seen[key] = true
				if !walk() {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		case json.Delim('['):
			for dec.More() {
				if !walk() {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		}
		return true
	}
	return walk()
}

// str returns a key's value when it is a JSON string.
func str(obj map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	var s string
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func parseInstant(s string) (time.Time, bool) {
	t, err := timestamp.Parse(text.Trim(s))
	return t.UTC(), err == nil
}

func canonical(t time.Time) string { return timestamp.Canonical(t) }

// --- send ---

// sent is one line of the outbox, its keys in the order they are written.
type sent struct {
	Delivery     string `json:"delivery"`
	ID           string `json:"id"`
	Conversation string `json:"conversation"`
	ReplyTo      string `json:"reply_to"`
	Text         string `json:"text"`
	Time         string `json:"time,omitempty"`
}

type receipt struct {
	ID           string `json:"id"`
	Conversation string `json:"conversation"`
}

func send(outbox string) error {
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxInput+1))
	if err != nil {
		return exit.Fail("cannot read stdin (%s)", text.Reason(err))
	}
	if len(data) > maxInput {
		return exit.Fail("the message on stdin exceeds 64 MiB")
	}
	msg, ok := loadObject(data)
	if !ok {
		return exit.Fail("stdin must hold one JSON object")
	}
	for key := range msg {
		if !slices.Contains(sendKeys, key) {
			return exit.Fail("the message holds an unknown key; expected id, text, conversation and reply_to")
		}
	}
	id, ok := str(msg, "id")
	if !ok || id == "" {
		return exit.Fail("id: expected a nonempty string")
	}
	body, ok := str(msg, "text")
	if !ok {
		return exit.Fail("text: expected a string")
	}
	opt := map[string]string{}
	for _, key := range []string{"conversation", "reply_to"} {
		if _, present := msg[key]; !present {
			continue
		}
		v, ok := str(msg, key)
		if !ok {
			return exit.Fail("%s: expected a string", key)
		}
		opt[key] = v
	}
	conversation := opt["conversation"]
	if conversation == "" {
		conversation = outboxConversation
	}
	sum := sha256.Sum256([]byte(id))
	entry := sent{
		Delivery:     id,
		ID:           "sent-" + hex.EncodeToString(sum[:])[:24],
		Conversation: conversation,
		ReplyTo:      opt["reply_to"],
		Text:         body,
	}
	f, err := os.OpenFile(outbox, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return exit.Fail("cannot open the outbox (%s)", text.Reason(err))
	}
	defer f.Close()
	// One writer at a time, so two sends of one ID cannot both append.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return exit.Fail("cannot lock the outbox (%s)", text.Reason(err))
	}
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return exit.Fail("cannot read the outbox (%s)", text.Reason(err))
		}
		saved, ok := loadObject(line)
		if !ok {
			return exit.Fail("outbox line %d is not JSON; repair the outbox", n)
		}
		if d, _ := str(saved, "delivery"); d != entry.Delivery {
			continue
		}
		for key, want := range map[string]string{"conversation": entry.Conversation, "reply_to": entry.ReplyTo, "text": entry.Text} {
			if got, ok := str(saved, key); !ok || got != want {
				return exit.Fail("this delivery ID was already sent with other content; use a new ID")
			}
		}
		rid, _ := str(saved, "id")
		rconv, _ := str(saved, "conversation")
		return text.WriteJSON(os.Stdout, receipt{ID: rid, Conversation: rconv})
	}
	entry.Time = canonical(time.Now())
	line, err := text.Marshal(entry)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return exit.Fail("cannot write the outbox (%s)", text.Reason(err))
	}
	if err := f.Sync(); err != nil {
		return exit.Fail("cannot write the outbox (%s)", text.Reason(err))
	}
	return text.WriteJSON(os.Stdout, receipt{ID: entry.ID, Conversation: entry.Conversation})
}

// --- read ---

// message is one envelope, its keys in the order they are printed.
type message struct {
	ID           string  `json:"id"`
	Sender       string  `json:"sender"`
	Conversation string  `json:"conversation"`
	Text         string  `json:"text"`
	Time         string  `json:"time"`
	ReplyTo      *string `json:"reply_to,omitempty"`
	Own          *bool   `json:"own,omitempty"`
	Cursor       string  `json:"cursor,omitempty"`

	at time.Time
}

// loadInbox returns every admitted message of the folder, oldest first. Refused senders are
// counted on stderr; a stream passes the set of files it already reported, so each poll
// does not repeat them in the log.
func loadInbox(folder string, allow map[string]bool, reported map[string]bool) ([]message, error) {
	d, err := os.Open(folder)
	if err != nil {
		return nil, exit.Fail("cannot list the inbox folder (%s)", text.Reason(err))
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, exit.Fail("cannot list the inbox folder (%s)", text.Reason(err))
	}
	sort.Strings(names)
	var out []message
	refused := 0
	for _, name := range names {
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		m, err := loadMessage(filepath.Join(folder, name), name, strings.TrimSuffix(name, ".json"))
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		if len(allow) > 0 && !allow[m.Sender] {
			if reported == nil || !reported[name] {
				refused++
				if reported != nil {
					reported[name] = true
				}
			}
			continue
		}
		out = append(out, *m)
	}
	if refused > 0 {
		fmt.Fprintf(os.Stderr, "%s: skipped %d message(s) from senders not allowed\n", prog, refused)
	}
	sort.SliceStable(out, func(i, j int) bool { return before(out[i].at, out[i].ID, out[j].at, out[j].ID) })
	return out, nil
}

func before(t1 time.Time, id1 string, t2 time.Time, id2 string) bool {
	if !t1.Equal(t2) {
		return t1.Before(t2)
	}
	return id1 < id2
}

func loadMessage(path, where, stem string) (*message, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ENOENT) {
		return nil, nil // renamed or removed since the listing
	}
	if err != nil {
		return nil, exit.Fail("%s: cannot open (%s)", where, text.Reason(err))
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, exit.Fail("%s: cannot open (%s)", where, text.Reason(err))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, exit.Fail("%s: cannot read (%s)", where, text.Reason(err))
	}
	if len(data) > maxFile {
		return nil, exit.Fail("%s: larger than 1 MiB", where)
	}
	raw, ok := loadObject(data)
	if !ok {
		return nil, exit.Fail("%s: expected one JSON object", where)
	}
	for key := range raw {
		if !slices.Contains(envelopeKeys, key) {
			return nil, exit.Fail("%s: unknown key; a message holds id, sender, conversation, time, text, reply_to and own", where)
		}
	}
	m := &message{}
	for _, k := range []struct {
		key, def string
		dst      *string
	}{{"id", stem, &m.ID}, {"sender", "", &m.Sender}, {"conversation", defaultConversation, &m.Conversation}, {"text", "", &m.Text}} {
		v, ok := str(raw, k.key)
		if _, present := raw[k.key]; !present && k.def != "" {
			v, ok = k.def, true
		}
		if !ok || (k.key != "text" && v == "") {
			what := "nonempty string"
			if k.key == "text" {
				what = "string"
			}
			return nil, exit.Fail("%s: %s: expected a %s", where, k.key, what)
		}
		*k.dst = v
	}
	if _, present := raw["time"]; present {
		s, isStr := str(raw, "time")
		t, ok := parseInstant(s)
		if !isStr || !ok {
			return nil, exit.Fail("%s: time: expected an ISO 8601 instant with a timezone", where)
		}
		m.at = t
	} else {
		m.at = fi.ModTime().UTC().Round(time.Microsecond)
	}
	m.Time = canonical(m.at)
	m.at, _ = timestamp.Parse(m.Time) // the position is the printed time, to the microsecond
	if _, present := raw["reply_to"]; present {
		v, ok := str(raw, "reply_to")
		if !ok {
			return nil, exit.Fail("%s: reply_to: expected a string", where)
		}
		m.ReplyTo = &v
	}
	if rawOwn, present := raw["own"]; present {
		var own bool
		if s := string(bytes.TrimSpace(rawOwn)); s != "true" && s != "false" || json.Unmarshal(rawOwn, &own) != nil {
			return nil, exit.Fail("%s: own: expected true or false", where)
		}
		m.Own = &own
	}
	return m, nil
}

func read(folder, startArg, endArg string, opts options) error {
	start, ok1 := parseInstant(startArg)
	end, ok2 := parseInstant(endArg)
	if !ok1 || !ok2 {
		return exit.Fail("START and END must be ISO 8601 instants with a timezone")
	}
	all, err := loadInbox(folder, opts.allow, nil)
	if err != nil {
		return err
	}
	messages := []message{}
	for _, m := range all {
		if !m.at.Before(start) && m.at.Before(end) {
			messages = append(messages, m)
		}
	}
	// Everything was read before printing, so a failure leaves stdout empty.
	return text.WriteJSON(os.Stdout, struct {
		Messages []message `json:"messages"`
	}{messages})
}

// --- stream ---

type frames struct{ r *bufio.Reader }

// next reads one control frame, or returns nil when bf closed stdin to stop the stream.
func (fr frames) next() (map[string]json.RawMessage, error) {
	var line []byte
	for {
		chunk, err := fr.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxFrame {
			return nil, exit.Fail("a control frame exceeds 1 MiB")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, exit.Fail("cannot read stdin (%s)", text.Reason(err))
		}
		break
	}
	if len(line) == 0 {
		return nil, nil
	}
	frame, ok := loadObject(line)
	if !ok {
		return nil, exit.Fail("a control frame is not a JSON object")
	}
	if _, ok := str(frame, "type"); !ok {
		return nil, exit.Fail("a control frame has no type")
	}
	return frame, nil
}

func stream(folder string, opts options) error {
	// A write to a closed stdout then fails instead of killing the adapter with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	fr := frames{bufio.NewReaderSize(os.Stdin, 64<<10)}
	frame, err := fr.next()
	if frame == nil || err != nil {
		return err
	}
	typ, _ := str(frame, "type")
	sinceText, ok := str(frame, "since")
	if typ != "resume" || !ok {
		return exit.Fail("expected a resume frame first")
	}
	since, ok := parseInstant(sinceText)
	if !ok {
		return exit.Fail("the resume frame's since is not an ISO 8601 instant")
	}
	cursor := ""
	if _, present := frame["cursor"]; present {
		if cursor, ok = str(frame, "cursor"); !ok {
			return exit.Fail("the resume frame's cursor is not a string")
		}
	}
	// The cursor is "TIME ID": the position of the last acknowledged message.
	var posTime time.Time
	var posID string
	havePos := cursor != ""
	if havePos {
		when, ident, _ := strings.Cut(cursor, " ")
		t, ok := parseInstant(when)
		if !ok || ident == "" {
			return exit.Fail("the resume cursor is not one this adapter wrote")
		}
		posTime, posID = t, ident
	}
	reported := map[string]bool{}
	out := bufio.NewWriter(os.Stdout)
	for {
		all, err := loadInbox(folder, opts.allow, reported)
		if err != nil {
			return err
		}
		var pending []message
		for _, m := range all {
			if !m.at.Before(since) && (!havePos || before(posTime, posID, m.at, m.ID)) {
				pending = append(pending, m)
			}
		}
		if len(pending) == 0 {
			time.Sleep(opts.poll)
			continue
		}
		for _, m := range pending {
			m.Cursor = canonical(m.at) + " " + m.ID
			line, err := text.Marshal(m)
			if err != nil {
				return err
			}
			out.Write(append(line, '\n'))
			if err := out.Flush(); err != nil {
				return errClosed
			}
			// One message at a time: the next waits for bf to commit this one.
			ack, err := fr.next()
			if ack == nil || err != nil {
				return err
			}
			typ, _ := str(ack, "type")
			id, _ := str(ack, "id")
			if typ != "ack" || id != m.ID {
				return exit.Fail("expected the acknowledgement of the message just sent")
			}
			posTime, posID, havePos = m.at, m.ID, true
		}
	}
}
