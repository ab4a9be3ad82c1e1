// Command invmmd runs the experiments of "Learning Invariant Representations with Missing
// Data" (Goldstein et al., CLeaR 2022), regenerates the project's tables and figures, and
// runs the own-data workflow (estimate, test, fit, audit, predict).
//
// Usage:
//
//	invmmd <command> [flags]
//
// The commands are one per study of the list (experiments.Studies), then merge, figures,
// all, the own-data commands and version: "invmmd help" lists them, "invmmd <command> -h"
// gives a command's flags. The backend is the pure-Go one unless GOMLX_BACKEND names
// another (e.g. xla:cpu, xla:cuda).
//
// Every fit's result is written to OUT/fits/EXPERIMENT/ as soon as it is done and the
// tables are assembled from those files: -resume skips fits whose file exists, -shard i/n
// runs one of n slices of the grid (scripts/slurm/sweep.sh), then "invmmd merge -out OUT".
// SIGINT or SIGTERM stops a command after the training step in progress, keeping every
// finished fit, and prints the command line that goes on from there.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// command is one subcommand. Its run stops cleanly once ctx is done (SIGINT or SIGTERM):
// it returns an *interrupted error saying what was kept and how to go on.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// studies are the studies the command line knows (experiments.Studies); a program, or a
// test, with a study of its own appends it before it dispatches.
var studies = experiments.Studies()

// commands are the studies' commands (commandFor), then the commands that work on their
// results and the own-data commands.
func commands() []command {
	var cs []command
	for _, s := range studies {
		cs = append(cs, commandFor(s))
	}
	return append(cs, []command{
		{"merge", "assemble tables and figures from the per-fit result files of (sharded) runs", runMerge},
		{"figures", "redraw the results figures from the tables under figures/tables (no training)", runFigures},
		{"all", "every experiment, regenerating figures/", runAll},
		{"estimate", "your own CSV: each estimator's MMD² of a column of model outputs, with diagnostics", runEstimate},
		{"test", "your own CSV: is a column of model outputs independent of Z given Y? p-values with Z missing at random", runTest},
		{"fit", "your own CSV with missing Z: fit G and m, train h with each method, report accuracy and held-out MMD", runFit},
		{"audit", "your own CSV: a model's decisions audited for equalized odds by group with the sensitive attribute partly missing", runAudit},
		{"predict", "score a CSV with a model saved by fit: probabilities, logits and the columns kept, ready for estimate and test", runPredict},
		{"version", "print the module's version and the commit this program was built from", runVersion},
	}...)
}

// exitInterrupted is the exit status after SIGINT or SIGTERM (128 + SIGINT, as shells do).
const exitInterrupted = 130

func main() {
	tuneBackend()
	if len(os.Args) > 1 {
		tuneCollector(os.Args[1])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the program at once
	}()
	err := dispatchContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ie *interrupted
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ie):
		fmt.Fprintln(os.Stderr, "invmmd:", err)
		os.Exit(exitInterrupted)
	default:
		fmt.Fprintln(os.Stderr, "invmmd:", message(err))
		os.Exit(2)
	}
}

