// Command bf-init serves bf init (create a brain) and bf register (add one to this
// machine's registry).
package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/starter"
)

func main() {
	var name cli.Optional
	var full, collect bool
	initCmd := &cli.Command{
		Name: "init",
		Usage: `usage: bf init PATH [--name NAME] [--full]

Create a new brain in PATH, which must be absent, empty or hold only .git.
The brain's name defaults to the folder's name, lowercased with accents folded.
Prints {"created":[…],"name":…,"path":…}.`,
		Flags: func(fs *flag.FlagSet) {
			fs.Var(&name, "name", "the brain's `NAME`: a lowercase letter, then letters, digits or hyphens (64 at most)")
			fs.BoolVar(&full, "full", false, "also create memories/, assets/, sensors/, routines/ and skills/")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("bf init takes one PATH (see bf init --help)")
			}
			dir, err := folder(args[0])
			if err != nil {
				return err
			}
			brainName := name.Value
			if !name.Given {
				if brainName, err = brain.NameFromFolder(dir); err != nil {
					return cli.Classify(err)
				}
			} else if !ref.ValidName(brainName) {
				return cli.Usagef("--name: use a lowercase letter, then lowercase letters, digits or hyphens, 64 characters at most")
			}
			res, err := starter.Write(dir, starter.Options{Name: brainName, Full: full})
			if err != nil {
				return err
			}
			return cli.WriteJSON(env.Stdout, res)
		},
	}
	registerCmd := &cli.Command{
		Name: "register",
		Usage: `usage: bf register [PATH] [--collect]

Add the brain at PATH (default: the current folder) to this machine's registry,
so bf NAME selection and searches from outside the folder find it.
Prints {"brain":…,"config":…,"path":…} and any entries it replaced.`,
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&collect, "collect", false, "also trust this brain's programs (sensors, routines, assistants, channels) and its embeddings and ask providers to run on this machine")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 1 {
				return cli.Usagef("bf register takes at most one PATH (see bf register --help)")
			}
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			reg, err := brain.LoadRegistry()
			if err != nil {
				return cli.Classify(err)
			}
			res, err := reg.Register(path, "", brain.RegisterOptions{Collect: collect})
			if err != nil {
				return cli.Classify(err)
			}
			return cli.WriteJSON(env.Stdout, res)
		},
	}
	cli.Main(initCmd, registerCmd)
}

// folder expands ~ and makes PATH absolute; an empty PATH is invalid input.
func folder(p string) (string, error) {
	if p == "" {
		return "", cli.Usagef("PATH must not be empty")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[1:])
	}
	return filepath.Abs(p)
}
