package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/clinical"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/tmnist"
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
}

func (s *sweepFlags) register(fs *flag.FlagSet, batch bool) {
	fs.BoolVar(&s.quick, "quick", false, "small data and few epochs (minutes), for tests and notebooks; writes to "+quickOut()+" unless -out is given")
	fs.StringVar(&s.methods, "methods", "", "comma-separated methods: "+methodNames(invmmd.Methods)+" and the extensions "+methodNames(invmmd.Extensions)+"; all: the experiment's own list (above); default: all, or "+methodNames(experiments.QuickMethods)+" with -quick")
	fs.StringVar(&s.lambdas, "lambdas", "", "comma-separated penalty weights λ (finite, ≥ 0); default: the experiment's (above), or 1 with -quick")
	fs.StringVar(&s.seeds, "seeds", "", "comma-separated seeds; default: "+seedNames(experiments.PaperSeeds)+", or 1 with -quick")
	fs.StringVar(&s.out, "out", "", "output folder: per-fit results go to OUT/fits, tables to OUT/tables, figures to OUT (default figures/, or "+quickOut()+" with -quick)")
	fs.StringVar(&s.shard, "shard", "", "i/n: run only the i-th of n slices of the fit grid (1 ≤ i ≤ n) and write their result files; then invmmd merge -out OUT")
	fs.BoolVar(&s.resume, "resume", false, "skip fits whose result file exists under OUT/fits (made with the same configuration)")
	if batch {
		fs.IntVar(&s.batch, "batch", 0, "rows per training step of h (clinical: of G and m too); 0 keeps the experiment's own")
	}
	fs.BoolVar(&s.verbose, "v", false, "show every fit's progress and the auxiliary models' reports")
	fs.BoolVar(&s.check, "check", false, "check the flags, the output folder and the configuration stored there, then exit without training (scripts/slurm/sweep.sh does, before submitting); with -v, list the shard's result files")
}

// config parses the grid flags into a RunConfig; every error comes before any work.
func (s *sweepFlags) config(stderr io.Writer) (experiments.RunConfig, error) {
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

// defaults fills the grid flags left empty with the experiment's default sweep
// (experiments.PaperSweep, or experiments.QuickSweep with -quick), and "-methods all"
// with all, the experiment's own list.
func (s *sweepFlags) defaults(name, all string) {
	def := experiments.PaperSweep(name)
	if s.quick {
		def = experiments.QuickSweep(name)
	}
	switch s.methods {
	case "":
		s.methods = methodNames(def.Methods)
	case "all":
		s.methods = all
	}
	if s.lambdas == "" {
		var parts []string
		for _, l := range def.Lambdas {
			parts = append(parts, experiments.LambdaName(l))
		}
		s.lambdas = strings.Join(parts, ",")
	}
	if s.seeds == "" {
		s.seeds = seedNames(def.Seeds)
	}
}

// methodNames joins the methods' names with commas, as -methods takes them.
func methodNames(ms []invmmd.Method) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.String()
	}
	return strings.Join(names, ",")
}

// seedNames joins the seeds with commas, as -seeds takes them.
func seedNames(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ",")
}

// sweep is an experiment command: the shared flags, the experiment it builds, and what it
// draws besides the results figures.
type sweep struct {
	name    string
	methods string // what -methods all runs; "" means the paper's methods
	batch   bool   // whether the experiment has a batch size (-batch)
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet)
	// experiment builds the experiment for the quick or the paper-size run, with h's, G's
	// and m's batch size batch (0: the experiment's own).
	experiment func(quick bool, batch int) (experiments.Experiment, error)
}

// allMethods is what "-methods all" runs for the sweep.
func (sw sweep) allMethods() string {
	if sw.methods != "" {
		return sw.methods
	}
	return methodNames(invmmd.Methods)
}