// doubled matches a prefix repeated by two layers of wrapping, e.g. "tmnist: tmnist: ".
var doubled = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9_]*): `)

// message returns err's text as printed after "invmmd: ": without a leading "invmmd: "
// and with a prefix that two layers of wrapping doubled said once.
func message(err error) string {
	s := strings.TrimPrefix(err.Error(), "invmmd: ")
	for prev := ""; prev != s; { // until no "X: X: " is left, the first each time
		prev = s
		for _, loc := range doubled.FindAllStringSubmatchIndex(s, -1) {
			word := s[loc[2]:loc[3]]
			if rep := word + ": " + word + ": "; strings.HasPrefix(s[loc[0]:], rep) {
				s = s[:loc[0]] + word + ": " + s[loc[0]+len(rep):]
				break
			}
		}
	}
	return s
}

// dispatch runs the command line args with no signal handling (tests).
func dispatch(args []string, stdout, stderr io.Writer) error {
	return dispatchContext(context.Background(), args, stdout, stderr)
}

// dispatchContext runs the command line args: a command and its flags, or help ("invmmd
// help" or -h: the command list; "invmmd help CMD": CMD -h), help to stdout.
func dispatchContext(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return fmt.Errorf("no command given")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			for _, c := range commands() {
				if c.name == args[1] {
					return c.run(ctx, []string{"-h"}, stdout, stdout)
				}
			}
			usage(stdout)
			return fmt.Errorf("help: unknown command %q", args[1])
		}
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

// interrupted is a command's error when SIGINT or SIGTERM stopped it: what was kept, and
// the command line that goes on from there.
type interrupted struct {
	kept   string // e.g. "the finished fits are under OUT/fits/sim"
	resume string // the command line to go on, with -resume
}

// Error says how to go on: where the line carries -resume (resumeLine) it goes on where
// the command stopped; a command without -resume (estimate, test, predict: rerunLine)
// starts again from scratch, and says so.
func (e *interrupted) Error() string {
	if !slices.ContainsFunc(strings.Fields(e.resume), func(a string) bool {
		return a == "-resume" || a == "--resume" || a == "-resume=true" || a == "--resume=true"
	}) {
		return fmt.Sprintf("interrupted; %s. To run it again, run:\n  %s", e.kept, e.resume)
	}
	return fmt.Sprintf("interrupted; %s. To go on where it stopped, run:\n  %s", e.kept, e.resume)
}

// resumeLine returns the command line "invmmd NAME ARGS -resume" (-resume added when args
// lack it), each argument quoted for a POSIX shell where it needs to be.
func resumeLine(name string, args []string) string {
	if slices.ContainsFunc(args, func(a string) bool { return a == "-resume" || a == "--resume" || a == "-resume=true" }) {
		return rerunLine(name, args)
	}
	return rerunLine(name, args) + " -resume"
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+.,/:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runUntilDone runs work, which stops once ctx is done, and returns its result and error,
// or, when ctx was done first, an *interrupted error with kept and the resume line of
// name's args. It waits for work to return, so that nothing runs on after the command has
// said it stopped: result files are written atomically, and the fit in progress is all
// that is lost.
func runUntilDone[T any](ctx context.Context, name string, args []string, kept string, work func() (T, error)) (T, error) {
	res, err := work()
	if ctx.Err() != nil {
		return res, &interrupted{kept: kept, resume: resumeLine(name, args)}
	}
	return res, err
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: invmmd <command> [flags]\n\ncommands:")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"invmmd help <command>\" (or \"invmmd <command> -h\") for a command's flags and defaults.")
}

// newFlags returns a flag set for the command name whose -h gives the command's summary,
// the text more returns, then the flags. Help asked for goes to stdout; the usage shown
// after a flag error goes to stderr.
func newFlags(name, usageLine string, stdout, stderr io.Writer, more func() string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w, summary := fs.Output(), ""
		for _, c := range commands() {
			if c.name == name {
				summary = c.summary
			}
		}
		fmt.Fprintf(w, "invmmd %s: %s\n\nusage: invmmd %s %s\n", name, summary, name, usageLine)
		if more != nil {
			fmt.Fprintf(w, "\n%s\n", more())
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	helpOut.Store(fs, stdout)
	return fs
}

// helpOut maps each flag set of newFlags to the writer its help goes to when asked for.
var helpOut sync.Map

// parse parses args and refuses words left over after the flags: Go's flag package stops
// at the first word that is not a flag, so "invmmd sim extra -quick" would otherwise drop
// -quick silently. Args asking for help (-h or -help, one dash or two, among the flags)
// print it to its writer (helpOut) and return flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string) error {
	if given := givenFlags(fs, args); given["h"] || given["help"] {
		if w, ok := helpOut.Load(fs); ok {
			fs.SetOutput(w.(io.Writer))
		}
		fs.Usage()
		return flag.ErrHelp
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (flags start with -, e.g. -quick; nothing after the flags is read)", fs.Name(), fs.Arg(0))
	}
	return nil
}

// givenFlags returns the names of the flags that args give (h or help when they ask for
// help), read as the flag package reads them: -name or --name, with =VALUE or, unless the
// flag is boolean, the next argument as its value (a value is no flag), up to the first
// argument that is not a flag or "--".
func givenFlags(fs *flag.FlagSet, args []string) map[string]bool {
	given := map[string]bool{}
	for len(args) > 0 {
		s := args[0]
		if len(s) < 2 || s[0] != '-' || s == "--" {
			break
		}
		args = args[1:]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(s[1:], "-"), "=")
		given[name] = true
		f := fs.Lookup(name)
		if f == nil || hasValue {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if len(args) > 0 {
			args = args[1:]
		}
	}
	return given
}
