package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// The experiment commands (the studies' commands, diagnose, variance, prop1, all, merge)
// name their settings as the own-data commands do: -methods, -lambdas and -seeds take
// comma-separated lists (a command that runs once takes one seed, and says so), a number
// that does not parse says what is wanted, and an old name works for one release with a
// warning (experimentAliases).

// experimentAliases are the old flag names of the experiment commands, kept for one
// release: each still works and warns, naming its new name.
var experimentAliases = map[string]string{
	"method": "methods", // diagnose: -methods, as every experiment command and fit
	"lambda": "lambdas", // diagnose: -lambdas, as every experiment command
	"seed":   "seeds",   // diagnose, variance, prop1: -seeds, as every experiment command and fit
}

// experimentAlias registers the old name old of an experiment command's flag
// (experimentAliases) on fs.
func experimentAlias(fs *flag.FlagSet, old string, warn io.Writer) {
	aliasTo(fs, old, experimentAliases[old], warn)
}

// refuseEmpty returns an error for each of the named list flags that the command line set
// to an empty value (e.g. -seeds ""): leaving a flag out takes its default, but an empty
// list given on purpose is a mistake (a shell variable that expanded to nothing), and fit
// refuses it too. defaults says, by flag name, what leaving it out gives.
func refuseEmpty(fs *flag.FlagSet, defaults map[string]string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		def, ok := defaults[f.Name]
		if err != nil || !ok || strings.TrimSpace(f.Value.String()) != "" {
			return
		}
		err = fmt.Errorf("-%s %q: empty; leave the flag out for the default (%s)", f.Name, f.Value.String(), def)
	})
	return err
}
