package proc

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// missingInterpreter reads the #! line of the program file at path and returns the
// interpreter it names when that is not installed: an absolute interpreter path that does
// not exist, or the program /usr/bin/env is asked to find and that the child's PATH lacks
// (#!/usr/bin/env python3 without python3). Without the check the system reports the
// first as a missing program file and the second as exit status 127 from env.
func missingInterpreter(path string, env []string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	words := strings.Fields(string(line))
	if len(words) == 0 || !filepath.IsAbs(words[0]) {
		return ""
	}
	interp := words[0]
	if _, err := os.Stat(interp); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return interp
		}
		return ""
	}
	if filepath.Base(interp) != "env" {
		return ""
	}
	// env [-S] [-i] [NAME=VALUE]… PROGRAM: the first word that is neither an option nor
	// an assignment names the program env runs.
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
			continue
		}
		if strings.Contains(w, "/") {
			if _, err := os.Stat(w); errors.Is(err, fs.ErrNotExist) {
				return w
			}
			return ""
		}
		if _, ok := lookPath(w, env); !ok {
			return w
		}
		return ""
	}
	return ""
}
