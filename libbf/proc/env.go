package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Variables that make interpreters and the dynamic loader run code the program did not
// ask for. Removing them is best effort against accidents, not a sandbox.
var (
	injectPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_", "PYTHON", "LUA_INIT"}
	injectNames    = map[string]bool{
		"GCONV_PATH": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
		"PS4": true, "NODE_OPTIONS": true, "NODE_PATH": true, "RUBYOPT": true, "RUBYLIB": true,
		"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "JAVA_TOOL_OPTIONS": true,
		"_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "ZDOTDIR": true, "PHPRC": true,
		"PHP_INI_SCAN_DIR": true,
	}
)

func injects(key string) bool {
	if injectNames[key] {
		return true
	}
	for _, p := range injectPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// environ builds a program's environment: base (normally os.Environ()) without
// code-injection variables, with only the absolute PATH entries (a relative or empty entry
// would run whatever sits in the brain's working directory), then extra. A key set in
// extra replaces the inherited one. PATH is left out when no entry remains, as an empty
// PATH means the working directory to many program launchers.
func environ(base, extra []string) []string {
	override := map[string]bool{}
	for _, kv := range extra {
		if k, _, ok := strings.Cut(kv, "="); ok {
			override[k] = true
		}
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || injects(k) || override[k] {
			continue
		}
		if k == "PATH" {
			v = absolutePath(v)
			if v == "" {
				continue
			}
			kv = "PATH=" + v
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

func absolutePath(list string) string {
	var keep []string
	for _, d := range filepath.SplitList(list) {
		if filepath.IsAbs(d) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// lookPath finds a bare program name on the PATH the program itself will see.
func lookPath(name string, env []string) (string, bool) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// resolve finds the file to execute for command[0].
func resolve(s *Spec, exe string, env []string) (string, *Error) {
	if !strings.Contains(exe, "/") {
		if exe == "" || exe == "." || exe == ".." {
			return "", &Error{Kind: Args, Program: s.Name, Err: errors.New("command[0] must name a program on PATH or a path inside the brain")}
		}
		p, ok := lookPath(exe, env)
		if !ok {
			return "", &Error{Kind: NotOnPath, Program: s.Name, Exec: exe}
		}
		return p, nil
	}
	if !cleanRel(exe) {
		return "", &Error{Kind: Args, Program: s.Name, Err: errors.New("command[0] must name a program on PATH or a normalised path inside the brain")}
	}
	abs, fi, err := inBrain(s.Root, exe)
	if err != nil {
		return "", &Error{Kind: Start, Program: s.Name, Exec: exe, hint: "it " + err.Error(), Err: errors.Unwrap(err)}
	}
	if fi.Mode()&0o111 == 0 {
		return "", &Error{Kind: Start, Program: s.Name, Exec: exe, hint: "it is not executable; run chmod +x " + exe}
	}
	return abs, nil
}

// errnoText gives the system's short reason for a failed start, never program output.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return " (" + errno.Error() + ")"
	}
	return ""
}
