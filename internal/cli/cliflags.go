// This file holds what the subcommands of recrawl share on their
// command lines: old flag names kept as hidden aliases (so scripts written
// for them still run), a help text that lists a subcommand's own flags first
// and the flags of the libraries it links (Beam's runner and pipeline
// options) after them, parsing that tells a request for help and a wrong
// command line apart (exit status 0 and 2), and the log level that
// --verbose sets.

package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// deprecatedPrefix starts the usage of an alias; Print leaves such flags out.
const deprecatedPrefix = "deprecated: "

// Alias makes old another name of the flag name of fs: the same value, left
// out of the help text; Deprecated reports its use. It panics when name is
// not defined, as flag panics on a flag defined twice.
func Alias(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	if f == nil {
		panic(fmt.Sprintf("cliflags: alias %q of an undefined flag %q", old, name))
	}
	fs.Var(f.Value, old, deprecatedPrefix+"use --"+name)
}

// Deprecated returns a warning for each alias set in fs (after Parse):
// "--old is deprecated: use --new".
func Deprecated(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if rest, ok := strings.CutPrefix(f.Usage, deprecatedPrefix); ok {
			out = append(out, "--"+f.Name+" is deprecated: "+rest)
		}
	})
	return out
}

// Own defines every flag of own in all, sharing its value, so that parsing
// all sets them; a name all already defines keeps all's definition.
func Own(all, own *flag.FlagSet) {
	own.VisitAll(func(f *flag.Flag) {
		if all.Lookup(f.Name) == nil {
			all.Var(f.Value, f.Name, f.Usage)
		}
	})
}

// Print writes a command's help to w: the usage text, the command's own
// flags, then, under othersHeading, every other flag of all (nil: none).
// Aliases are left out.
func Print(w io.Writer, usage string, own, all *flag.FlagSet, othersHeading string) {
	fmt.Fprintln(w, strings.TrimRight(usage, "\n"))
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, own, func(string) bool { return true })
	if all == nil {
		return
	}
	other := func(name string) bool { return own.Lookup(name) == nil }
	any := false
	all.VisitAll(func(f *flag.Flag) { any = any || other(f.Name) })
	if any {
		fmt.Fprintln(w, "\n"+othersHeading)
		printFlags(w, all, other)
	}
}

// printFlags prints the flags of fs that keep accepts, in flag's format and
// order, without aliases.
func printFlags(w io.Writer, fs *flag.FlagSet, keep func(string) bool) {
	shown := flag.NewFlagSet("", flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if keep(f.Name) && !strings.HasPrefix(f.Usage, deprecatedPrefix) {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
}
