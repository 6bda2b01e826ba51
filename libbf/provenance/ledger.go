package provenance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// LedgerName is the ledger's file name inside a record source folder (memories/SOURCE/).
// A dot name: listings of records and the cache pass over it.
const LedgerName = ".collected"

// MaxLedgerBytes bounds the ledger a reader loads: a line per record file of a source
// folder at its entry cap, with room to spare.
const MaxLedgerBytes = 64 << 20

// Ledger is the set of record files collection wrote in one source folder: for each file
// name, the SHA-256 digests of the contents collection gave it. A file is confirmed when
// its current contents have one of them.
type Ledger map[string][]string

// digest is the ledger's digest of a file's contents: lowercase hex SHA-256.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ParseLedger reads a ledger file: one "NAME DIGEST" line per written file. Lines that do
// not have that shape are passed over (a merge may leave conflict markers): they confirm
// nothing.
func ParseLedger(data []byte) Ledger {
	l := Ledger{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		name, digest, ok := strings.Cut(strings.TrimRight(string(line), "\r"), " ")
		if !ok || name == "" || strings.ContainsAny(name, "/ ") || !isDigest(digest) {
			continue
		}
		if !slices.Contains(l[name], digest) {
			l[name] = append(l[name], digest)
		}
	}
	for _, list := range l {
		slices.Sort(list)
	}
	return l
}

// isDigest reports a lowercase hex SHA-256.
func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Confirms reports whether collection wrote exactly data as the file name.
func (l Ledger) Confirms(name string, data []byte) bool {
	list := l[name]
	return len(list) > 0 && slices.Contains(list, digest(data))
}

// OfRecord is the provenance of a record file by its source folder's ledger.
func (l Ledger) OfRecord(name string, data []byte) Stated {
	return Stated{By: collection, Trusted: l.Confirms(name, data)}
}

// Wrote records that collection gave the file name the contents data, replacing what the
// ledger said of that name before: the file will hold these bytes.
func (l Ledger) Wrote(name string, data []byte) { l[name] = []string{digest(data)} }

// Removed forgets a file collection removed.
func (l Ledger) Removed(name string) { delete(l, name) }

// Keep drops the names present does not hold, so a ledger never outgrows its folder.
func (l Ledger) Keep(present func(name string) bool) {
	maps.DeleteFunc(l, func(name string, _ []string) bool { return !present(name) })
}

// Encode prints the ledger sorted by name, then digest, so the same set gives the same
// bytes on every machine.
func (l Ledger) Encode() []byte {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(l)) {
		for _, d := range slices.Sorted(slices.Values(l[name])) {
			fmt.Fprintf(&b, "%s %s\n", name, d)
		}
	}
	return b.Bytes()
}
