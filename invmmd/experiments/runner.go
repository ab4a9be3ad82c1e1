package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/progress"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Experiment describes one experiment to Run.
type Experiment struct {
	Name  string // file prefix and key into Paper: "sim", "tmnist", "clinical", or a variant's
	Title string
	// Data builds the splits for one seed; the seed drives the data's randomness (draws,
	// label flips, missingness) as well as the networks'.
	Data func(seed uint64) (dataset.Splits, error)
	// Net builds a fresh network for a role: h (train.RoleH), G or m (train.RoleG,
	// train.RoleM), from a seed.
	Net func(role train.Role, seed uint64) models.Net
	// H is how h is trained; Method, Lambda and Seed are set per run.
	H train.Config
	// Aux is how G and m are fit; Seed is set per seed.
	Aux train.AuxConfig
	// BayesM, when the data know it, returns the true P(Z = 1 | X, Y) of each row of a set
	// (train.Runtime.BayesM): m's report then shows the Bayes NLL next to m̂'s.
	BayesM func(s *dataset.Set) []float64
	// Size records the data's size settings (e.g. a SimulationSize) in the configuration,
	// since Data is a function; results made with different sizes are never mixed.
	Size any
	// Construction records, for a variant of an experiment's data (e.g. another rendering of
	// textured MNIST), what differs from its default construction; nil for the default.
	Construction any
	// Paper holds the paper's numbers to print next to ours, by λ (nil: none).
	Paper map[float64]map[string]results.PaperRow
	// Notes are printed under the tables: what differs from the paper and why.
	Notes []string
	// Figure is what the results figures draw besides the tables: the accuracy ceiling of
	// an invariant model, the paper's dataset when it is not ours.
	Figure results.FigureHints
	// Majority says that the tables and figures show the test split's majority baseline
	// (MajorityOf): set where P(Y = 1) in test is far from 1/2, so that 0.5 is not the
	// accuracy to beat.
	Majority bool
	// Examples, when set, returns example images of the data of a seed, drawn as
	// NAME_examples next to the results figures.
	Examples func(seed uint64) (ExampleImages, error)
	// MMDNote says under the tables what their tr mmd row is; empty means
	// results.DefaultMMDNote (the full estimator of the paper's Σ_y MMD²_y).
	MMDNote string
	// ZMap chooses the kernel on a nuisance that is not binary: its feature map is fixed
	// for each seed from the observed Z of the training split (invmmd.NewMap). Ignored for
	// a binary Z.
	ZMap invmmd.MapSpec
	// PaperScale, for a nuisance that is not binary, multiplies the joint MMD² by
	// invmmd.JointScaleFor of each seed's training split, so that λ weighs it as the
	// paper's λ weighs its MMD² (for a binary Z the two then agree).
	PaperScale bool
}

// nuisanceMap returns the feature map of sp's nuisance and the joint MMD²'s scale (0: 1)
// when it is not binary; nil and 0 for a binary Z.
func (exp Experiment) nuisanceMap(sp dataset.Splits) (invmmd.FeatureMap, float64, error) {
	tr := sp.Train
	if tr.Nuisance.Kind == dataset.BinaryZ {
		return nil, 0, nil
	}
	z := tr.ObservedZ()
	zmap, err := invmmd.NewMap(tr.Nuisance, z, nil, exp.ZMap)
	if err != nil || !exp.PaperScale {
		return zmap, 0, err
	}
	psi, err := invmmd.Apply(zmap, z)
	if err != nil {
		return nil, 0, err
	}
	scale, err := invmmd.JointScaleFor(psi, tr.Y, tr.Delta)
	return zmap, scale, err
}

// RunConfig chooses what Run sweeps and where its results go.
type RunConfig struct {
	Methods []method.Method
	Lambdas []float64
	Seeds   []uint64
	// TableDir is where the CSV, Markdown and JSON tables go; "" writes none.
	TableDir string
	// StoreDir is where the per-fit result files go, under StoreDir/fits/NAME/ (package
	// store); "" means TableDir, and a temporary folder when both are empty.
	StoreDir string
	// Shard runs only the i-th of n slices of the fit grid (the zero value: all of it).
	// A shard writes its fits' files but no tables: Merge assembles them.
	Shard store.Shard
	// Resume skips the fits whose result file exists (with the same configuration).
	Resume   bool
	Progress io.Writer // overall progress bar; nil is quiet
	Verbose  io.Writer // per-fit progress bars and reports; nil is quiet
	// FitAux, when set, stands between Run and the fit of G and m for a seed: it returns
	// fit's result, or the same result kept from an earlier call (the notebooks' cache).
	FitAux func(seed uint64, sp dataset.Splits, fit func() (*train.Aux, error)) (*train.Aux, error)
}

