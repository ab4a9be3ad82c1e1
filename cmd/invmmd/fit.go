package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/train"
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
	o := &ownCommand{fs: fs, stderr: stderr}
	o.columns(&cfg.Columns, "comma-separated feature columns (default: every column but -y, -z and -split; a text column with about one value per row, "+
		"or a numeric column of row numbers, is refused unless named here)")
	o.hidden = widths(cfg.Hidden)
	fs.StringVar(&o.hidden, "hidden", o.hidden, "hidden layer widths of every MLP (h, G and m), each at most 65536")
	fs.Var(intValue{&cfg.Epochs}, "epochs", "the cap `n` on training epochs of h (the best epoch by validation objective is kept)")
	fs.Var(intValue{&cfg.Patience}, "patience", "stop h's training after `n` epochs without a better validation objective (0: train to -epochs)")
	fs.Var(intValue{&cfg.AuxEpochs}, "aux-epochs", "the cap `n` on training epochs of G and m (the best epoch by validation NLL is kept)")
	fs.Var(intValue{&cfg.AuxPatience}, "aux-patience", "stop the training of G and m after `n` epochs without a better validation NLL (0: train to -aux-epochs)")
	fs.Var(intValue{&cfg.Batch}, "batch", "`rows` per training step of h, G and m (capped at the training rows); smaller batches leave fewer effective rows per stratum in the penalty")
	fs.Var(floatValue{&cfg.LearningRate}, "lr", "Adam learning `rate` of every network, in (0, 1]")
	fs.Var(floatValue{&cfg.MinESS}, "min-ess", "Kish effective sample size `ess` under which a stratum is flagged unreliable (and dropped from the training penalty, unless -keep-unreliable)")
	fs.Var(uintValue{&cfg.AuxSeed}, "aux-seed", "`seed` of G and m")
	fs.StringVar(&cfg.Split, "split", cfg.Split, "column whose values (train, val, test) give each row's split (default: a random split by -val-frac and -test-frac)")
	fs.Var(floatValue{&cfg.ValFrac}, "val-frac", "`share` of rows for validation, without -split")
	fs.Var(floatValue{&cfg.TestFrac}, "test-frac", "`share` of rows for test, without -split")
	methods := fs.String("methods", method.List(cfg.Methods), "comma-separated methods to train h with (see above)")
	fs.Var(floatValue{&cfg.Lambda}, "lambda", "penalty weight `λ`, from 0 to 1e6")
	lambdas := fs.String("lambdas", "", "comma-separated penalty weights: each penalised method trained at each λ, none once, G and m fitted once; models/METHOD-lambdaL-seedS (one value: as -lambda)")
	seeds := fs.String("seeds", seedList(cfg.Seeds), "comma-separated seeds of h (and of the random split: the first)")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "output folder (see above), checked and locked before anything is read or fitted; \"\" writes nothing")
	fs.StringVar(&cfg.Objective, "objective", cfg.Objective, "what training minimises and selection compares, one of "+train.ObjectiveNames()+": robust (the default here) estimates the normalisers once on the training split and selects the epoch with each stratum's estimate clipped at 0; paper is the paper's objective, the default of the experiment commands (sim, tmnist, ...), which reproduce the paper's protocol (docs/training.md)")
	fs.StringVar(&cfg.Represent, "represent", "logits", "the layer of h the MMD penalty acts on: logits (the paper's) or features (h's last hidden layer, a binary label only, σ by the median heuristic on the initial network's training features; the held-out MMD² is then on the features)")
	o.bandwidth("Gaussian kernel bandwidth σ of the held-out estimates and tests on the test split, or median (the median heuristic on h, as estimate and test); the training penalty's σ is 1")
	fs.BoolVar(&cfg.KeepUnreliable, "keep-unreliable", cfg.KeepUnreliable, "keep strata flagged unreliable in the training penalty (the paper's behaviour); by default they are dropped, with a warning")
	fs.BoolVar(&cfg.Force, "force", false, "write into an -out folder holding results of other settings or data, or of methods and seeds this run does not list, after removing those results")
	fs.BoolVar(&cfg.Resume, "resume", false, "keep the methods whose files under -out were made with the same settings and data instead of training them again")
	if err := o.parse(args, &cfg.Columns, &cfg.Nets, &cfg.Bandwidth, &cfg.Median); err != nil {
		return err
	}
	if cfg.Resume && cfg.Force {
		return fmt.Errorf("-resume and -force: -resume keeps the finished methods under -out %s, and -force removes every result there when any does not match this run's settings and data; give -resume to go on, or -force to start again", cfg.Out)
	}
	if cfg.Split != "" {
		var set []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "val-frac" || f.Name == "test-frac" {
				set = append(set, "-"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("-split %s and %s: the split column says each row's split, so there are no shares to set; give one or the other", cfg.Split, strings.Join(set, ", "))
		}
	}
	var err error
	if cfg.Lambda, cfg.Lambdas, err = fitLambdas(fs, *lambdas, cfg.Lambda); err != nil {
		return err
	}
	if cfg.Methods, err = fitMethods(*methods); err != nil {
		return err
	}
	if cfg.Seeds, err = parseSeeds(*seeds); err != nil {
		return err
	}
	cfg.Args, cfg.Log, cfg.Warn = args, stdout, stderr
	res, err := owndata.Fit(ctx, cfg)
	if err != nil {
		done := 0
		if res != nil {
			done = len(res.Rows)
		}
		kept := fmt.Sprintf("the %d finished method(s) of %d are kept under %s (runs/, models/, results.csv)", done, len(cfg.Methods)*len(cfg.Seeds), cfg.Out)
		// -resume refuses -force; the paths absolute, so that the line works from any folder
		return ownError(err, kept, resumeLine("fit", absolutePaths(withoutFlag(args, "force"), "data", "out")))
	}
	fmt.Fprintf(stdout, "\nmajority baseline on test: %.3f\n\n", res.Majority)
	fmt.Fprint(stdout, owndata.Markdown(res.Rows))
	fmt.Fprintf(stdout, "\n%s", res.HeldOut)
	if cfg.Out != "" {
		fmt.Fprintf(stdout, "\nWrote %s/results.csv, results.md, heldout.txt, config.json, runs/ and models/\n", cfg.Out)
	}
	return nil
}

// fitLambdas reads fit's -lambdas beside -lambda: one value is -lambda (the same files),
// two or more the list of a fit over several λ.
func fitLambdas(fs *flag.FlagSet, list string, lambda float64) (float64, []float64, error) {
	if list == "" {
		return lambda, nil, nil
	}
	both := false
	fs.Visit(func(f *flag.Flag) { both = both || f.Name == "lambda" })
	if both {
		return 0, nil, fmt.Errorf("-lambda and -lambdas: give one (-lambdas 5 is -lambda 5)")
	}
	ls, err := parseLambdas(list)
	if err != nil {
		return 0, nil, err
	}
	if len(ls) == 1 {
		return ls[0], nil, nil
	}
	return lambda, ls, nil
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

// seedList renders seeds as -seeds takes them.
func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ",")
}
