package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/progress"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/train"
)

// VarianceConfig is the variance study of appendix B.3: h trained with "none" on the
// simulation, then, for each batch size, many fresh batches from the training
// distribution, each estimated with every method.
type VarianceConfig struct {
	Sizes     []int           // batch sizes; the paper's are 1000, 1250, …, 10000
	Batches   int             // batches per size; the paper's 100
	Methods   []method.Method // the paper's full, dr, dr+, reg, plus ip, ip+ and the dr-po extension
	Seed      uint64
	Data      SimulationSize // size of the training run of h, G and m
	Estimator invmmd.Options // the estimators' options (the paper's 1/4 : 3/4 split by default)
	TableDir  string         // where variance.csv and variance_config.json go; "" writes none
	// StoreDir is where each batch size's result file goes, under StoreDir/fits/variance/;
	// "" means TableDir (no files when both are empty).
	StoreDir string
	// Shard runs only the i-th of n slices of the batch sizes (the zero value: all); a
	// shard writes its sizes' files but no table: MergeVariance assembles them.
	Shard store.Shard
	// Resume skips the sizes whose result file exists (with the same configuration).
	Resume   bool
	Progress io.Writer
}

// VariancePaper and VarianceQuick are the study at the paper's size (its 37 batch sizes
// 1000, 1250, …, 10000) and a quick version.
func VariancePaper() VarianceConfig {
	var sizes []int
	for n := 1000; n <= 10000; n += 250 {
		sizes = append(sizes, n)
	}
	return VarianceConfig{Sizes: sizes, Batches: 100, Seed: 1, Data: SimulationPaper,
		Methods: []method.Method{method.Full, method.DR, method.DRPlus, method.Reg, method.IP, method.IPPlus, method.DRPO, method.DRPOPlus}}
}

// VarianceQuick is a smaller study for tests and notebooks: 7 sizes, 30 batches.
func VarianceQuick() VarianceConfig {
	c := VariancePaper()
	c.Sizes = []int{1000, 2500, 4000, 5500, 7000, 8500, 10000}
	c.Batches = 30
	c.Data = SimulationQuick
	return c
}

// Validate checks the study's configuration before any work: at least one batch size
// (each at least 2 rows), at least 2 batches per size, and methods without duplicates.
func (c VarianceConfig) Validate() error {
	if len(c.Sizes) == 0 {
		return fmt.Errorf("experiments: variance study: no batch sizes")
	}
	for _, n := range c.Sizes {
		if n < 2 {
			return fmt.Errorf("experiments: variance study: batch size %d, want at least 2", n)
		}
	}
	if c.Batches < 2 {
		return fmt.Errorf("experiments: variance study: %d batches per size, want at least 2 (a standard deviation needs two)", c.Batches)
	}
	if len(c.Methods) == 0 {
		return fmt.Errorf("experiments: variance study: no methods")
	}
	for i, m := range c.Methods {
		if slices.Contains(c.Methods[:i], m) {
			return fmt.Errorf("experiments: variance study: method %v listed twice", m)
		}
	}
	return nil
}

// VarianceOutcome is the study's result.
type VarianceOutcome struct {
	Points  []results.VariancePoint
	Seconds float64 // whole study
	// EstimateSeconds is the time spent in the estimators alone: designs and kernel sums
	// for every batch and method.
	EstimateSeconds float64
	TrainSeconds    float64
	PoolRows        int
	Files           []string
}

