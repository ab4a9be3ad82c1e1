// Command invmmd runs the experiments of "Learning Invariant Representations with Missing
// Data" (Goldstein et al., CLeaR 2022) and regenerates the project's tables and figures.
//
// Usage:
//
//	invmmd <command> [flags]
//
// Commands:
//
//	sim       Experiment 1: the simulation, every method × seeds × λ
//	tmnist    Experiment 2: textured MNIST, every method × seeds × λ
//	clinical  Experiment 3: the NMES1988 stand-in, or MIMIC-III with -mimic DIR
//	figures   redraw the figures from the tables under figures/tables, without training
//	prop1     Proposition 1 (appendix D): full-data vs observed-only MMD of h*
//	variance  the variance study of appendix C.3
//	all       every experiment, regenerating figures/ (the README's main job)
//
// Run "invmmd <command> -h" for a command's flags. The backend is the pure-Go one unless
// GOMLX_BACKEND names another (e.g. xla:cpu, xla:cuda).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/prop1"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"sim", "Experiment 1: the simulation, every method × seeds × λ", simSweep.run},
		{"tmnist", "Experiment 2: textured MNIST, every method × seeds × λ", tmnistSweep.run},
		{"clinical", "Experiment 3: the NMES1988 stand-in, or MIMIC-III with -mimic DIR", clinicalSweep().run},
		{"figures", "redraw the results figures from the tables under figures/tables (no training)", runFigures},
		{"prop1", "Proposition 1 (appendix D): full-data vs observed-only MMD of h* in both constructions", runProp1},
		{"variance", "the variance study of appendix C.3 (mean and sd of each estimator against batch size)", runVariance},
		{"all", "every experiment, regenerating figures/", runAll},
	}
}

func main() {
	if err := dispatch(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "invmmd:", err)
		}
		os.Exit(2)
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

// sweepFlags are the flags every experiment command shares.
type sweepFlags struct {
	quick   bool
	methods string
	lambdas string
	seeds   string
	out     string
	verbose bool
}

func (s *sweepFlags) register(fs *flag.FlagSet, lambdas string) {
	fs.BoolVar(&s.quick, "quick", false, "small data and few epochs (minutes), for tests and notebooks")
	fs.StringVar(&s.methods, "methods", "all", "comma-separated methods: none,obs,full,dr,dr+,reg,ip,ip+ and the extensions dr-po,dr-po+; all: the experiment's own list")
	fs.StringVar(&s.lambdas, "lambdas", lambdas, "comma-separated penalty weights λ")
	fs.StringVar(&s.seeds, "seeds", "1,2,3", "comma-separated seeds")
	fs.StringVar(&s.out, "out", "figures", "output folder: tables go to OUT/tables, figures to OUT")
	fs.BoolVar(&s.verbose, "v", false, "show every fit's progress and the auxiliary models' reports")
}

func (s *sweepFlags) config(stderr io.Writer) (experiments.RunConfig, error) {
	var rc experiments.RunConfig
	var err error
	if rc.Methods, err = invmmd.ParseMethods(s.methods); err != nil {
		return rc, err
	}
	if rc.Lambdas, err = parseFloats(s.lambdas, "λ"); err != nil {
		return rc, err
	}
	for _, part := range strings.Split(s.seeds, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(part), 10, 64)
		if err != nil {
			return rc, fmt.Errorf("seed %q is not a non-negative integer", part)
		}
		rc.Seeds = append(rc.Seeds, v)
	}
	rc.TableDir = filepath.Join(s.out, "tables")
	rc.Progress = stderr
	if s.verbose {
		rc.Verbose = stderr
	}
	return rc, nil
}

