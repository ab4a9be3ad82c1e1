package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/train"
)

// tableFlags are the flags that say which columns of a CSV file are what (fit and
// estimate), with their defaults taken from c.
type tableFlags struct {
	c *owndata.Columns
	x string
}

// register adds -data, -y, -z, -y-positive, -z-positive and -x to fs; xHelp says what
// -x is for and its default in this command.
func (t *tableFlags) register(fs *flag.FlagSet, c *owndata.Columns, xHelp string) {
	t.c = c
	fs.StringVar(&c.Data, "data", c.Data, "CSV file with a header line (required)")
	fs.StringVar(&c.Y, "y", c.Y, "label column (required): binary (0/1, or two values with -y-positive), or K > 2 classes (text or integer codes; classes in byte or numeric order)")
	fs.StringVar(&c.Z, "z", c.Z, "nuisance column (several, comma-separated, for a vector nuisance); empty, NA or NaN cells are missing Z (required)")
	fs.StringVar(&c.ZKind, "z-kind", c.ZKind, "the nuisance's kind: binary, categorical, continuous or vector (default: inferred from the column and printed); "+
		"a nuisance that is not binary is estimated and penalised by the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum")
	fs.Float64Var(&c.ZMap.Bandwidth, "z-bandwidth", c.ZMap.Bandwidth, "σ of the Gaussian kernel on a continuous or vector Z (0: the median of the distances between observed Z)")
	fs.IntVar(&c.ZMap.Features, "z-features", c.ZMap.Features, "random Fourier frequencies of the kernel on a vector Z (0: 16; 2 features each)")
	fs.StringVar(&c.YPositive, "y-positive", c.YPositive, "the label's value read as Y = 1, when the column is binary and not 0/1 (refused for a label of more than two classes)")
	fs.StringVar(&c.ZPositive, "z-positive", c.ZPositive, "the nuisance's value read as Z = 1, when the column is not 0/1")
	fs.StringVar(&t.x, "x", strings.Join(c.X, ","), xHelp)
}

// check refuses a command line without the required flags, before any work, and sets the
// feature columns from -x.
func (t *tableFlags) check(extra ...[2]string) error {
	for _, f := range append([][2]string{{"data", t.c.Data}, {"y", t.c.Y}, {"z", t.c.Z}}, extra...) {
		if f[1] == "" {
			return fmt.Errorf("flag -%s is required", f[0])
		}
	}
	t.c.X = nil
	for _, c := range strings.Split(t.x, ",") {
		if c = strings.TrimSpace(c); c != "" {
			t.c.X = append(t.c.X, c)
		}
	}
	return nil
}

// netFlags are the network and training flags shared by fit and estimate, with their
// defaults taken from n.
type netFlags struct {
	n      *owndata.Nets
	hidden string
}

// register adds the network flags to fs; withH adds those of h (-epochs, -patience),
// which only fit trains.
func (f *netFlags) register(fs *flag.FlagSet, n *owndata.Nets, withH bool) {
	f.n = n
	widths := make([]string, len(n.Hidden))
	for i, w := range n.Hidden {
		widths[i] = strconv.Itoa(w)
	}
	if !withH {
		fs.StringVar(&f.hidden, "hidden", strings.Join(widths, ","), "hidden layer widths of the MLPs fitted for G and m")
	} else {
		fs.StringVar(&f.hidden, "hidden", strings.Join(widths, ","), "hidden layer widths of every MLP (h, G and m)")
		fs.IntVar(&n.Epochs, "epochs", n.Epochs, "the cap on training epochs of h (the best epoch by validation objective is kept)")
		fs.IntVar(&n.Patience, "patience", n.Patience, "stop h's training after this many epochs without a better validation objective (0: train to -epochs)")
	}
	fs.IntVar(&n.AuxEpochs, "aux-epochs", n.AuxEpochs, "the cap on training epochs of G and m (the best epoch by validation NLL is kept)")
	fs.IntVar(&n.AuxPatience, "aux-patience", n.AuxPatience, "stop the training of G and m after this many epochs without a better validation NLL (0: train to -aux-epochs)")
	fs.IntVar(&n.Batch, "batch", n.Batch, "rows per step (capped at the training rows); smaller batches leave fewer effective rows per stratum")
	fs.Float64Var(&n.LearningRate, "lr", n.LearningRate, "Adam learning rate")
	fs.Float64Var(&n.MinESS, "min-ess", n.MinESS, "Kish effective sample size under which a stratum is flagged unreliable (and dropped from the training penalty)")
	fs.Uint64Var(&n.AuxSeed, "aux-seed", n.AuxSeed, "seed of G and m")
}

// parse sets the hidden widths from -hidden and checks every network setting.
func (f *netFlags) parse() error {
	f.n.Hidden = nil
	for _, p := range strings.Split(f.hidden, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return fmt.Errorf("-hidden %q: want comma-separated positive widths", f.hidden)
		}
		f.n.Hidden = append(f.n.Hidden, v)
	}
	return f.n.Validate()
}