// Variance runs the study. The batches of one size are disjoint draws from one pool of
// Batches × max(Sizes) fresh training-distribution rows, with h, Ĝ and m̂ computed once on
// the pool (10⁶ rows instead of 2·10⁷). Once ctx is done it returns with an error wrapping
// ctx.Err(), the finished sizes' files kept (cfg.Resume goes on from there).
func Variance(ctx context.Context, cfg VarianceConfig) (*VarianceOutcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	shard := cmp.Or(cfg.Shard, store.All)
	if shard.I < 1 || shard.I > shard.N {
		return nil, fmt.Errorf("experiments: variance study: shard %v, want 1 ≤ i ≤ n", shard)
	}
	dir := cmp.Or(cfg.StoreDir, cfg.TableDir)
	var st *store.Store
	if dir != "" {
		sw, err := varianceSweep(cfg)
		if err != nil {
			return nil, err
		}
		if st, err = store.Open(dir, sw); err != nil {
			return nil, fmt.Errorf("experiments: variance study: %w", err)
		}
	}
	lo, hi := shard.Range(len(cfg.Sizes))
	todo := map[int]bool{}
	for _, n := range cfg.Sizes[lo:hi] {
		todo[n] = true
		if cfg.Resume && st != nil {
			if _, ok, err := st.Get(sizeKey(n, cfg.Seed)); err != nil {
				return nil, fmt.Errorf("experiments: variance study: %w", err)
			} else if ok {
				delete(todo, n)
			}
		}
	}
	out := &VarianceOutcome{}
	if len(todo) > 0 {
		if err := varianceSizes(ctx, cfg, st, todo, out); err != nil {
			return nil, err
		}
	}
	out.Seconds = time.Since(start).Seconds()
	if st == nil || shard.N > 1 {
		return out, nil
	}
	merged, err := MergeVariance(dir, cfg.TableDir)
	if err != nil {
		return nil, err
	}
	out.Points, out.PoolRows, out.Files = merged.Points, merged.PoolRows, merged.Files
	return out, nil
}

// CheckVariance validates cfg and checks its result store without writing anything.
func CheckVariance(cfg VarianceConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	dir := cmp.Or(cfg.StoreDir, cfg.TableDir)
	sw, err := varianceSweep(cfg)
	if err != nil || dir == "" {
		return err
	}
	if err := store.Check(dir, sw); err != nil {
		return fmt.Errorf("experiments: variance study: %w", err)
	}
	return nil
}

// varianceRecord is the study's configuration: everything that decides its numbers.
type varianceRecord struct {
	Study     string
	Backend   string
	Sizes     []int
	Batches   int
	Seed      uint64
	Data      SimulationSize
	Estimator invmmd.Options
	Methods   []string
	// Summaries names what each batch size's file records (varianceSummaries): a result
	// folder of an earlier version, whose files lack the median, quartiles and smallest G,
	// is then another configuration, refused rather than resumed or merged with zeros.
	Summaries string
}

// varianceSummaries is the varianceRecord.Summaries of this version: the columns of
// variance.csv after the estimator and batch size.
const varianceSummaries = "mean,std,n,median,q25,q75,empty,floored,min_g"

// varianceSweep returns the store's description of the study: its record, one λ and seed.
func varianceSweep(cfg VarianceConfig) (store.Sweep, error) {
	est, err := cfg.Estimator.Resolved()
	if err != nil {
		return store.Sweep{}, fmt.Errorf("experiments: variance study: %w", err)
	}
	r := varianceRecord{Study: "variance (appendix B.3)", Backend: backend.Config(), Sizes: cfg.Sizes, Batches: cfg.Batches,
		Seed: cfg.Seed, Data: cfg.Data, Estimator: est, Methods: methodNames(cfg.Methods), Summaries: varianceSummaries}
	js, err := json.Marshal(r)
	if err != nil {
		return store.Sweep{}, fmt.Errorf("experiments: variance study: %w", err)
	}
	return store.Sweep{Experiment: "variance", Config: js, Methods: r.Methods, Lambdas: []float64{0}, Seeds: []uint64{cfg.Seed}}, nil
}

// sizeKey is the store key of batch size n's result file: its points, and the time spent
// in the estimators as the record's Seconds.
func sizeKey(n int, seed uint64) store.Key {
	return store.Key{Method: "size" + strconv.Itoa(n), Seed: seed}
}

// variancePool is the study's per-seed record.
type variancePool struct {
	PoolRows     int
	Train        dataset.Summary
	TrainSeconds float64
}

