package read

import (
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/reply"
)

// opening is the most a first page of an outlined text holds, in bytes of its JSON.
const opening = 4 << 10

// pager pages the text of an exact read whose reply exceeds reply.Budget. Offsets
// and lengths count Unicode characters.
type pager struct {
	text string
	// opening limits the first page to Opening: headings divide the text.
	opening bool
	whole   any
	offset  int64
	// setFirst builds the first page and later a later one, around a slice.
	setFirst func(slice string, offset int64, next *int64, total int) any
	later    func(slice string, offset int64, next *int64, total int) any
}

func (pg *pager) page() (any, error) {
	b, err := reply.Marshal(pg.whole)
	if err != nil {
		return nil, err
	}
	if len(b) <= reply.Budget {
		if pg.offset != 0 {
			return nil, &reply.InputError{Argument: "offset", Err: errNotPaged}
		}
		return pg.whole, nil
	}
	runes := []rune(pg.text)
	total := len(runes)
	if pg.offset != 0 && pg.offset >= int64(total) {
		return nil, &reply.InputError{Argument: "offset", Err: errBeyond}
	}
	start := int(pg.offset)
	build := pg.later
	if start == 0 {
		build = pg.setFirst
	}
	// The frame is measured with a next_offset as long as any this text can have.
	placeholder := int64(total)
	frame, err := reply.Marshal(build("", pg.offset, &placeholder, total))
	if err != nil {
		return nil, err
	}
	room := max(reply.Budget-len(frame), reply.Budget/4)
	if start == 0 && pg.opening {
		room = min(room, opening)
	}
	end := cut(runes, start, room)
	var next *int64
	if end < total {
		n := int64(end)
		next = &n
	}
	return build(string(runes[start:end]), pg.offset, next, total), nil
}

// cut returns where a slice starting at start ends: as far as its JSON fits room, then back
// to just after the last line break in the slice's second half, if any.
func cut(runes []rune, start, room int) int {
	total := len(runes)
	end := min(total, start+room)
	for end-start > 1 {
		size := jsonSize(runes[start:end])
		if size <= room {
			break
		}
		end = start + max(1, (end-start)*room/size)
	}
	if end < total {
		half := start + (end-start)/2
		for i := end - 1; i >= half && i > start; i-- {
			if runes[i] == '\n' {
				return i + 1
			}
		}
	}
	return end
}

// jsonSize is the length of the JSON string of runes as replies print it.
func jsonSize(runes []rune) int {
	s := string(runes)
	b, err := reply.Marshal(s)
	if err != nil {
		return utf8.RuneCountInString(s) * 6
	}
	return len(b)
}
