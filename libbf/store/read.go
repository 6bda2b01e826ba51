package store

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/record"
)

// Stored is one record file of a source as read.
type Stored struct {
	File   string // brain-relative: memories/SOURCE/<sha256>.json
	Data   []byte
	Record record.Record
	// Err says why the file could not be read, parsed or matched to its name.
	Err error
}

// Read reads every record file of source, in file name order, under the shared record
// lock (waiting up to DefaultWait). A source without a folder has no records. It refuses
// with ErrInterrupted while an incomplete transaction exists.
func Read(ctx context.Context, root, source string) ([]Stored, error) {
	l, err := lockRecords(ctx, root, false, DefaultWait)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	if bad, err := Interrupted(root); err != nil {
		return nil, err
	} else if bad {
		return nil, ErrInterrupted
	}
	rel := memoriesDir + "/" + source
	src := filepath.Join(root, memoriesDir, source)
	names, err := readNames(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Stored
	for _, name := range names {
		if !record.ValidFileName(name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := Stored{File: rel + "/" + name}
		if s.Data, s.Err = durable.ReadRegular(filepath.Join(src, name), record.MaxFileSize); s.Err == nil {
			if s.Record, s.Err = record.Parse(s.Data); s.Err == nil {
				s.Err = record.CheckFileName(s.Record, name)
			}
		}
		out = append(out, s)
	}
	return out, nil
}