// varianceSizes trains h, G and m, draws the pool and estimates the batches of the sizes
// in todo (the random stream still runs through every size, so that a size's batches do
// not depend on which others a shard computes), writing each size's file when st is set
// and collecting the points in out otherwise.
func varianceSizes(ctx context.Context, cfg VarianceConfig, st *store.Store, todo map[int]bool, out *VarianceOutcome) error {
	start := time.Now()
	exp := Simulation(cfg.Data)
	sp, err := exp.Data(cfg.Seed)
	if err != nil {
		return err
	}
	ac := exp.Aux
	ac.Seed = cfg.Seed * 1000
	aux, err := train.FitAux(ctx, sp, exp.Net, ac, train.Runtime{BayesM: exp.BayesM})
	if err != nil {
		return err
	}
	hc := exp.H
	hc.Method, hc.Seed = method.None, cfg.Seed
	h, _, err := train.Fit(ctx, sp, aux, exp.Net(train.RoleH, cfg.Seed), hc, train.Runtime{Progress: cfg.Progress})
	if err != nil {
		return err
	}
	out.TrainSeconds = time.Since(start).Seconds()

	out.PoolRows = cfg.Batches * slices.Max(cfg.Sizes)
	if st != nil {
		if err := st.PutSeed("pool", cfg.Seed, variancePool{PoolRows: out.PoolRows, Train: sp.Train.Summarize(), TrainSeconds: out.TrainSeconds}); err != nil {
			return fmt.Errorf("experiments: variance study: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xfa11))
	pool := sim.Sample(rng, "pool", out.PoolRows, sim.TrainAgree, sim.DefaultSigmaX)
	hv, err := h.Logits(pool)
	if err != nil {
		return err
	}
	pred, err := aux.Predict(pool)
	if err != nil {
		return err
	}
	rows := invmmd.Rows{Y: pool.Y, Z: pool.Z, Delta: pool.Delta, G: pred.G, GTrue: pool.GTrue, M: pred.M}

	bar := progress.New(cfg.Progress, len(todo), "variance")
	defer bar.Finish()
	summer := invmmd.AutoSums{}
	for _, n := range cfg.Sizes {
		perm := rng.Perm(out.PoolRows)
		if !todo[n] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("experiments: variance study: stopped before batch size %d: %w", n, err)
		}
		vals := make([][]float64, len(cfg.Methods))
		pts := make([]results.VariancePoint, len(cfg.Methods))
		estimate := 0.0
		minG, minGTrue := math.Inf(1), math.Inf(1) // over the observed rows of the size's batches
		for b := 0; b < cfg.Batches; b++ {
			idx := perm[b*n : (b+1)*n]
			g, gt := smallestG(rows, idx)
			minG, minGTrue = math.Min(minG, g), math.Min(minGTrue, gt)
			hb := make([]float64, n)
			for k, i := range idx {
				hb[k] = hv[i]
			}
			t0 := time.Now()
			d, err := invmmd.NewDesign(rows.Subset(idx), cfg.Estimator, cfg.Methods...)
			if err != nil {
				return err
			}
			res, err := d.Evaluate(invmmd.ScalarRep(hb), summer)
			if err != nil {
				return fmt.Errorf("experiments: variance study, batch size %d, batch %d: %w", n, b, err)
			}
			estimate += time.Since(t0).Seconds()
			for k, r := range res {
				vals[k] = append(vals[k], r.Value)
				pts[k].Empty += len(r.Report.EmptyStrata)
				pts[k].Floored += r.Report.FlooredNorms
			}
		}
		for k, meth := range cfg.Methods {
			mean, std := stat.MeanStdDev(vals[k], nil)
			pts[k].Estimator, pts[k].BatchSize, pts[k].Mean, pts[k].Std, pts[k].N = meth.String(), n, mean, std, len(vals[k])
			pts[k].Q25, pts[k].Median, pts[k].Q75 = results.Quartiles(vals[k])
			pts[k].MinG = minGOf(meth, minG, minGTrue)
		}
		out.EstimateSeconds += estimate
		if st != nil {
			if err := st.Put(sizeKey(n, cfg.Seed), pts, estimate); err != nil {
				return fmt.Errorf("experiments: variance study: %w", err)
			}
		} else {
			out.Points = append(out.Points, pts...)
		}
		bar.Add(1, fmt.Sprintf("n=%d full %.3f±%.3f", n, pts[0].Mean, pts[0].Std))
	}
	return nil
}

// smallestG returns the smallest learned Ĝ and the smallest true G among the observed rows
// (Δ = 1) of rows at idx: the probabilities that ip, dr and dr-po, and their + forms,
// divide by. Each is +Inf when no row is observed or the column is absent.
func smallestG(rows invmmd.Rows, idx []int) (g, gTrue float64) {
	g, gTrue = math.Inf(1), math.Inf(1)
	for _, i := range idx {
		if rows.Delta[i] != 1 {
			continue
		}
		if rows.G != nil {
			g = math.Min(g, rows.G[i])
		}
		if rows.GTrue != nil {
			gTrue = math.Min(gTrue, rows.GTrue[i])
		}
	}
	return g, gTrue
}

// minGOf is the VariancePoint.MinG of method m from the smallest learned and true G of a
// batch size's observed rows: the G it reads, 0 for neither (or no observed row).
func minGOf(m method.Method, g, gTrue float64) float64 {
	v := 0.0
	switch {
	case m.NeedsTrueG():
		v = gTrue
	case m.NeedsG():
		v = g
	}
	if math.IsInf(v, 0) {
		return 0
	}
	return v
}

// MergeVariance assembles variance.csv and its records under tableDir ("" writes none)
// from the per-size files under storeDir/fits/variance/, naming any size that is missing
// or was made with another configuration.
func MergeVariance(storeDir, tableDir string) (*VarianceOutcome, error) {
	st, err := store.Load(storeDir, "variance")
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var rec varianceRecord
	if err := json.Unmarshal(st.Sweep().Config, &rec); err != nil {
		return nil, fmt.Errorf("experiments: variance study: stored configuration: %w", err)
	}
	out := &VarianceOutcome{}
	var missing, bad []string
	for _, n := range rec.Sizes {
		r, ok, err := st.Get(sizeKey(n, rec.Seed))
		var pts []results.VariancePoint
		if ok {
			err = json.Unmarshal(r.Result, &pts)
		}
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("batch size %d: %v", n, err))
		case !ok:
			missing = append(missing, "batch size "+strconv.Itoa(n))
		default:
			out.Points = append(out.Points, pts...)
			out.EstimateSeconds += r.Seconds
		}
	}
	if err := store.Unusable(st.Dir(), len(rec.Sizes), "batch sizes", missing, bad); err != nil {
		return nil, fmt.Errorf("experiments: variance study: %w", err)
	}
	var pool variancePool
	if ok, err := st.GetSeed("pool", rec.Seed, &pool); err != nil || !ok {
		return nil, fmt.Errorf("experiments: variance study: no record of the pool under %s (%v): rerun a shard", st.Dir(), err)
	}
	out.PoolRows, out.TrainSeconds = pool.PoolRows, pool.TrainSeconds
	if tableDir == "" {
		return out, nil
	}
	return out, out.write(rec, pool.Train, tableDir)
}