func parseFloats(s, what string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, fmt.Errorf("%s %q is not a number", what, part)
		}
		if v < 0 {
			return nil, fmt.Errorf("%s = %v, want ≥ 0", what, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// report writes an outcome's tables to stdout and its figure per λ to the output folder.
func report(out *experiments.Outcome, exp experiments.Experiment, dir string, stdout io.Writer) error {
	for _, l := range sortedKeys(out.Rows) {
		files, err := drawResults(out.Rows[l], exp, l, dir, stdout)
		if err != nil {
			return err
		}
		out.Files = append(out.Files, files...)
	}
	fmt.Fprintf(stdout, "%s: %.0f s. Wrote %s\n", exp.Name, out.Seconds, strings.Join(out.Files, ", "))
	return nil
}

// drawResults writes the table of rows at λ to stdout, next to the paper's numbers, and
// its results figure to dir.
func drawResults(rows []experiments.Row, exp experiments.Experiment, l float64, dir string, stdout io.Writer) ([]string, error) {
	sums := experiments.Summarize(rows)
	title := fmt.Sprintf("%s, λ = %s", exp.Title, experiments.LambdaName(l))
	if err := experiments.WriteMarkdown(stdout, title, sums, exp.Paper[l]); err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout)
	plots, err := figures.Results(title, sums, exp.Paper[l], resultOptions(exp.Name)...)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, exp.Name+"_lambda"+experiments.LambdaName(l))
	if err := figures.SaveGrid(plots, base, 2*figures.Width, figures.Height); err != nil {
		return nil, err
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// runFigures redraws the results figures from the tables under OUT/tables, without
// training anything.
func runFigures(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "figures", "folder holding tables/ (read) and the figures (written)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	known := map[string]experiments.Experiment{
		"sim":      experiments.Simulation(experiments.SimulationQuick),
		"tmnist":   experiments.TMNIST(experiments.TMNISTQuick),
		"clinical": experiments.ClinicalNMES(experiments.ClinicalQuick),
	}
	mimicExp := experiments.ClinicalNMES(experiments.ClinicalQuick)
	mimicExp.Name, mimicExp.Title = "mimic", "MIMIC-III"
	known["mimic"] = mimicExp
	paths, err := filepath.Glob(filepath.Join(*out, "tables", "*_lambda*.csv"))
	if err != nil {
		return err
	}
	var files []string
	for _, p := range paths {
		name, lam, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".csv"), "_lambda")
		exp, ok := known[name]
		if !ok {
			fmt.Fprintf(stderr, "invmmd figures: skipping %s (unknown experiment %q)\n", p, name)
			continue
		}
		l, err := strconv.ParseFloat(lam, 64)
		if err != nil {
			return fmt.Errorf("%s: λ %q in the file name is not a number", p, lam)
		}
		rows, err := experiments.ReadCSVFile(p)
		if err != nil {
			return err
		}
		f, err := drawResults(rows, exp, l, *out, stdout)
		if err != nil {
			return err
		}
		files = append(files, f...)
	}
	vp := filepath.Join(*out, "tables", "variance.csv")
	if _, err := os.Stat(vp); err == nil {
		pts, err := experiments.ReadVarianceCSV(vp)
		if err != nil {
			return err
		}
		plots, err := figures.Variance(pts)
		if err != nil {
			return err
		}
		base := filepath.Join(*out, "variance")
		if err := figures.SaveGrid(plots, base, 2*figures.Width, figures.Height); err != nil {
			return err
		}
		files = append(files, base+".png", base+".svg")
	}
	if len(files) == 0 {
		return fmt.Errorf("no result tables under %s: run an experiment first (e.g. invmmd sim)", filepath.Join(*out, "tables"))
	}
	fmt.Fprintf(stdout, "Wrote %s\n", strings.Join(files, ", "))
	return nil
}

