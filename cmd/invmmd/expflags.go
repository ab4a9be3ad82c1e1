package main

import (
	"flag"
	"fmt"
	"strings"
)

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