func (sw sweep) run(args []string, stdout, stderr io.Writer) error {
	var sf sweepFlags
	fs := newFlags(sw.name, "[flags]", stderr, func() string {
		return "methods (-methods all): " + sw.allMethods() + "\n\nEach fit's result is written to OUT/fits/" + sw.name + "/ when it is done, and the tables are\nassembled from those files; -resume skips fits already done, -shard i/n runs a slice of the grid."
	})
	sf.register(fs, sw.batch)
	if sw.flags != nil {
		sw.flags(fs)
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	exp, err := sw.experiment(sf.quick, sf.batch)
	if err != nil {
		return err
	}
	sf.defaults(exp.Name, sw.allMethods())
	rc, err := sf.config(stderr)
	if err != nil {
		return err
	}
	out := outDir(sf.out, sf.quick)
	if err := prepareOut(out); err != nil {
		return err
	}
	rc.StoreDir = out
	if sf.check {
		return check(exp, rc, out, sf.verbose, stdout)
	}
	fmt.Fprintf(stderr, "invmmd %s: results under %s\n", sw.name, out)
	res, err := experiments.Run(exp, rc)
	if err != nil {
		return err
	}
	if rc.Shard.N > 1 {
		fmt.Fprintf(stdout, "%s shard %v: %d fits (%d resumed) in %.0f s, written to %s. When every shard is done: invmmd merge -out %s\n",
			exp.Name, rc.Shard, len(res.Fits), res.Skipped, res.Seconds, store.Dir(out, exp.Name), out)
		return nil
	}
	return publish(exp, out, stdout)
}

// check opens exp's result store under out (refusing another configuration) and reports
// how many fits the run or shard holds; with list, it also lists their result files.
func check(exp experiments.Experiment, rc experiments.RunConfig, out string, list bool, stdout io.Writer) error {
	sw, err := experiments.SweepOf(exp, rc)
	if err != nil {
		return err
	}
	if _, err := store.Open(out, sw); err != nil {
		return err
	}
	shard := rc.Shard
	if shard == (store.Shard{}) {
		shard = store.All
	}
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

// publish assembles exp's tables from the result files under out, prints them next to
// the paper's numbers and draws the figures: the last step of a whole run and what merge
// does for each experiment.
func publish(exp experiments.Experiment, out string, stdout io.Writer) error {
	m, err := experiments.Merge(exp, out, filepath.Join(out, "tables"))
	if err != nil {
		return err
	}
	files := m.Files
	for _, l := range m.Sweep.Lambdas {
		f, err := drawResults(m.Rows[l], exp, l, out, stdout)
		if err != nil {
			return err
		}
		files = append(files, f...)
	}
	for _, lam := range m.Removed {
		base := filepath.Join(out, exp.Name+"_lambda"+lam)
		os.Remove(base + ".png")
		os.Remove(base + ".svg")
		fmt.Fprintf(stdout, "%s: removed the tables and figures of λ = %s, which this sweep no longer lists\n", exp.Name, lam)
	}
	if extra := extras[exp.Name]; extra != nil {
		f, err := extra(m.Sweep.Seeds[0], out)
		if err != nil {
			return err
		}
		files = append(files, f...)
	}
	fmt.Fprintf(stdout, "%s: wrote %s\n", exp.Name, strings.Join(files, ", "))
	return nil
}

// drawResults writes the table of rows at λ to stdout, next to the paper's numbers, and
// its results figure to dir.
func drawResults(rows []experiments.Row, exp experiments.Experiment, l float64, dir string, stdout io.Writer) ([]string, error) {
	sums := experiments.Summarize(experiments.AsWritten(rows))
	title := fmt.Sprintf("%s, λ = %s", exp.Title, experiments.LambdaName(l))
	if err := experiments.WriteMarkdown(stdout, title, sums, exp.Paper[l]); err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout)
	plots, err := figures.Results(title, sums, exp.Paper[l], resultOptions(exp.Name)...)
	if err != nil {
		return nil, fmt.Errorf("%s, λ = %s: %w", exp.Name, experiments.LambdaName(l), err)
	}
	base := filepath.Join(dir, exp.Name+"_lambda"+experiments.LambdaName(l))
	if err := figures.SaveGrid(plots, base, 2*figures.Width, figures.Height); err != nil {
		return nil, err
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// extras draw further figures of an experiment into dir, from its first seed.
var extras = map[string]func(seed uint64, dir string) ([]string, error){
	// The examples figure: a grid of images per (Y, Z) cell, train and test.
	"tmnist": func(seed uint64, dir string) ([]string, error) {
		cfg := tmnist.DefaultConfig()
		cfg.Seed = seed
		sp, _, err := tmnist.Build(cfg)
		if err != nil {
			return nil, err
		}
		p, w, h, err := figures.TMNISTGrid([]*dataset.Set{sp.Train, sp.Test}, 8, [2]string{"brick", "grass"})
		if err != nil {
			return nil, err
		}
		base := filepath.Join(dir, "tmnist_examples")
		return []string{base + ".png", base + ".svg"}, figures.Save(p, base, w, h)
	},
}

// described returns the experiment named name (as its result files name it) for its title,
// the paper's numbers and notes: what merge and figures need, without data.
func described(name string) (experiments.Experiment, bool) {
	switch name {
	case "sim":
		return experiments.Simulation(experiments.SimulationQuick), true
	case "sim_mf075":
		return experiments.SimulationPaperSplit(experiments.SimulationQuick), true
	case "tmnist":
		return experiments.TMNIST(experiments.TMNISTQuick), true
	case "tmnist_digits":
		return experiments.TMNISTDigits(experiments.TMNISTQuick), true
	case "clinical":
		return experiments.ClinicalNMES(experiments.ClinicalQuick), true
	case "mimic":
		e := experiments.ClinicalMIMIC("", experiments.ClinicalQuick)
		e.Name = "mimic"
		return e, true
	}
	if net, ok := strings.CutPrefix(name, "tmnist_net-"); ok {
		if e, err := experiments.TMNISTWithNet(experiments.TMNISTQuick, net); err == nil && e.Name == name {
			return e, true
		}
		return experiments.Experiment{}, false
	}
	if rest, ok := strings.CutPrefix(name, "tmnist_"); ok {
		// A variant of textured MNIST: tmnist_[RENDERING][_A_B], as TMNISTVariant names it.
		parts := strings.Split(rest, "_")
		r := tmnist.MNISTPlus
		if p, err := tmnist.ParseRendering(parts[0]); err == nil {
			r, parts = p, parts[1:]
		}
		var tex [2]string
		switch len(parts) {
		case 0:
		case 2:
			tex = [2]string{parts[0] + ".png", parts[1] + ".png"}
		default:
			return experiments.Experiment{}, false
		}
		if e := experiments.TMNISTVariant(experiments.TMNISTQuick, r, tex); e.Name == name {
			return e, true
		}
	}
	return experiments.Experiment{}, false
}

func simSweep() sweep {
	var paperSplit bool
	return sweep{name: "sim", methods: methodNames(invmmd.AllMethods), batch: true,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&paperSplit, "paper-split", false, "the companion run: the paper's 1/4 : 3/4 normaliser split of each batch (MainFraction 0.75), written as the sim_mf075 tables")
		},
		experiment: func(quick bool, batch int) (experiments.Experiment, error) {
			size := experiments.SimulationPaper
			if quick {
				size = experiments.SimulationQuick
			}
			if batch > 0 {
				size.Batch = batch
			}
			exp := experiments.Simulation(size)
			if paperSplit {
				exp = experiments.SimulationPaperSplit(size)
			}
			exp.Size = size
			return exp, nil
		}}
}

func tmnistSweep() sweep {
	var rendering, textures string
	var digits bool
	var net string
	return sweep{name: "tmnist", batch: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&net, "net", "strided", "the network trained as h (G and m stay strided): strided (the experiment's), wide (twice the channels: the capacity check) or pooled (the previous version's); results of another than strided go to tables named tmnist_net-NAME")
			fs.BoolVar(&digits, "digits", false, "a measurement: labels = digits and texture independent of the label, so that none's test accuracy a says how well the network reads the digit (an h that reads only the digit reaches 0.25 + 0.5·a in the experiment); use with -methods none; tables named tmnist_digits")
			fs.StringVar(&rendering, "rendering", tmnist.MNISTPlus.String(), "how images are made (the ablation of data/README.md): mnistplus (make_mnistplus.py), fused (without the emboss) or toned (the earlier rendering); results of another than mnistplus go to tables named tmnist_RENDERING")
			fs.StringVar(&textures, "textures", "", "the texture files for Z = 0 and Z = 1 under data/textures, e.g. brick,gravel (default brick,grass; toned: grass,brick); results of another pair go to tables named tmnist_..._A_B")
		},
		experiment: func(quick bool, batch int) (experiments.Experiment, error) {
			r, err := tmnist.ParseRendering(rendering)
			if err != nil {
				return experiments.Experiment{}, fmt.Errorf("-rendering: %w", err)
			}
			var tex [2]string
			if textures != "" {
				parts := strings.Split(textures, ",")
				if len(parts) != 2 || strings.TrimSpace(parts[0]) == "" || strings.TrimSpace(parts[1]) == "" {
					return experiments.Experiment{}, fmt.Errorf("-textures %q: want two texture names, Z = 0's and Z = 1's, e.g. brick,gravel", textures)
				}
				for i, p := range parts {
					tex[i] = strings.TrimSuffix(strings.TrimSpace(p), ".png") + ".png"
				}
				if tex[0] == tex[1] {
					return experiments.Experiment{}, fmt.Errorf("-textures %q: the two textures must differ (Z is the texture)", textures)
				}
			}
			size := experiments.TMNISTPaper
			if quick {
				size = experiments.TMNISTQuick
			}
			exp := experiments.TMNISTVariant(size, r, tex)
			if digits {
				if exp.Name != "tmnist" || net != "strided" {
					return experiments.Experiment{}, fmt.Errorf("-digits measures the experiment's own images and network: drop -rendering, -textures and -net")
				}
				exp = experiments.TMNISTDigits(size)
			}
			if net != "strided" {
				if exp.Name != "tmnist" {
					return experiments.Experiment{}, fmt.Errorf("-net %s trains another h on the experiment's own images: drop -rendering and -textures", net)
				}
				if exp, err = experiments.TMNISTWithNet(size, net); err != nil {
					return experiments.Experiment{}, fmt.Errorf("-net: %w", err)
				}
			}
			cfg := tmnist.DefaultConfig()
			if tex != [2]string{} {
				cfg.Textures = tex
			}
			if err := tmnist.Available(cfg); err != nil {
				return experiments.Experiment{}, err
			}
			if batch > 0 {
				exp.H.BatchSize = batch
			}
			exp.Size = size
			return exp, nil
		}}
}