// FitRecord is the record of one trained h: its key in the sweep, what its history says
// of the training and its metrics. (train.Fit is the function that trains it.)
type FitRecord struct {
	Method      string
	Lambda      float64
	Seed        uint64
	BestEpoch   int
	Epochs      int
	EmptyStrata int
	FlooredNorm int
	Metrics     train.Metrics
}

// Outcome is what Run produced.
type Outcome struct {
	Experiment string
	Rows       map[float64][]results.Row // by λ; empty for a shard
	Fits       []FitRecord               // the fits of this run (or shard), done now or resumed
	Aux        map[string]train.Aux      // by seed, reports only (predictions dropped)
	Seconds    float64
	Skipped    int // fits resumed from their files
	Files      []string
}

// Config is everything that decides an experiment's numbers apart from the grid of
// methods, λ and seeds: it is stored with every result file, and results of different
// configurations are never mixed.
type Config struct {
	Experiment   string
	Backend      string
	Size         any
	H            train.Config
	Aux          train.AuxConfig
	Estimator    invmmd.Options
	Nets         map[string]string
	Construction any `json:",omitempty"` // the experiment's Construction: nil for the default data
}

// ConfigOf returns exp's configuration.
func ConfigOf(exp Experiment) (Config, error) {
	est, err := exp.H.Estimator.Resolved()
	if err != nil {
		return Config{}, fmt.Errorf("experiments: %s: %w", exp.Name, err)
	}
	c := Config{Experiment: exp.Name, Backend: backend.Config(), Size: exp.Size, H: exp.H, Aux: exp.Aux, Estimator: est,
		Nets:         map[string]string{},
		Construction: exp.Construction}
	for _, r := range []train.Role{train.RoleH, train.RoleG, train.RoleM} {
		c.Nets[r.String()] = exp.Net(r, 0).Describe()
	}
	c.H.Method, c.H.Lambda, c.H.Seed, c.Aux.Seed = 0, 0, 0, 0
	return c, nil
}

// SweepOf returns the store's description of exp swept over cfg's grid.
func SweepOf(exp Experiment, cfg RunConfig) (store.Sweep, error) {
	c, err := ConfigOf(exp)
	if err != nil {
		return store.Sweep{}, err
	}
	js, err := json.Marshal(c)
	if err != nil {
		return store.Sweep{}, fmt.Errorf("experiments: %s: configuration: %w", exp.Name, err)
	}
	return store.Sweep{Experiment: exp.Name, Config: js, Methods: methodNames(cfg.Methods), Lambdas: cfg.Lambdas, Seeds: cfg.Seeds}, nil
}

// Grid returns the fits of a sweep in its canonical order: by seed, then method, then λ.
// "none" does not depend on λ: it is one fit per seed, at λ = 0, reported under every λ.
func Grid(methods []string, lambdas []float64, seeds []uint64) []store.Key {
	var keys []store.Key
	for _, s := range seeds {
		for _, m := range methods {
			if m == method.None.String() {
				keys = append(keys, store.Key{Method: m, Lambda: 0, Seed: s})
				continue
			}
			for _, l := range lambdas {
				keys = append(keys, store.Key{Method: m, Lambda: l, Seed: s})
			}
		}
	}
	return keys
}

// fitResult is the result part of a fit's file: train's own structs, serialised as they
// are, so that fields added to them flow into the files.
type fitResult struct {
	Metrics train.Metrics
	History train.History
}

// auxRecord is the per-seed file of the auxiliary models' reports.
type auxRecord struct{ G, M train.FitReport }

