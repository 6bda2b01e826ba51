package reply

import (
	"errors"
	"strconv"
)

// MaxOffset is the largest continuation offset, 2^53−1: every JSON client holds it exactly.
const MaxOffset int64 = 1<<53 - 1

// ErrOffset is the reason an offset outside 0…MaxOffset is invalid input.
var ErrOffset = errors.New("expected an integer from 0 to " + strconv.FormatInt(MaxOffset, 10))

// CheckOffset reports whether offset is a valid continuation offset.
func CheckOffset(offset int64) error {
	if offset < 0 || offset > MaxOffset {
		return ErrOffset
	}
	return nil
}

// Fit returns how many leading items fit in budget bytes: each item counts as its encoding
// (Marshal of what size is given) plus one separator byte, and the page ends before the
// first item, other than the first, that would pass the budget. At least one item is
// always kept, so a continuation always advances. Callers measure items in the shape the
// largest reply prints them: with brain, uri and bf:// addresses (Item.Addressed).
func Fit[T any](items []T, budget int, shape func(T) any) (int, error) {
	size := 0
	for i, it := range items {
		var v any = it
		if shape != nil {
			v = shape(it)
		}
		b, err := Marshal(v)
		if err != nil {
			return 0, err
		}
		size += len(b) + 1
		if i > 0 && size > budget {
			return i, nil
		}
	}
	return len(items), nil
}

// FitItems is Fit for items, each measured with brain, uri and addresses.
func FitItems(items []Item, budget int) (int, error) {
	return Fit(items, budget, func(it Item) any { return it.Addressed() })
}

// NextOffset is the continuation of a page that returned n items from offset: nil when
// nothing follows.
func NextOffset(offset int64, n int, more bool) *int64 {
	if !more {
		return nil
	}
	next := offset + int64(n)
	return &next
}