func clinicalSweep() sweep {
	var mimicDir, dataFile string
	return sweep{name: "clinical", methods: methodNames(experiments.ClinicalMethods), batch: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&mimicDir, "mimic", "", "folder of the MIMIC-III v1.4 CSV files (ICUSTAYS, ADMISSIONS, PATIENTS, LABEVENTS, CHARTEVENTS; .csv or .csv.gz); empty runs the NMES1988 stand-in")
			fs.StringVar(&dataFile, "data", "", "the NMES1988 CSV (default: $"+dataDirEnv+"/nmes1988/nmes1988.csv when "+dataDirEnv+" is set, else "+clinical.NMESRelPath+" found from the working directory up)")
		},
		experiment: func(quick bool, batch int) (experiments.Experiment, error) {
			size := experiments.ClinicalPaper
			if quick {
				size = experiments.ClinicalQuick
			}
			if mimicDir != "" && dataFile != "" {
				return experiments.Experiment{}, fmt.Errorf("-mimic and -data: give one (MIMIC-III, or the NMES1988 stand-in's CSV)")
			}
			var exp experiments.Experiment
			if mimicDir != "" {
				if st, err := os.Stat(mimicDir); err != nil || !st.IsDir() {
					return exp, fmt.Errorf("-mimic %s: not a folder", mimicDir)
				}
				exp = experiments.ClinicalMIMIC(mimicDir, size)
				exp.Name = "mimic"
				if quick {
					// The paper's batch of 4000 is larger than small extracts (and the
					// test fixture): quick runs train on the full batch.
					exp.H.BatchSize, exp.Aux.BatchSize = 0, 0
				}
			} else {
				path, err := nmesPath(dataFile)
				if err != nil {
					return exp, err
				}
				exp = experiments.ClinicalNMES(size)
				exp.Data = func(seed uint64) (dataset.Splits, error) {
					sp, _, err := clinical.LoadNMES(clinical.NMESConfig{Path: path, Seed: seed})
					return sp, err
				}
			}
			if batch > 0 {
				exp.H.BatchSize, exp.Aux.BatchSize = batch, batch
			}
			exp.Size = size
			return exp, nil
		}}
}

// dataDirEnv names the environment variable that overrides the project's data folder.
const dataDirEnv = tmnist.DataDirEnv

// nmesPath resolves the NMES1988 CSV: -data, else $INVMMD_DATA_DIR/nmes1988/nmes1988.csv,
// else clinical.FindNMES. It checks that the file exists before any work.
func nmesPath(flagValue string) (string, error) {
	p := flagValue
	what := "-data " + p
	if p == "" {
		if d := os.Getenv(dataDirEnv); d != "" {
			p = filepath.Join(d, "nmes1988", "nmes1988.csv")
			what = "$" + dataDirEnv + " = " + d + ": " + p
		} else {
			return clinical.FindNMES()
		}
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w (regenerate it with %s)", what, err, clinical.NMESScript)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a folder, want the NMES1988 CSV file", what)
	}
	return p, nil
}
