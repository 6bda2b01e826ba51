package brain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Env is what this package sees of the machine: environment variables, the working
// directory, the home directory and the current user. System returns the real one; tests
// build their own with a temporary home so they never touch the user's files.
type Env struct {
	Getenv  func(string) string    // nil: os.Getenv
	Getwd   func() (string, error) // nil: os.Getwd
	Home    string                 // home directory for ~ and the XDG defaults; "" = unknown
	Geteuid func() int             // nil: os.Geteuid; the account that must own brains and state
}

// System is the process environment.
func System() Env {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	return Env{Getenv: os.Getenv, Getwd: os.Getwd, Home: home, Geteuid: os.Geteuid}
}

// EnvOrSystem is *e, or the process environment when e is nil: options leave their
// machine nil unless a test gives one of its own.
func EnvOrSystem(e *Env) Env {
	if e == nil {
		return System()
	}
	return *e
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

func (e Env) getwd() (string, error) {
	get := e.Getwd
	if get == nil {
		get = os.Getwd
	}
	wd, err := get()
	if err != nil {
		return "", failf(err, "cannot read the working directory")
	}
	if !filepath.IsAbs(wd) {
		return "", failf(nil, "the working directory is not an absolute path")
	}
	return filepath.Clean(wd), nil
}

func (e Env) euid() int {
	if e.Geteuid == nil {
		return os.Geteuid()
	}
	return e.Geteuid()
}

func (e Env) home() (string, error) {
	if e.Home == "" || !filepath.IsAbs(e.Home) {
		return "", failf(nil, "cannot find the home directory to expand ~; set HOME")
	}
	return filepath.Clean(e.Home), nil
}

// xdg returns $VAR when it holds an absolute path, else ~/fallback. Empty or relative
// values are ignored, as the XDG base directory specification asks.
func (e Env) xdg(variable, fallback string) (string, error) {
	if v := e.getenv(variable); v != "" && filepath.IsAbs(v) {
		return filepath.Clean(v), nil
	}
	home, err := e.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, fallback), nil
}

// RegistryFile is the machine registry: $XDG_CONFIG_HOME/bf/config.yaml, by default
// ~/.config/bf/config.yaml.
func (e Env) RegistryFile() (string, error) {
	dir, err := e.xdg("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "bf", "config.yaml"), nil
}

// expand replaces a leading ~ or ~/ with the home directory. Other forms such as ~user
// are returned unchanged, so callers see a relative path.
func (e Env) expand(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := e.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}

// abs expands ~ and makes p absolute: relative paths resolve from base, or from the
// working directory when base is empty. The result is cleaned but symlinks are kept.
func (e Env) abs(p, base string) (string, error) {
	p, err := e.expand(p)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if base == "" {
		if base, err = e.getwd(); err != nil {
			return "", err
		}
	}
	return filepath.Join(base, p), nil
}

// maxPath bounds a brain path in the registry or in a brains: reference, in characters.
const maxPath = 4096

// checkPathText reports why s cannot be a brain path: empty, longer than maxPath
// characters, not UTF-8, or holding a control character. The message never quotes s.
func checkPathText(s string) string {
	switch {
	case s == "" || utf8.RuneCountInString(s) > maxPath:
		return "must be 1 to 4096 characters"
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Cc, r) }):
		return "must not contain control characters"
	}
	return ""
}

// Identity is the physical identity of a folder: the device and inode of the directory
// after following symlinks. Two paths with the same identity reach the same brain; locks
// and state key on it so bind mounts, symlinks and case variants agree.
type Identity struct {
	Dev, Ino uint64
}

// String prints the identity as DEV-INO, the name of the brain's state folder.
func (id Identity) String() string { return fmt.Sprintf("%d-%d", id.Dev, id.Ino) }

func identityOf(info fs.FileInfo) Identity {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}
	}
	return Identity{Dev: uint64(st.Dev), Ino: uint64(st.Ino)} //nolint:unconvert // widths differ by platform
}

func ownerOf(info fs.FileInfo) int {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return -1
	}
	return int(st.Uid)
}

// absent reports whether err says a path does not exist (including a file where a
// folder was expected on the way).
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
