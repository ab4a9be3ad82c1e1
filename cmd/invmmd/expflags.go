package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// experimentAliases are the old flag names of the experiment commands, kept for one
// release: each still works and warns, naming its new name (-methods, -lambdas and -seeds,
// as the own-data commands name them).
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

// refuseEmpty refuses a named list flag set to an empty value (e.g. -seeds "", a shell
// variable that expanded to nothing), as fit does; defaults says, by flag name, what
// leaving it out gives.
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
