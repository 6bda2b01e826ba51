package memory

import (
	"encoding/binary"
	"errors"
)

// The kept parses are written in a format of their own rather than with encoding/gob:
// decoding 5,000 of them with gob took about 10 ms of CPU, as much as the rest of
// loading them, for every recall, prompt hook and brief. Here every string of the file is
// a slice of one copy of it, and numbers are varints.
//
// A file is notesMagic, then varints and length-prefixed strings in the order of
// noteEncoder.note; its format number is the first value after the magic. Empty lists
// decode as nil, as they did from gob.
const notesMagic = "bf-memory-notes\n"

var errNotesCache = errors.New("memory notes cache: malformed")

type noteEncoder struct{ buf []byte }

func (e *noteEncoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *noteEncoder) int(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }
func (e *noteEncoder) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}
func (e *noteEncoder) string(s string) { e.uint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *noteEncoder) strings(list []string) {
	e.uint(uint64(len(list)))
	for _, s := range list {
		e.string(s)
	}
}

// encodeNotes is the file of a notesCache.
func encodeNotes(c notesCache) ([]byte, error) {
	e := &noteEncoder{buf: append(make([]byte, 0, 512*len(c.Notes)+64), notesMagic...)}
	e.int(int64(c.Format))
	e.string(c.Program)
	e.uint(uint64(len(c.Notes)))
	for i := range c.Notes {
		if err := e.note(&c.Notes[i]); err != nil {
			return nil, err
		}
	}
	return e.buf, nil
}

func (e *noteEncoder) note(n *parsedNote) error {
	e.string(n.Name)
	e.int(n.Size)
	e.int(n.ModTime)
	e.string(n.Skipped)
	e.string(n.Title)
	e.strings(n.Words)
	m := &n.Memory
	for _, s := range []string{m.Ref, m.Title, m.Type, m.Body, m.Confidence, m.Trust, m.Scope, m.Review, m.Commit, m.Project, m.Source, m.SourceRef} {
		e.string(s)
	}
	e.int(int64(m.Importance))
	e.bool(m.Pinned)
	e.bool(m.Unreviewed)
	saved, err := m.Saved.MarshalBinary()
	if err != nil {
		return err
	}
	e.string(string(saved))
	e.strings(m.Supersedes)
	e.strings(m.DistinctFrom)
	e.strings(m.SupersededBy)
	e.uint(uint64(len(m.Verified)))
	for _, c := range m.Verified {
		e.string(c.By)
		e.string(c.At)
	}
	return nil
}

type noteDecoder struct {
	data string // the whole file: every string decoded is a slice of it
	at   int
	err  error
}

func (d *noteDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarintString(d.data[d.at:])
	if n <= 0 {
		d.err = errNotesCache
		return 0
	}
	d.at += n
	return v
}

func (d *noteDecoder) int() int64 {
	u := d.uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *noteDecoder) bool() bool { return d.uint() != 0 }

func (d *noteDecoder) string() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.data)-d.at) {
		d.err = errNotesCache
		return ""
	}
	s := d.data[d.at : d.at+int(n)]
	d.at += int(n)
	return s
}

func (d *noteDecoder) strings() []string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.data)-d.at) {
		d.err = errNotesCache
		return nil
	}
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.string()
	}
	return out
}

// decodeNotes reads a file encodeNotes wrote; the notes are read only when its format
// and program are those given. The strings it returns share data's bytes.
func decodeNotes(data string, format int, program string) (notesCache, error) {
	if len(data) < len(notesMagic) || string(data[:len(notesMagic)]) != notesMagic {
		return notesCache{}, errNotesCache
	}
	d := &noteDecoder{data: data, at: len(notesMagic)}
	c := notesCache{Format: int(d.int()), Program: d.string()}
	if d.err != nil || c.Format != format || c.Program != program {
		return c, d.err
	}
	n := d.uint()
	if d.err != nil || n > uint64(len(d.data)-d.at) {
		return c, errNotesCache
	}
	c.Notes = make([]parsedNote, n)
	for i := range c.Notes {
		d.note(&c.Notes[i])
	}
	if d.err == nil && d.at != len(d.data) {
		d.err = errNotesCache
	}
	return c, d.err
}

func (d *noteDecoder) note(n *parsedNote) {
	n.Name = d.string()
	n.Size = d.int()
	n.ModTime = d.int()
	n.Skipped = d.string()
	n.Title = d.string()
	n.Words = d.strings()
	m := &n.Memory
	for _, s := range []*string{&m.Ref, &m.Title, &m.Type, &m.Body, &m.Confidence, &m.Trust, &m.Scope, &m.Review, &m.Commit, &m.Project, &m.Source, &m.SourceRef} {
		*s = d.string()
	}
	m.Importance = int(d.int())
	m.Pinned = d.bool()
	m.Unreviewed = d.bool()
	if saved := d.string(); d.err == nil {
		if err := m.Saved.UnmarshalBinary([]byte(saved)); err != nil {
			d.err = errNotesCache
		}
	}
	m.Supersedes = d.strings()
	m.DistinctFrom = d.strings()
	m.SupersededBy = d.strings()
	if k := d.uint(); d.err == nil && k > 0 {
		if k > uint64(len(d.data)-d.at) {
			d.err = errNotesCache
			return
		}
		m.Verified = make([]Check, k)
		for i := range m.Verified {
			m.Verified[i] = Check{By: d.string(), At: d.string()}
		}
	}
}

// uvarintString is binary.Uvarint over a string, without copying it.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -1
			}
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
