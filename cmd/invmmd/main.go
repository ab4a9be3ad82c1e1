// Command invmmd runs the experiments of "Learning Invariant Representations with Missing
// Data" (Goldstein et al., CLeaR 2022) and regenerates the project's tables and figures.
//
// Usage:
//
//	invmmd <command> [flags]
//
// Commands (the first three are the experiments of the registry, experiments.All; an
// experiment registered there gets its command):
//
//	sim       Experiment 1: the simulation, every method × seeds × λ
//	tmnist    Experiment 2: textured MNIST, every method × seeds × λ
//	clinical  Experiment 3: the NMES1988 stand-in, or MIMIC-III with -mimic DIR
//	merge     assemble tables and figures from the per-fit result files of (sharded) runs
//	figures   redraw the figures from the tables under figures/tables, without training
//	prop1     Proposition 2 (appendix D): full-data vs observed-only MMD of h*
//	variance  the variance study of appendix B.3
//	all       every experiment, regenerating figures/ (the README's main job)
//	estimate  your own CSV: each estimator's MMD² of a column of model outputs, with diagnostics
//	fit       your own CSV with missing Z: fit G and m, train h with each method, held-out MMD
//	predict   score a CSV with a model saved by fit
//
// Run "invmmd <command> -h" for a command's flags. The backend is the pure-Go one unless
// GOMLX_BACKEND names another (e.g. xla:cpu, xla:cuda).
//
// Every fit's result is written to OUT/fits/EXPERIMENT/ as soon as it is done; the tables
// under OUT/tables are assembled from those files. -resume skips fits whose file exists,
// and -shard i/n runs one of n slices of the grid (e.g. one task of a Slurm job array;
// see scripts/slurm/sweep.sh), after which "invmmd merge -out OUT" builds the tables.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

// commands are the experiments of the registry (experiments.All), one command each, then
// the commands that work on their results and the others.
func commands() []command {
	var cs []command
	for _, e := range experiments.All() {
		cs = append(cs, sweepCommand(e))
	}
	return append(cs, []command{
		{"merge", "assemble tables and figures from the per-fit result files of (sharded) runs", runMerge},
		{"figures", "redraw the results figures from the tables under figures/tables (no training)", runFigures},
		{"prop1", "Proposition 2 (appendix D): full-data vs observed-only MMD of h* in both constructions", runProp1},
		{"variance", "the variance study of appendix B.3 (mean and sd of each estimator against batch size)", runVariance},
		{"all", "every experiment, regenerating figures/", runAll},
		{"estimate", "your own CSV: each estimator's MMD² of a column of model outputs, with diagnostics", runEstimate},
		{"fit", "your own CSV with missing Z: fit G and m, train h with each method, report accuracy and held-out MMD", runFit},
		{"predict", "score a CSV with a model saved by fit", runPredict},
	}...)
}

func main() {
	if err := dispatch(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "invmmd:", err)
			os.Exit(2)
		}
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return fmt.Errorf("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: invmmd <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
}

// summaryOf returns the one-line description of the command name.
func summaryOf(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return c.summary
		}
	}
	return ""
}

// newFlags returns a flag set for the command name whose -h starts with the command's
// one-line description and any further text (e.g. the methods "-methods all" runs).
func newFlags(name, usageLine string, stderr io.Writer, more func() string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "invmmd %s: %s\n\nusage: invmmd %s %s\n", name, summaryOf(name), name, usageLine)
		if more != nil {
			fmt.Fprintf(stderr, "\n%s\n", more())
		}
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and refuses words left over after the flags: Go's flag package stops
// at the first word that is not a flag, so "invmmd sim extra -quick" would otherwise drop
// -quick silently.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (flags start with -, e.g. -quick; nothing after the flags is read)", fs.Name(), fs.Arg(0))
	}
	return nil
}