func sortedKeys[T any](m map[float64]T) []float64 {
	var ks []float64
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

func runAll(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("all", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small data and few epochs")
	out := fs.String("out", "figures", "output folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	q := []string{"-out", *out}
	if *quick {
		q = append(q, "-quick")
	}
	for _, c := range []string{"sim", "tmnist", "clinical", "variance"} {
		if err := dispatch(append([]string{c}, q...), stdout, stderr); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

func runVariance(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("variance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "7 batch sizes × 30 batches and a small training run")
	out := fs.String("out", "figures", "output folder: the table goes to OUT/tables, the figure to OUT")
	batches := fs.Int("batches", 0, "batches per size (0: 100, or 30 with -quick)")
	seed := fs.Uint64("seed", 1, "seed of the training run and of the batches")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := experiments.VariancePaper()
	if *quick {
		cfg = experiments.VarianceQuick()
	}
	if *batches > 0 {
		cfg.Batches = *batches
	}
	cfg.Seed = *seed
	cfg.TableDir = filepath.Join(*out, "tables")
	cfg.Progress = stderr
	res, err := experiments.Variance(cfg)
	if err != nil {
		return err
	}
	plots, err := figures.Variance(res.Points)
	if err != nil {
		return err
	}
	base := filepath.Join(*out, "variance")
	if err := figures.SaveGrid(plots, base, 2*figures.Width, figures.Height); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "variance study: %d sizes × %d batches × %d estimators in %.1f s (estimators %.1f s, training %.1f s, pool of %d rows)\n",
		len(cfg.Sizes), cfg.Batches, len(cfg.Methods), res.Seconds, res.EstimateSeconds, res.TrainSeconds, res.PoolRows)
	last := cfg.Sizes[len(cfg.Sizes)-1]
	for _, p := range res.Points {
		if p.BatchSize == last || p.BatchSize == cfg.Sizes[0] {
			fmt.Fprintf(stdout, "  %-4s n=%-5d mean %.4f  sd %.4f  (empty strata %d, floored normalisers %d)\n", p.Estimator, p.BatchSize, p.Mean, p.Std, p.Empty, p.Floored)
		}
	}
	fmt.Fprintf(stdout, "Wrote %s, %s.png, %s.svg\n", strings.Join(res.Files, ", "), base, base)
	return nil
}

func runProp1(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prop1", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "seed of every draw")
	n := fs.Int("n", 0, "rows per slice and repetition (0: 2000)")
	reps := fs.Int("reps", 0, "repetitions per slice (0: 40)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	res, err := prop1.Run(prop1.Config{Seed: *seed, N: *n, Reps: *reps, Progress: stderr})
	if err != nil {
		return err
	}
	return res.Write(stdout)
}

// sweep is an experiment command: the shared flags, the experiment it builds, and what it
// draws besides the results figures.
type sweep struct {
	name    string
	lambdas string // default -lambdas
	methods string // default -methods for "all"; "" means every method
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet)
	// experiment builds the experiment for the quick or the paper-size run.
	experiment func(quick bool) (experiments.Experiment, error)
	// extra draws further figures into dir after the sweep and returns their files.
	extra func(rc experiments.RunConfig, dir string) ([]string, error)
}

func (sw sweep) run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(sw.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf sweepFlags
	sf.register(fs, sw.lambdas)
	if sw.flags != nil {
		sw.flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if sf.methods == "all" && sw.methods != "" {
		sf.methods = sw.methods
	}
	rc, err := sf.config(stderr)
	if err != nil {
		return err
	}
	exp, err := sw.experiment(sf.quick)
	if err != nil {
		return err
	}
	out, err := experiments.Run(exp, rc)
	if err != nil {
		return err
	}
	if sw.extra != nil {
		files, err := sw.extra(rc, sf.out)
		if err != nil {
			return err
		}
		out.Files = append(out.Files, files...)
	}
	return report(out, exp, sf.out, stdout)
}

var simSweep = sweep{name: "sim", lambdas: "1,5", methods: "none,obs,full,dr,dr+,reg,ip,ip+,dr-po,dr-po+",
	experiment: func(quick bool) (experiments.Experiment, error) {
		if quick {
			return experiments.Simulation(experiments.SimulationQuick), nil
		}
		return experiments.Simulation(experiments.SimulationPaper), nil
	}}

var tmnistSweep = sweep{name: "tmnist", lambdas: "1,5",
	experiment: func(quick bool) (experiments.Experiment, error) {
		if err := tmnist.Available(tmnist.DefaultConfig()); err != nil {
			return experiments.Experiment{}, err
		}
		if quick {
			return experiments.TMNIST(experiments.TMNISTQuick), nil
		}
		return experiments.TMNIST(experiments.TMNISTPaper), nil
	},
	// The examples figure: a grid of images per (Y, Z) cell, train and test, first seed.
	extra: func(rc experiments.RunConfig, dir string) ([]string, error) {
		cfg := tmnist.DefaultConfig()
		cfg.Seed = rc.Seeds[0]
		sp, _, err := tmnist.Build(cfg)
		if err != nil {
			return nil, err
		}
		p, w, h, err := figures.TMNISTGrid([]*dataset.Set{sp.Train, sp.Test}, 8, [2]string{"grass, dark", "brick, light"})
		if err != nil {
			return nil, err
		}
		base := filepath.Join(dir, "tmnist_examples")
		return []string{base + ".png", base + ".svg"}, figures.Save(p, base, w, h)
	}}

func clinicalSweep() sweep {
	var mimicDir string
	return sweep{name: "clinical", lambdas: "1", methods: "none,obs,full,dr,reg,ip",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&mimicDir, "mimic", "", "folder of the MIMIC-III v1.4 CSV files (ICUSTAYS, ADMISSIONS, PATIENTS, LABEVENTS, CHARTEVENTS; .csv or .csv.gz); empty runs the NMES1988 stand-in")
		},
		experiment: func(quick bool) (experiments.Experiment, error) {
			size := experiments.ClinicalPaper
			if quick {
				size = experiments.ClinicalQuick
			}
			if mimicDir != "" {
				exp := experiments.ClinicalMIMIC(mimicDir, size)
				exp.Name = "mimic"
				return exp, nil
			}
			return experiments.ClinicalNMES(size), nil
		}}
}
