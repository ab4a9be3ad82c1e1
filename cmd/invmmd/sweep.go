package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// sweepFlags are the flags every experiment command shares.
type sweepFlags struct {
	quick   bool
	methods string
	lambdas string
	seeds   string
	out     string
	shard   string
	resume  bool
	batch   int
	verbose bool
	check   bool
	force   bool
	// objective is the name of the training objective (train.Objectives).
	objective string
	// represent is the layer the penalty acts on: logits or features (train.Representation).
	represent string
}

// register adds the shared flags to fs; their defaults are said from the study's sweeps.
func (s *sweepFlags) register(fs *flag.FlagSet, e *experiments.SweepStudy) {
	paper, quick := e.DefaultSweep(false), e.DefaultSweep(true)
	fs.BoolVar(&s.quick, "quick", false, "small data and few epochs (minutes), for tests and notebooks; writes to "+quickOut()+" unless -out is given")
	fs.StringVar(&s.methods, "methods", "", "comma-separated methods: "+method.List(method.Paper())+" and the extensions "+method.List(method.Extensions())+"; all: the experiment's own list (above); default: all, or "+method.List(quick.Methods)+" with -quick")
	fs.StringVar(&s.lambdas, "lambdas", "", "comma-separated penalty weights λ (finite, ≥ 0); default: the experiment's (above), or "+lambdaNames(quick.Lambdas)+" with -quick")
	fs.StringVar(&s.seeds, "seeds", "", "comma-separated seeds; default: "+seedNames(paper.Seeds)+", or "+seedNames(quick.Seeds)+" with -quick")
	fs.StringVar(&s.out, "out", "", "output folder: per-fit results go to OUT/fits, tables to OUT/tables, figures to OUT (default figures/, or "+quickOut()+" with -quick)")
	fs.StringVar(&s.shard, "shard", "", "i/n: run only the i-th of n slices of the fit grid (1 ≤ i ≤ n) and write their result files; then invmmd merge -out OUT")
	fs.BoolVar(&s.resume, "resume", false, "skip fits whose result file exists under OUT/fits (made with the same configuration)")
	if e.TakesBatch() {
		fs.Var(intValue{&s.batch}, "batch", "rows per training step of h (clinical: of G and m too); 0 keeps the experiment's own")
	}
	fs.StringVar(&s.objective, "objective", "paper", "what training minimises and selection compares, one of "+train.ObjectiveNames()+"; the default here is paper, the paper's objective, because the experiment commands reproduce the paper's protocol (invmmd fit, for your own data, defaults to robust); another than paper stores results under NAME_SUFFIX (docs/training.md)")
	fs.StringVar(&s.represent, "represent", "logits", "the layer of h the MMD penalty acts on: logits (the paper's) or features (the penultimate layer, as DomainBed's MMD penalises the featurizer's output; σ by the median heuristic on the initial network's training features); features stores results under NAME"+experiments.FeaturesSuffix)
	fs.BoolVar(&s.verbose, "v", false, "show every fit's progress and the auxiliary models' reports")
	fs.BoolVar(&s.check, "check", false, "check the flags, the inputs, the output folder and the configuration stored there, then exit without training or writing anything (scripts/slurm/sweep.sh does, before submitting); with -v, list the shard's result files")
	fs.BoolVar(&s.force, "force", false, "replace the tables under OUT/tables even when they were made with another configuration or hold fits this run leaves out (methods, λ, seeds), and let -quick write into the repository's figures/")
}

// config fills the grid flags left empty with the study's default sweep (with -quick its
// quick one), "-methods all" with the paper-size sweep's methods, and parses them into a
// RunConfig, before any work.
func (s *sweepFlags) config(e *experiments.SweepStudy, stderr io.Writer) (experiments.RunConfig, error) {
	def := e.DefaultSweep(s.quick)
	switch s.methods {
	case "":
		s.methods = method.List(def.Methods)
	case "all":
		s.methods = method.List(e.DefaultSweep(false).Methods)
	}
	if s.lambdas == "" {
		s.lambdas = lambdaNames(def.Lambdas)
	}
	if s.seeds == "" {
		s.seeds = seedNames(def.Seeds)
	}
	var rc experiments.RunConfig
	var err error
	if rc.Methods, err = parseMethods(s.methods); err != nil {
		return rc, err
	}
	if rc.Lambdas, err = parseLambdas(s.lambdas); err != nil {
		return rc, err
	}
	if rc.Seeds, err = parseSeeds(s.seeds); err != nil {
		return rc, err
	}
	if s.shard != "" {
		if rc.Shard, err = store.ParseShard(s.shard); err != nil {
			return rc, fmt.Errorf("-shard: %w", err)
		}
	}
	if err := checkBatch(s.batch); err != nil {
		return rc, err
	}
	rc.Resume = s.resume
	rc.Progress = stderr
	if s.verbose {
		rc.Verbose = stderr
	}
	return rc, nil
}

// lambdaNames joins the λ with commas, as -lambdas takes them.
func lambdaNames(ls []float64) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = results.LambdaName(l)
	}
	return strings.Join(parts, ",")
}

// seedNames joins the seeds with commas, as -seeds takes them.
func seedNames(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ",")
}

// optionFlags registers on fs a flag for each tagged field of a fresh copy of the sweep's
// options (experiments.OptionFields), and returns the options the flags set.
func optionFlags(fs *flag.FlagSet, s experiments.Study) (any, error) {
	o := s.Sweep.NewOptions()
	fields, err := experiments.OptionFields(o)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !scalarFlag(fs, f.Ptr, f.Flag, f.Help) {
			return nil, fmt.Errorf("%s: option -%s of type %T", s.Name, f.Flag, f.Ptr)
		}
	}
	return o, nil
}

