package record

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

const (
	reasonFileName = "expected memories/<source>/<sha256-id>.json"
	reasonMismatch = "record id does not match its SHA-256 filename; run bf validate and reconcile it"
)

// FileName is the name of the file that holds the record with this id: the lowercase hex
// SHA-256 of the id's UTF-8 bytes, then ".json". It does not depend on the source, the
// event time or the collection mode, so the same id always lands in the same file.
func FileName(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:]) + ".json"
}

// ValidFileName reports whether name has the shape of a record file: ^[0-9a-f]{64}\.json$.
func ValidFileName(name string) bool {
	if len(name) != 64+len(".json") || name[64:] != ".json" {
		return false
	}
	for i := 0; i < 64; i++ {
		if c := name[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckFileName reports whether r may live in the file name (a base name, or a path whose
// last element is taken): the name must have the record shape and be FileName(r.ID).
func CheckFileName(r Record, name string) error {
	name = filepath.Base(name)
	if !ValidFileName(name) {
		return &fieldError{Reason: reasonFileName}
	}
	if FileName(r.ID) != name {
		return &fieldError{Reason: reasonMismatch}
	}
	return nil
}
