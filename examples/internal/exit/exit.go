// Package exit holds the two ways an example program fails: a failure (exit status 1,
// nothing on stdout) and invalid arguments (exit status 2, with the usage).
package exit

import (
	"fmt"
	"strings"
)

// Failure ends the run with exit status 1 and nothing on stdout.
type Failure struct{ Msg string }

func (f Failure) Error() string { return f.Msg }

// Usage reports bad arguments: exit status 2.
type Usage struct{ Msg string }

func (u Usage) Error() string { return u.Msg }

// Fail returns a Failure with a formatted message.
func Fail(format string, args ...any) error { return Failure{fmt.Sprintf(format, args...)} }

// SplitArgs separates the positional arguments from the values of one repeatable option
// (--NAME VALUE or --NAME=VALUE); "--" ends the options. Any other option is a Usage
// error, as is the option without its value, which what names ("a value", "a GLOB").
func SplitArgs(argv []string, option, what string) (positional, values []string, err error) {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return append(positional, argv[i+1:]...), values, nil
		case a == option:
			if i+1 >= len(argv) {
				return nil, nil, Usage{Msg: option + " needs " + what}
			}
			values = append(values, argv[i+1])
			i++
		case strings.HasPrefix(a, option+"="):
			values = append(values, strings.TrimPrefix(a, option+"="))
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return nil, nil, Usage{Msg: "unknown option " + a}
		default:
			positional = append(positional, a)
		}
	}
	return positional, values, nil
}
