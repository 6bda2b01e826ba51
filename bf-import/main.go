// Command bf-import serves bf import: an Obsidian vault or a folder of Markdown notes
// copied into a brain as valid notes, with its links rewritten as Markdown links.
package main

import (
	"context"
	"errors"
	"flag"
	"strings"

	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/vault"
)

const usage = `usage: bf import SOURCE DEST [--from obsidian|markdown] [--into concepts|projects]
       [--type FOLDER=TYPE]… [--name NAME] [--dry-run]

Copy the notes of SOURCE (an Obsidian vault, a zk notebook or any folder of Markdown
files) into DEST as valid notes of a brain. SOURCE is never changed.

DEST is an absent or empty folder: either a new brain (its notes go under concepts/,
or projects/ with --into projects), or a folder under projects/ or concepts/ of the
brain that encloses it. Everything is written beside DEST first and renamed into place
once it passes bf validate's checks, so an import is whole or absent.

Each note gets a type (concept, project for projects/, or TYPE for the notes below a
--type FOLDER), a title when no H1 gives one, an updated day (front matter, else the
file's time) and its tags (front matter and inline #tags; a nested #a/b becomes a.b).
[[wikilinks]], ![[embeds]] and Markdown links become relative Markdown links, resolved
as Obsidian resolves them; other files are copied at their place in the folder.

Prints {"brain","folder","from","created","dry_run","converted","copied","renamed",
"dropped","unresolved","changed"}: every file, key or link not brought as it was is
named there. --dry-run prints the same report and writes nothing.

Exit status: 0 success, 1 failure, 2 invalid input.`

// types is the repeatable --type FOLDER=TYPE flag.
type types map[string]string

func (t types) String() string { return "" }

func (t types) Set(s string) error {
	folder, typ, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(typ) == "" {
		return errors.New("expected FOLDER=TYPE, such as Projects=project")
	}
	t[strings.Trim(folder, "/")] = typ
	return nil
}

func main() {
	var (
		from, into string
		name       cli.Optional
		dryRun     bool
		typeMap    = types{}
	)
	cmd := &cli.Command{
		Name:  "import",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&from, "from", "", "read SOURCE as `obsidian` or markdown (default: obsidian when SOURCE has .obsidian/)")
			fs.StringVar(&into, "into", "", "a new brain's folder for the notes: `concepts` (default) or projects")
			fs.Var(typeMap, "type", "`FOLDER=TYPE`: the notes below source folder FOLDER get type TYPE (repeatable), such as Projects=project")
			fs.Var(&name, "name", "a new brain's `NAME` (default: from DEST's folder name)")
			fs.BoolVar(&dryRun, "dry-run", false, "report what would be imported and write nothing")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 2 {
				return cli.Usagef("bf import takes SOURCE and DEST (see bf import --help)")
			}
			if args[0] == "" || args[1] == "" {
				return cli.Usagef("SOURCE and DEST must not be empty")
			}
			if name.Given && name.Value == "" {
				return cli.Usagef("--name: empty value; pass a brain name or leave the flag out")
			}
			res, err := vault.Import(ctx, vault.Options{
				Source: args[0], Dest: args[1], From: from, Into: into,
				Types: typeMap, Name: name.Value, DryRun: dryRun,
			})
			var in *vault.InputError
			if errors.As(err, &in) {
				return cli.Usagef("%s", in.Error())
			}
			if err != nil {
				return err
			}
			return cli.WriteJSON(env.Stdout, res)
		},
	}
	cli.Main(cmd)
}
