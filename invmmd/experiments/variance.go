package experiments

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/progress"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/train"
)

// VarianceConfig is the variance study of appendix C.3: h trained with "none" on the
// simulation, then, for each batch size, many fresh batches from the training
// distribution, each estimated with every method.
type VarianceConfig struct {
	Sizes     []int           // batch sizes; the paper's are 1000, 1250, …, 10000
	Batches   int             // batches per size; the paper's 100
	Methods   []invmmd.Method // the paper's full, dr, dr+, reg, plus ip, ip+ and the dr-po extension
	Seed      uint64
	Data      SimulationSize // size of the training run of h, G and m
	Estimator invmmd.Options // the estimators' options (the paper's 1/4 : 3/4 split by default)
	TableDir  string         // where variance.csv and variance_config.json go; "" writes none
	Progress  io.Writer
}

// PaperSizes returns 1000, 1250, …, 10000: the paper's 37 batch sizes.
func PaperSizes() []int {
	var s []int
	for n := 1000; n <= 10000; n += 250 {
		s = append(s, n)
	}
	return s
}

// VariancePaper and VarianceQuick are the study at the paper's size and a quick version.
func VariancePaper() VarianceConfig {
	return VarianceConfig{Sizes: PaperSizes(), Batches: 100, Seed: 1, Data: SimulationPaper,
		Methods: []invmmd.Method{invmmd.Full, invmmd.DR, invmmd.DRPlus, invmmd.Reg, invmmd.IP, invmmd.IPPlus, invmmd.DRPO, invmmd.DRPOPlus}}
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
	seen := map[invmmd.Method]bool{}
	for _, m := range c.Methods {
		if seen[m] {
			return fmt.Errorf("experiments: variance study: method %v listed twice", m)
		}
		seen[m] = true
	}
	return nil
}

// VariancePoint is one estimator at one batch size.
type VariancePoint struct {
	Estimator string
	BatchSize int
	Mean, Std float64
	N         int // batches
	// Empty counts strata that contributed 0 over the batches (no row of some Z value);
	// Floored counts normaliser estimates raised to the floor.
	Empty, Floored int
}

// VarianceOutcome is the study's result.
type VarianceOutcome struct {
	Points  []VariancePoint
	Seconds float64 // whole study
	// EstimateSeconds is the time spent in the estimators alone: designs and kernel sums
	// for every batch and method.
	EstimateSeconds float64
	TrainSeconds    float64
	PoolRows        int
	Files           []string
}

