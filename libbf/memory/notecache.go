package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/internal/fastlist"
)

// Parsing a memory note's front matter is most of what reading a memory costs (about 45 µs
// of YAML each), and recall, the prompt hook, the brief and every save read them all. So
// the parses are kept in the brain's state folder, by file name, each with the size and
// modification time of the file it was read from: a note whose file still has both is not
// parsed again. Machine state like the usage counts, never written into the brain.
const notesCacheFile = "memory-notes.bin"

// oldNotesCacheFile is where builds before notecodec.go kept the parses, with gob; a write
// of the new file removes it.
const oldNotesCacheFile = "memory-notes.gob"

// notesCacheFormat changes when parsedNote or Memory change shape (notecodec.go).
const notesCacheFormat = 4

// racyWindow is how recent a modification time must be for its parse to be left out of
// the cache: a file rewritten twice within its file system's timestamp resolution (whole
// seconds, or two, on some) would keep one modification time for two contents.
const racyWindow = 2 * time.Second

// parsedNote is one note's parse: the memory, or why it was skipped.
type parsedNote struct {
	Name    string // the file's name in the memory folder
	Size    int64
	ModTime int64 // Unix nanoseconds
	Memory  Memory
	Skipped string // the warning, when the note was skipped
	// What the save guards compare of every memory's title, folded once here rather
	// than on every save: its normalized form (the identity) and its distinct words.
	Title string
	Words []string
}

type notesCache struct {
	Format int
	// Program identifies the binary that parsed (its path, size and modification time):
	// another build may parse differently, so its cache is not taken.
	Program string
	Notes   []parsedNote
}

var program = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, info.Size(), info.ModTime().UnixNano())
})

// readNotesCache returns the kept parses by file name, or none when there is no usable cache.
func (s *Store) readNotesCache() map[string]*parsedNote {
	dir, err := brain.System().BrainStatePath(s.Brain.ID)
	if err != nil || program() == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, notesCacheFile))
	if err != nil {
		return nil
	}
	// The file's bytes are decoded in place, without the copy a string conversion makes
	// (a few milliseconds for 5,000 memories): nothing writes them after this read.
	c, err := decodeNotes(unsafe.String(unsafe.SliceData(data), len(data)), notesCacheFormat, program())
	if err != nil || c.Format != notesCacheFormat || c.Program != program() {
		return nil
	}
	byName := make(map[string]*parsedNote, len(c.Notes))
	for i := range c.Notes {
		byName[c.Notes[i].Name] = &c.Notes[i]
	}
	return byName
}

// writeNotesCache keeps the parses, best effort: a reader that cannot write it only parses
// again next time. The file is replaced by a rename, so a concurrent reader sees the old
// cache or the new one, never a part.
func (s *Store) writeNotesCache(notes []parsedNote) {
	if program() == "" {
		return
	}
	dir, err := brain.System().BrainStateDir(s.Brain.ID)
	if err != nil {
		return
	}
	data, err := encodeNotes(notesCache{Format: notesCacheFormat, Program: program(), Notes: notes})
	if err != nil {
		return
	}
	f, err := os.CreateTemp(dir, "."+notesCacheFile+".*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, notesCacheFile)); err != nil {
		os.Remove(f.Name())
		return
	}
	os.Remove(filepath.Join(dir, oldNotesCacheFile))
}

// parseEntry reads and parses one memory note file, or reuses its kept parse. It reports
// whether the parse may be kept: never for a file that could not be read, nor for one
// modified within racyWindow of now.
func parseEntry(dir string, e fastlist.FolderFile, p string, kept map[string]*parsedNote, now time.Time) (pn parsedNote, keep bool) {
	if e.StatErr == nil {
		if k, ok := kept[e.Name]; ok && k.Size == e.Size && k.ModTime == e.ModTime {
			return *k, true
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, e.Name))
	if err != nil {
		return parsedNote{Skipped: p + ": cannot read: " + reason(err)}, false
	}
	if e.StatErr != nil {
		return parse(p, data), false
	}
	// The size and time of the bytes read: taken before reading, a write in between
	// would be kept under the old time.
	pn = parse(p, data)
	pn.Name, pn.Size, pn.ModTime = e.Name, e.Size, e.ModTime
	return pn, int64(len(data)) == e.Size && now.Sub(time.Unix(0, e.ModTime)) > racyWindow
}

func parse(p string, data []byte) parsedNote {
	m, probs := Parse(p, data)
	if len(probs) > 0 {
		return parsedNote{Skipped: p + ": skipped: " + probs[0].Error()}
	}
	return parsedNote{Memory: *m, Title: normalizeTitle(m.Title), Words: titleWords(m.Title)}
}