// Run runs the fits of cfg's grid (or of its shard): per seed, the data and G and m once,
// then h for each (λ, method), each fit's result file written as soon as it is done; with
// the whole grid and cfg.TableDir set, it then assembles the tables. Once ctx is done it
// returns within a training step with an error wrapping ctx.Err(), every finished fit's
// file kept.
func Run(ctx context.Context, exp Experiment, cfg RunConfig) (*Outcome, error) {
	start := time.Now()
	shard := cmp.Or(cfg.Shard, store.All)
	if shard.I < 1 || shard.I > shard.N {
		return nil, fmt.Errorf("experiments: %s: shard %v, want 1 ≤ i ≤ n", exp.Name, shard)
	}
	sw, err := SweepOf(exp, cfg)
	if err != nil {
		return nil, err
	}
	dir := cmp.Or(cfg.StoreDir, cfg.TableDir)
	if dir == "" {
		tmp, err := os.MkdirTemp("", "invmmd-"+exp.Name+"-")
		if err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	st, err := store.Open(dir, sw)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
	}
	keys := Grid(sw.Methods, sw.Lambdas, sw.Seeds)
	lo, hi := shard.Range(len(keys))
	mine := keys[lo:hi]

	out := &Outcome{Experiment: exp.Name, Rows: map[float64][]results.Row{}, Aux: map[string]train.Aux{}}
	var todo []store.Key
	for _, k := range mine {
		if cfg.Resume {
			rec, ok, err := st.Get(k)
			if err != nil {
				return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
			}
			if ok {
				f, err := fitOf(rec)
				if err != nil {
					return nil, err
				}
				out.Fits = append(out.Fits, f)
				out.Skipped++
				continue
			}
		}
		todo = append(todo, k)
	}
	bar := progress.New(cfg.Progress, len(todo), exp.Name)
	defer bar.Finish()
	for len(todo) > 0 {
		seed := todo[0].Seed
		n := 1
		for n < len(todo) && todo[n].Seed == seed {
			n++
		}
		fits, err := runSeed(ctx, exp, cfg, st, seed, todo[:n], bar)
		if err != nil {
			return nil, err
		}
		out.Fits = append(out.Fits, fits...)
		todo = todo[n:]
	}
	for _, s := range sw.Seeds { // what this or another run recorded of each seed's G and m
		var ar auxRecord
		if ok, err := st.GetSeed("aux", s, &ar); err == nil && ok {
			out.Aux[strconv.FormatUint(s, 10)] = train.Aux{G: ar.G, M: ar.M}
		}
	}
	out.Seconds = time.Since(start).Seconds()
	if shard.N == 1 && cfg.TableDir != "" {
		res, err := Merge(exp, dir, cfg.TableDir)
		if err != nil {
			return nil, err
		}
		out.Rows, out.Files = res.Rows, res.Files
	} else if shard.N == 1 {
		recs, err := st.Collect(keys)
		if err != nil {
			return nil, err
		}
		out.Rows, err = rowsOf(sw, recs)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runSeed builds seed's data, fits G and m when a method of keys needs them, then fits h
// for each key, writing each result file as soon as the fit is done.
func runSeed(ctx context.Context, exp Experiment, cfg RunConfig, st *store.Store, seed uint64, keys []store.Key, bar *progress.Bar) ([]FitRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("experiments: %s: stopped before seed %d: %w", exp.Name, seed, err)
	}
	sp, err := exp.Data(seed)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s, seed %d: %w", exp.Name, seed, err)
	}
	data := [3]dataset.Summary{sp.Train.Summarize(), sp.Val.Summarize(), sp.Test.Summarize()}
	if err := st.PutSeed("data", seed, data); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
	}
	methods := make([]method.Method, len(keys))
	needAux := false
	for i, k := range keys {
		if methods[i], err = method.Parse(k.Method); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
		}
		needAux = needAux || methods[i].NeedsG() || methods[i].NeedsM()
	}
	zmap, scale, err := exp.nuisanceMap(sp)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s, seed %d: the kernel on Z: %w", exp.Name, seed, err)
	}
	var aux *train.Aux
	if needAux {
		if aux, err = exp.fitAux(ctx, sp, seed, zmap, cfg); err != nil {
			return nil, err
		}
		if err := st.PutSeed("aux", seed, auxRecord{G: aux.G, M: aux.M}); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
		}
		if cfg.Verbose != nil {
			fmt.Fprintf(cfg.Verbose, "seed %d: %s\nseed %d: %s\n", seed, aux.G, seed, aux.M)
		}
	}
	var fits []FitRecord
	for i, k := range keys {
		met, hist, err := exp.fitH(ctx, sp, aux, k, methods[i], zmap, scale, train.Runtime{Progress: cfg.Verbose})
		if err != nil {
			return nil, err
		}
		if err := st.Put(k, fitResult{Metrics: met, History: *hist}, hist.Seconds); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
		}
		fits = append(fits, fitFrom(k, met, hist))
		bar.Add(1, fmt.Sprintf("seed %d λ=%g %-4s te acc %.3f tr mmd %.3f", seed, k.Lambda, k.Method, met.TestAcc, met.TrainMMD))
	}
	return fits, nil
}

