package train

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/simcont"
)

// benchStepRows is the batch of the nuisance benchmarks: the simulation's batch for h.
const benchStepRows = 2000

// BenchmarkNuisanceStep times one training step of h (MLP [64, 64], the DR penalty, batch
// 2000, the penalty path Auto picks) for each kind of nuisance: the paper's binary Z (its
// conditional MMD², the baseline), a categorical Z with K = 2, 3 and 5 levels, and a
// continuous Z whose Gaussian kernel is expanded into D Fourier features (D set through
// the expansion's tolerance). scripts/bench.sh turns it into the "nuisance" section of
// BENCHMARKS.md, with each step's time as a ratio to the binary one of the same run.
func BenchmarkNuisanceStep(b *testing.B) {
	be, err := backend.Shared()
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	type bench struct {
		name string
		set  *dataset.Set
		zmap invmmd.FeatureMap
	}
	var benches []bench
	benches = append(benches, bench{"binary", sim.Sample(rng, "train", benchStepRows, sim.TrainAgree, sim.DefaultSigmaX), nil})
	for _, k := range []int{2, 3, 5} {
		s := sim.Sample(rng, "train", benchStepRows, sim.TrainAgree, sim.DefaultSigmaX)
		levels := make([]string, k)
		for l := range levels {
			levels[l] = fmt.Sprint(l)
		}
		s.Nuisance = dataset.Nuisance{Kind: dataset.CategoricalZ, Levels: levels}
		for i := range s.Z {
			s.Z[i] = float64(rng.IntN(k))
		}
		benches = append(benches, bench{fmt.Sprintf("categorical-K%d", k), s, invmmd.CategoricalMap{K: k, Names: levels}})
	}
	for _, tol := range []float64{1e-1, 1e-2, 1e-3, 1e-5} {
		s := simcont.Sample(rng, "train", benchStepRows, false, sim.DefaultSigmaX, simcont.DefaultTau)
		gm, err := invmmd.NewGaussianMap(s.Z, nil, 0, tol)
		if err != nil {
			b.Fatal(err)
		}
		benches = append(benches, bench{fmt.Sprintf("continuous-D%d", gm.Dim()), s, gm})
	}
	for _, bc := range benches {
		b.Run(bc.name, func(b *testing.B) {
			n := bc.set.Len()
			p := &Pred{G: make([]float64, n)}
			for i := range p.G {
				p.G[i] = 0.5
			}
			if bc.zmap == nil {
				p.M = p.G
			} else {
				p.MPsi = invmmd.NewFeatures(n, bc.zmap.Dim())
				for i := range p.MPsi.Data {
					p.MPsi.Data[i] = 1 / float64(bc.zmap.Dim())
				}
			}
			rows, err := RowsFor(bc.set, p, bc.zmap)
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Method: method.DR, Lambda: 1, BatchSize: n, Epochs: 1, LearningRate: 1e-3, Seed: 1}
			cfg.Estimator = estimandFor(bc.set, cfg.Estimator)
			cfg.Estimator.MainFraction = 1
			idx := allRows(n)
			spec := fitSpec{name: bc.name, set: bc.set, rows: idx, target: bc.set.Y, batch: n, epochs: 1, lr: 1e-3, seed: 1}
			if spec.penalty, err = newPenaltySpec(&plan{Config: cfg}, rows, idx); err != nil {
				b.Fatal(err)
			}
			r, err := newFitRun(be, models.MLP{Hidden: []int{64, 64}, Seed: 1}, spec)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.chooseInitialTerms(); err != nil {
				b.Fatal(err)
			}
			if _, _, err := r.step(1, 1, idx); err != nil { // compile outside the timing
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := r.step(1, 1, idx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(spec.penalty.columns), "columns")
			b.ReportMetric(float64(r.terms), "fourier-terms")
		})
	}
}