// scalarFlag registers on fs the flag name of the scalar p points to (*bool, *string, *int,
// *uint64 or *float64), its default the value there, and reports whether p was one: the
// one switch of a tagged field's type to its flag, for the sweeps' options.
func scalarFlag(fs *flag.FlagSet, p any, name, help string) bool {
	switch p := p.(type) {
	case *bool:
		fs.BoolVar(p, name, *p, help)
	case *string:
		fs.StringVar(p, name, *p, help)
	case *int:
		fs.Var(intValue{p}, name, help)
	case *uint64:
		fs.Var(uintValue{p}, name, help)
	case *float64:
		fs.Var(floatValue{p}, name, help)
	default:
		return false
	}
	return true
}

// runSweep runs study s's command line args: the experiment of the variant the flags
// choose, over its grid (or a shard of it), then for a whole run its tables and figures.
// Before any work it refuses tables it would replace (guardTables) and a quick run into
// figures/. Once ctx is done it stops after the training step in progress, keeping every
// finished fit, and says how to go on.
func runSweep(ctx context.Context, s experiments.Study, args []string, stdout, stderr io.Writer) error {
	e := s.Sweep
	var sf sweepFlags
	all := method.List(e.DefaultSweep(false).Methods)
	paper, quick := e.DefaultSweep(false), e.DefaultSweep(true)
	fs := newFlags(s.Name, "[flags]", stdout, stderr, func() string {
		return "methods (-methods all): " + all + "\n" +
			"default grid: λ " + lambdaNames(paper.Lambdas) + ", seeds " + seedNames(paper.Seeds) + "; with -quick: methods " + method.List(quick.Methods) + ", λ " + lambdaNames(quick.Lambdas) + ", seeds " + seedNames(quick.Seeds) + "\n\n" +
			"Each fit's result is written to OUT/fits/" + s.Name + "/ when it is done, and the tables are\nassembled from those files; -resume skips fits already done, -shard i/n runs a slice of the grid.\n" +
			"Tables already under OUT/tables are replaced only by a run of the same configuration holding all their fits (or with -force)."
	})
	sf.register(fs, e)
	opts, err := optionFlags(fs, s)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := refuseEmpty(fs, map[string]string{
		"methods": "the experiment's list, or " + method.List(quick.Methods) + " with -quick",
		"lambdas": lambdaNames(paper.Lambdas) + ", or " + lambdaNames(quick.Lambdas) + " with -quick",
		"seeds":   seedNames(paper.Seeds) + ", or " + seedNames(quick.Seeds) + " with -quick",
	}); err != nil {
		return err
	}
	v := experiments.Variant{Options: opts}
	if v.Objective, err = train.ObjectiveByName(sf.objective); err != nil {
		return fmt.Errorf("-objective: %w", err)
	}
	if v.Represent, err = train.ParseRepresentation(sf.represent); err != nil {
		return fmt.Errorf("-represent: %w", err)
	}
	exp, err := e.Build(sf.quick, sf.batch, v)
	if err != nil {
		return err
	}
	rc, err := sf.config(e, stderr)
	if err != nil {
		return err
	}
	out, err := outFor(sf.out, sf.quick, sf.force)
	if err != nil {
		return err
	}
	sw, err := experiments.SweepOf(exp, rc)
	if err != nil {
		return err
	}
	if err := guardTables(out, sw, sf.force); err != nil {
		return err
	}
	if sf.check {
		return check(exp, rc, sw, out, sf.verbose, stdout)
	}
	if err := prepareOut(out); err != nil {
		return err
	}
	rc.StoreDir = out
	fmt.Fprintf(stderr, "invmmd %s: results under %s\n", s.Name, out)
	kept := "every finished fit is kept under " + store.Dir(out, exp.Name)
	res, err := runUntilDone(ctx, s.Name, args, kept, func() (*experiments.Outcome, error) {
		return experiments.Run(ctx, exp, rc)
	})
	if err != nil {
		return err
	}
	if rc.Shard.N > 1 {
		fmt.Fprintf(stdout, "%s shard %v: %d fits (%d resumed) in %.0f s, written to %s. When every shard is done: invmmd merge -out %s\n",
			exp.Name, rc.Shard, len(res.Fits), res.Skipped, res.Seconds, store.Dir(out, exp.Name), out)
		return nil
	}
	_, err = s.Merge(ctx, mergeArgs(out, sf.force, stdout), exp.Name)
	return err
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

// check checks exp's result store under out without writing anything and reports how
// many fits the run or shard holds; with list, it lists their result files.
func check(exp experiments.Experiment, rc experiments.RunConfig, sw store.Sweep, out string, list bool, stdout io.Writer) error {
	if err := store.Check(out, sw); err != nil {
		return err
	}
	shard := cmp.Or(rc.Shard, store.All)
	keys := experiments.Grid(sw.Methods, sw.Lambdas, sw.Seeds)
	lo, hi := shard.Range(len(keys))
	fmt.Fprintf(stdout, "%s: %d fits in all; shard %v holds %d; results under %s\n", exp.Name, len(keys), shard, hi-lo, out)
	if list {
		for _, k := range keys[lo:hi] {
			fmt.Fprintln(stdout, filepath.Join("fits", exp.Name, k.FileName()))
		}
	}
	return nil
}