// fitAux fits G and m for seed's splits sp as the experiment does (through cfg.FitAux
// when set), with zmap the nuisance's feature map (nil for a binary Z).
func (exp Experiment) fitAux(ctx context.Context, sp dataset.Splits, seed uint64, zmap invmmd.FeatureMap, cfg RunConfig) (*train.Aux, error) {
	ac := exp.Aux
	ac.Seed = seed * 1000
	fit := func() (*train.Aux, error) {
		return train.FitAux(ctx, sp, exp.Net, ac, train.Runtime{Progress: cfg.Verbose, ZMap: zmap, BayesM: exp.BayesM})
	}
	var aux *train.Aux
	var err error
	if cfg.FitAux != nil {
		aux, err = cfg.FitAux(seed, sp, fit)
	} else {
		aux, err = fit()
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: %s, seed %d: %w", exp.Name, seed, err)
	}
	return aux, nil
}

// fitH trains h for the fit k (method m) on sp as the experiment does and evaluates it,
// with rt's progress and hooks and zmap, the nuisance's feature map.
func (exp Experiment) fitH(ctx context.Context, sp dataset.Splits, aux *train.Aux, k store.Key, m method.Method, zmap invmmd.FeatureMap, scale float64,
	rt train.Runtime) (train.Metrics, *train.History, error) {
	hc := exp.H
	hc.Method, hc.Lambda, hc.Seed = m, k.Lambda, k.Seed
	if scale > 0 {
		hc.Estimator.JointScale = scale
	}
	rt.ZMap = zmap
	model, hist, err := train.Fit(ctx, sp, aux, exp.Net(train.RoleH, k.Seed), hc, rt)
	if err != nil {
		return train.Metrics{}, nil, fmt.Errorf("experiments: %s, %v: %w", exp.Name, k, err)
	}
	ev, err := train.Evaluate(model, sp, train.EvalOptions{Options: hc.Estimator, ZMap: zmap})
	if err != nil {
		return train.Metrics{}, nil, fmt.Errorf("experiments: %s, %v: %w", exp.Name, k, err)
	}
	return ev.Metrics, hist, nil
}

func fitFrom(k store.Key, met train.Metrics, hist *train.History) FitRecord {
	return FitRecord{Method: k.Method, Lambda: k.Lambda, Seed: k.Seed, BestEpoch: hist.BestEpoch, Epochs: len(hist.Epochs),
		EmptyStrata: hist.EmptyStrata, FlooredNorm: hist.FlooredNorms, Metrics: met}
}

func fitOf(rec store.Record) (FitRecord, error) {
	var r fitResult
	if err := json.Unmarshal(rec.Result, &r); err != nil {
		return FitRecord{}, fmt.Errorf("experiments: result of %v: %w", rec.Key, err)
	}
	return fitFrom(rec.Key, r.Metrics, &r.History), nil
}

// rowsOf builds the table rows by λ from the records of the grid's keys (in Grid order):
// for each seed, the methods in the sweep's order, "none" repeated under every λ.
func rowsOf(sw store.Sweep, recs []store.Record) (map[float64][]results.Row, error) {
	by := map[store.Key]FitRecord{}
	for _, rec := range recs {
		f, err := fitOf(rec)
		if err != nil {
			return nil, err
		}
		by[rec.Key] = f
	}
	rows := map[float64][]results.Row{}
	for _, l := range sw.Lambdas {
		for _, s := range sw.Seeds {
			for _, m := range sw.Methods {
				k := store.Key{Method: m, Lambda: l, Seed: s}
				if m == method.None.String() {
					k.Lambda = 0
				}
				f := by[k]
				rows[l] = append(rows[l], results.Row{Method: m, Seed: s, TrMMD: f.Metrics.TrainMMD, TrAcc: f.Metrics.TrainAcc, TeAcc: f.Metrics.TestAcc})
			}
		}
	}
	return rows, nil
}

// CurveOf returns what the training-curves figure (figures.Curves) draws of a fit's
// history.
func CurveOf(h *train.History) results.Curve {
	c := results.Curve{Name: h.Name, BestEpoch: h.BestEpoch, Epochs: make([]results.CurvePoint, len(h.Epochs))}
	for i, e := range h.Epochs {
		c.Epochs[i] = results.CurvePoint{Epoch: e.Epoch, TrainLoss: e.TrainLoss, ValObjective: e.ValObjective}
	}
	return c
}

// TrMMDNote is the tables' footnote on what their tr mmd row is (MMDNote, or
// results.DefaultMMDNote).
func (exp Experiment) TrMMDNote() string {
	if exp.MMDNote != "" {
		return exp.MMDNote
	}
	return results.DefaultMMDNote
}