// Variance runs the study. The batches of one size are disjoint draws from a pool of
// Batches × max(Sizes) fresh rows of the training distribution, drawn once, with h, Ĝ and
// m̂ computed once on the pool: within a size the batches are independent, and the
// networks run over 10⁶ rows instead of 2·10⁷.
func Variance(cfg VarianceConfig) (*VarianceOutcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	exp := Simulation(cfg.Data)
	sp, err := exp.Data(cfg.Seed)
	if err != nil {
		return nil, err
	}
	ac := exp.Aux
	ac.Seed = cfg.Seed * 1000
	aux, err := train.FitAux(sp, func(s uint64) models.Net { return exp.Net("aux", s) }, ac)
	if err != nil {
		return nil, err
	}
	hc := exp.H
	hc.Method, hc.Seed, hc.Progress = invmmd.None, cfg.Seed, cfg.Progress
	h, _, err := train.Fit(sp, aux, exp.Net("h", cfg.Seed), hc)
	if err != nil {
		return nil, err
	}
	out := &VarianceOutcome{TrainSeconds: time.Since(start).Seconds()}

	maxSize := 0
	for _, n := range cfg.Sizes {
		maxSize = max(maxSize, n)
	}
	out.PoolRows = cfg.Batches * maxSize
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xfa11))
	pool := sim.Sample(rng, "pool", out.PoolRows, sim.TrainAgree, sim.DefaultSigmaX)
	hv, err := h.Logits(pool)
	if err != nil {
		return nil, err
	}
	pred, err := aux.Predict(pool)
	if err != nil {
		return nil, err
	}
	rows := invmmd.Rows{Y: pool.Y, Z: pool.Z, Delta: pool.Delta, G: pred.G, GTrue: pool.GTrue, M: pred.M}

	bar := progress.New(cfg.Progress, len(cfg.Sizes), "variance")
	defer bar.Finish()
	summer := invmmd.Auto{}
	for _, n := range cfg.Sizes {
		perm := rng.Perm(out.PoolRows)
		vals := make([][]float64, len(cfg.Methods))
		pts := make([]VariancePoint, len(cfg.Methods))
		for b := 0; b < cfg.Batches; b++ {
			idx := perm[b*n : (b+1)*n]
			hb := make([]float64, n)
			for k, i := range idx {
				hb[k] = hv[i]
			}
			t0 := time.Now()
			d, err := invmmd.NewDesign(rows.Subset(idx), cfg.Estimator, cfg.Methods...)
			if err != nil {
				return nil, err
			}
			res, err := d.Evaluate(hb, summer)
			if err != nil {
				return nil, fmt.Errorf("experiments: variance study, batch size %d, batch %d: %w", n, b, err)
			}
			out.EstimateSeconds += time.Since(t0).Seconds()
			for k, r := range res {
				vals[k] = append(vals[k], r.Value)
				pts[k].Empty += len(r.Report.EmptyStrata)
				pts[k].Floored += r.Report.FlooredNorms
			}
		}
		for k, meth := range cfg.Methods {
			mean, std := stat.MeanStdDev(vals[k], nil)
			pts[k].Estimator, pts[k].BatchSize, pts[k].Mean, pts[k].Std, pts[k].N = meth.String(), n, mean, std, len(vals[k])
		}
		out.Points = append(out.Points, pts...)
		bar.Add(1, fmt.Sprintf("n=%d full %.3f±%.3f", n, pts[0].Mean, pts[0].Std))
	}
	out.Seconds = time.Since(start).Seconds()
	if cfg.TableDir != "" {
		if err := out.write(cfg, sp); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VarianceCSVHeader is the header of variance.csv.
var VarianceCSVHeader = "estimator,batch_size,mean,std,n"

func (o *VarianceOutcome) write(cfg VarianceConfig, sp dataset.Splits) error {
	if err := os.MkdirAll(cfg.TableDir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(cfg.TableDir, "variance.csv")
	err := store.WriteFile(p, func(w io.Writer) error {
		fmt.Fprintln(w, VarianceCSVHeader)
		for _, pt := range o.Points {
			fmt.Fprintf(w, "%s,%d,%.6f,%.6f,%d\n", pt.Estimator, pt.BatchSize, pt.Mean, pt.Std, pt.N)
		}
		return nil
	})
	if err != nil {
		return err
	}
	est, _ := cfg.Estimator.Resolved()
	rec := map[string]any{
		"Study": "variance (appendix C.3)", "Backend": backend.Config(),
		"Sizes": cfg.Sizes, "Batches": cfg.Batches, "Seed": cfg.Seed, "Data": cfg.Data, "Estimator": est,
		"PoolRows": o.PoolRows, "Points": o.Points, "Train": sp.Train.Summarize(),
		"Note": "h trained with none; batches of one size are disjoint draws from one pool of fresh training-distribution rows; Empty counts strata that contributed 0, Floored normalisers raised to the floor, over all batches of a size.",
	}
	for _, m := range cfg.Methods {
		rec["Methods"] = append(asSlice(rec["Methods"]), m.String())
	}
	// Timings go to their own file, so that a rerun leaves variance_config.json unchanged.
	timing := map[string]any{"Study": "variance", "GoVersion": runtime.Version(), "CPUs": runtime.NumCPU(),
		"Seconds": o.Seconds, "EstimateSeconds": o.EstimateSeconds, "TrainSeconds": o.TrainSeconds}
	cp := filepath.Join(cfg.TableDir, "variance_config.json")
	tp := filepath.Join(cfg.TableDir, "variance_timing.json")
	if err := store.WriteJSON(cp, rec); err != nil {
		return err
	}
	if err := store.WriteJSON(tp, timing); err != nil {
		return err
	}
	o.Files = append(o.Files, p, cp, tp)
	return nil
}

func asSlice(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	return nil
}

// ReadVarianceCSV reads a variance.csv written by Variance; errors name the file, line and
// column.
func ReadVarianceCSV(path string) ([]VariancePoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = 5
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", path, err)
	}
	if strings.Join(head, ",") != VarianceCSVHeader {
		return nil, fmt.Errorf("%s: line 1: header %q, want %q", path, strings.Join(head, ","), VarianceCSVHeader)
	}
	var pts []VariancePoint
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return pts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		p := VariancePoint{Estimator: rec[0]}
		if _, err := invmmd.ParseMethod(rec[0]); err != nil {
			return nil, fmt.Errorf("%s: line %d, column estimator: %w", path, line, err)
		}
		var perr error
		if p.BatchSize, perr = strconv.Atoi(rec[1]); perr != nil || p.BatchSize < 2 {
			return nil, fmt.Errorf("%s: line %d, column batch_size: %q is not a batch size", path, line, rec[1])
		}
		if p.N, perr = strconv.Atoi(rec[4]); perr != nil || p.N < 1 {
			return nil, fmt.Errorf("%s: line %d, column n: %q is not a count", path, line, rec[4])
		}
		for k, dst := range []*float64{&p.Mean, &p.Std} {
			v, err := strconv.ParseFloat(rec[2+k], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: line %d, column %s: %q is not a finite number", path, line, []string{"mean", "std"}[k], rec[2+k])
			}
			*dst = v
		}
		pts = append(pts, p)
	}
}