// fitMore is the text of fit -h between the usage line and the flags: the methods and
// the files written.
func fitMore() string {
	return "methods: " + method.List(method.Paper()) + " and the extensions " + method.List(method.Extensions()) + " (full only when no Z is missing; ip+, dr+ and dr-po+ need the true G, which only a simulation knows)\n\n" +
		"Writes to -out: config.json (the settings, written first), runs/METHOD-seedS.json and models/METHOD-seedS/\n" +
		"(one per method and seed, as each finishes), and results.csv, results.md (the table with what it was fitted on\n" +
		"and where each network stopped: every one stops after -patience / -aux-patience epochs without a better\n" +
		"validation objective, or at -epochs / -aux-epochs)\n" +
		"and heldout.txt (each model's held-out dr and ip estimates with their terms and diagnostics, and the p-values of\n" +
		"the tests of h ⊥ Z | Y on the test split by their pseudo-outcomes, cross route: G and m were fitted on the\n" +
		"training split, so the test rows are out of sample; the p dr and p ip columns), rewritten as each\n" +
		"method finishes. A folder holding results of other settings is refused (-force replaces them); -resume keeps\n" +
		"the finished methods. Score new rows with: invmmd predict -model OUT/models/METHOD-seedS -data FILE.csv"
}

// runFit runs the own-data workflow (owndata.Fit) and prints its report and table. Once
// ctx is done it stops, keeping every finished method's files, and says how to go on.
func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultConfig()
	fs := newFlags("fit", "-data FILE.csv -y COL -z COL [-x COLS] [-split COL | -val-frac F -test-frac F] [-methods ...] [-lambda L] [-seeds ...] [-out DIR]", stdout, stderr, fitMore)
	var tf tableFlags
	var nf netFlags
	tf.register(fs, &cfg.Columns, "comma-separated feature columns (default: every column but -y, -z and -split; a text column with about one value per row is refused unless named here)")
	nf.register(fs, &cfg.Nets, true)
	fs.StringVar(&cfg.Split, "split", cfg.Split, "column whose values (train, val, test) give each row's split (default: a random split by -val-frac and -test-frac)")
	fs.Float64Var(&cfg.ValFrac, "val-frac", cfg.ValFrac, "share of rows for validation, without -split")
	fs.Float64Var(&cfg.TestFrac, "test-frac", cfg.TestFrac, "share of rows for test, without -split")
	methods := fs.String("methods", method.List(cfg.Methods), "comma-separated methods to train h with (see above)")
	fs.Float64Var(&cfg.Lambda, "lambda", cfg.Lambda, "penalty weight λ")
	seeds := fs.String("seeds", seedList(cfg.Seeds), "comma-separated seeds of h (and of the random split: the first)")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "output folder (see above), checked before anything is fitted")
	fs.StringVar(&cfg.Objective, "objective", cfg.Objective, "what training minimises and selection compares, one of "+train.ObjectiveNames()+": robust (default) estimates the normalisers once on the training split and selects the epoch with each stratum's estimate clipped at 0; paper is the paper's objective (README, Training choices)")
	fs.StringVar(&cfg.Represent, "represent", "logits", "the layer of h the MMD penalty acts on: logits (the paper's) or features (h's last hidden layer, σ by the median heuristic on the initial network's training features; the held-out MMD² is then on the features)")
	fs.BoolVar(&cfg.KeepUnreliable, "keep-unreliable", cfg.KeepUnreliable, "keep strata flagged unreliable in the training penalty (the paper's behaviour); by default they are dropped, with a warning")
	fs.BoolVar(&cfg.Force, "force", false, "write into an -out folder holding results of other settings, or of methods and seeds this run does not list, after removing those results")
	fs.BoolVar(&cfg.Resume, "resume", false, "keep the methods whose files under -out were made with the same settings instead of training them again")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := tf.check(); err != nil {
		return err
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
	if cfg.Methods, err = parseMethods(*methods); err != nil {
		return err
	}
	if cfg.Seeds, err = parseSeeds(*seeds); err != nil {
		return err
	}
	if err := nf.parse(); err != nil {
		return err
	}
	cfg.Args, cfg.Log, cfg.Warn, cfg.Context = args, stdout, stderr, ctx
	kept := "every finished method is kept under " + cfg.Out + " (runs/, models/, results.csv)"
	var res *owndata.Result
	err = runUntilDone(ctx, "fit", args, kept, func() error {
		var err error
		res, err = owndata.Fit(cfg)
		return err
	})
	if errors.Is(err, context.Canceled) {
		return &interrupted{kept: kept, resume: resumeLine("fit", args)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nmajority baseline on test: %.3f\n\n", res.Majority)
	fmt.Fprint(stdout, owndata.Markdown(res.Rows))
	fmt.Fprintf(stdout, "\n%s", res.HeldOut)
	fmt.Fprintf(stdout, "\nWrote %s/results.csv, results.md, heldout.txt, config.json, runs/ and models/\n", cfg.Out)
	return nil
}

// seedList renders seeds as -seeds takes them.
func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(s, ",")
}
