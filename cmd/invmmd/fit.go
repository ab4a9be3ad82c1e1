package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
)

// fitMore is the text of fit -h between the usage line and the flags: the methods and
// the files written.
func fitMore() string {
	return "methods: " + method.List(method.Paper()) + " and the extensions " + method.List(method.Extensions()) + " (full only when no Z is missing; ip+, dr+ and dr-po+ need the true G, which only a simulation knows;\n" +
		"all and ext name the others)\n\n" +
		"Writes to -out: config.json (the settings and a SHA-256 of the data, written first), runs/METHOD-seedS.json and\n" +
		"models/METHOD-seedS/ (one per method and seed, as each finishes), and results.csv, results.md (the table with what\n" +
		"it was fitted on and where each network stopped: every one stops after -patience / -aux-patience epochs without a\n" +
		"better validation objective, or at -epochs / -aux-epochs)\n" +
		"and heldout.txt (each model's held-out dr and ip estimates with their terms and diagnostics, and the p-value of\n" +
		"the test of h ⊥ Z | Y on the test split by dr's pseudo-outcome, cross route: G and m were fitted on the\n" +
		"training split, so the test rows are out of sample; the p dr column; ip's test is not run, its size with a fitted G\n" +
		"not shown to hold), rewritten as each method finishes.\n" +
		"The held-out estimates and tests take the kernel's σ by the median heuristic on h, as estimate and test do\n" +
		"(-bandwidth); an estimate outside its possible range is shown as IMPOSSIBLE. -out is locked while a fit writes\n" +
		"there: a second fit into it is refused. A folder holding results of other settings or other data is refused\n" +
		"(-force replaces them); -resume keeps the finished methods (not with -force, which would remove them), and\n" +
		"Ctrl-C stops within a second, keeping them.\n" +
		"Score rows with: invmmd predict -model OUT/models/METHOD-seedS -data FILE.csv -out scored.csv"
}

// runFit runs the own-data workflow (owndata.Fit) and prints its report and table. Once
// ctx is done it stops within a second, keeping every finished method's files, and says
// how to go on.
func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultConfig()
	fs := newFlags("fit", "-data FILE.csv -y COL -z COL [-x COLS] [-split COL | -val-frac F -test-frac F] [-methods ...] [-lambda L] [-seeds ...] [-out DIR]", stdout, stderr, fitMore)
	o := ownFlagsOf(fs, &cfg)
	if err := o.parse(args); err != nil {
		return err
	}
	if cfg.Resume && cfg.Force {
		return fmt.Errorf("-resume and -force: -resume keeps the finished methods under -out %s, and -force removes every result there when any does not match this run's settings and data; give -resume to go on, or -force to start again", cfg.Out)
	}
	given := givenFlags(fs, args)
	if set := slices.DeleteFunc([]string{"test-frac", "val-frac"}, func(f string) bool { return !given[f] }); cfg.Split != "" && len(set) > 0 {
		return fmt.Errorf("-split %s and -%s: the split column says each row's split, so there are no shares to set; give one or the other", cfg.Split, strings.Join(set, ", -"))
	}
	if len(cfg.Lambdas) > 0 && given["lambda"] { // -lambdas 5 is -lambda 5; -lambdas 1,5 a fit over several λ
		return fmt.Errorf("-lambda and -lambdas: give one (-lambdas 5 is -lambda 5)")
	}
	if len(cfg.Lambdas) == 1 {
		cfg.Lambda, cfg.Lambdas = cfg.Lambdas[0], nil
	}
	cfg.Names = o.names
	cfg.Args, cfg.Log, cfg.Warn = args, stdout, stderr
	res, err := owndata.Fit(ctx, cfg)
	if err != nil {
		done := 0
		if res != nil {
			done = len(res.Rows)
		}
		kept := fmt.Sprintf("the %d finished method(s) of %d are kept under %s (runs/, models/, results.csv)", done, len(cfg.Methods)*len(cfg.Seeds), cfg.Out)
		// -resume refuses -force; the paths absolute, so that the line works from any folder
		return ownError(o.names, err, kept, resumeLine("fit", absolutePaths(withoutFlag(args, "force"), "data", "out")))
	}
	fmt.Fprintf(stdout, "\nmajority baseline on test: %.3f\n\n", res.Majority)
	fmt.Fprint(stdout, owndata.Markdown(res.Rows))
	fmt.Fprintf(stdout, "\n%s", res.HeldOut)
	if cfg.Out != "" {
		fmt.Fprintf(stdout, "\nWrote %s/results.csv, results.md, heldout.txt, config.json, runs/ and models/\n", cfg.Out)
	}
	return nil
}

// withoutFlag returns args without the boolean flag name (-name, --name, -name=VALUE).
func withoutFlag(args []string, name string) []string {
	var out []string
	for _, a := range args {
		n, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if strings.HasPrefix(a, "-") && n == name {
			continue
		}
		out = append(out, a)
	}
	return out
}

// fitMethods parses fit's -methods: "all" and "ext" name only the methods fit accepts on
// any table (not those needing the true G, which only a simulation knows, nor full, which
// needs Z on every row: name it to train it).
func fitMethods(s string) ([]method.Method, error) {
	ms, err := parseMethods(s)
	if err != nil {
		return nil, err
	}
	if t := strings.ToLower(strings.TrimSpace(s)); t != "all" && t != "ext" {
		return ms, nil
	}
	return slices.DeleteFunc(ms, func(m method.Method) bool { return m.NeedsTrueG() || m.UsesMissingZ() }), nil
}

// absolutePaths returns args with the value of each flag named (-name V, -name=V, with
// one or two dashes) made an absolute path, so that a command line printed to run again
// works from any folder. A value that cannot be made absolute is kept as given.
func absolutePaths(args []string, names ...string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "-") || a == "--" {
			continue
		}
		n, v, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !slices.Contains(names, n) {
			continue
		}
		if !hasValue {
			if i+1 < len(out) {
				i++
				out[i] = absPath(out[i])
			}
			continue
		}
		out[i] = a[:len(a)-len(v)] + absPath(v)
	}
	return out
}

// absPath returns p made absolute, or p when it is empty or cannot be.
func absPath(p string) string {
	if p == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