func (o *VarianceOutcome) write(r varianceRecord, trainSet dataset.Summary, tableDir string) error {
	if err := os.MkdirAll(tableDir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(tableDir, "variance.csv")
	err := results.WriteFile(p, func(w io.Writer) error { return results.WriteVarianceCSV(w, o.Points) })
	if err != nil {
		return err
	}
	rec := map[string]any{
		"Study": r.Study, "Backend": r.Backend, "Methods": r.Methods,
		"Sizes": r.Sizes, "Batches": r.Batches, "Seed": r.Seed, "Data": r.Data, "Estimator": r.Estimator,
		"PoolRows": o.PoolRows, "Points": o.Points, "Train": trainSet,
		"Note": "h trained with none; batches of one size are disjoint draws from one pool of fresh training-distribution rows; Empty counts strata that contributed 0, Floored normalisers raised to the floor, over all batches of a size; Median, Q25 and Q75 are the median and quartiles of the batches' estimates; MinG is the smallest G among the observed rows of the size's batches that the estimator divides by (learned, or true for a + form; before the floor GFloor), absent for full and reg.",
	}
	// Timings go to their own file, so that a rerun leaves variance_config.json unchanged.
	timing := map[string]any{"Study": "variance", "GoVersion": runtime.Version(), "CPUs": runtime.NumCPU(),
		"EstimateSeconds": o.EstimateSeconds, "TrainSeconds": o.TrainSeconds}
	cp := filepath.Join(tableDir, "variance_config.json")
	tp := filepath.Join(tableDir, "variance_timing.json")
	if err := results.WriteJSON(cp, rec); err != nil {
		return err
	}
	if err := results.WriteJSON(tp, timing); err != nil {
		return err
	}
	o.Files = append(o.Files, p, cp, tp)
	return nil
}
