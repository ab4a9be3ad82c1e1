package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/simcont"
)

func auxConfigFor() AuxConfig {
	return AuxConfig{BatchSize: 256, Epochs: 60, Patience: 8, LearningRate: 5e-3, Seed: 1}
}

func mlpFor(_ Role, seed uint64) models.Net { return models.MLP{Hidden: []int{16, 16}, Seed: seed} }

// rowDist is the Euclidean distance between two feature rows.
func rowDist(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

// TestFitAuxContinuous fits m of the continuous-nuisance simulation as a normal and checks
// it against the closed-form truth: its validation NLL is near the true posterior's and far
// below the marginal model's, and its m̂ = Ê[ψ(Z) | X, Y] is much closer to the true
// E[ψ(Z) | X, Y] (the Gaussian map's mean under the true normal posterior) than the
// marginal mean of ψ is.
func TestFitAuxContinuous(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two networks")
	}
	sp, err := simcont.Generate(simcont.Config{NTrain: 3000, NVal: 1500, NTest: 1500, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	zmap, err := invmmd.NewMap(sp.Train.Nuisance, sp.Train.ObservedZ(), nil, invmmd.MapSpec{})
	if err != nil {
		t.Fatal(err)
	}
	aux, err := FitAux(context.Background(), sp, mlpFor, auxConfigFor(), Runtime{ZMap: zmap})
	if err != nil {
		t.Fatal(err)
	}
	rep := aux.M
	if !rep.HasBaseline || rep.Kind != dataset.ContinuousZ {
		t.Fatalf("m's report %+v has no marginal baseline", rep)
	}
	// The true posterior's NLL in the same standardised units.
	nm := aux.mNu
	var bayes float64
	var obs []int
	for i, d := range sp.Val.Delta {
		if d == 1 {
			obs = append(obs, i)
		}
	}
	trueM := invmmd.NewFeatures(sp.Val.Len(), zmap.Dim())
	var margMean = make([]float64, zmap.Dim())
	for i := 0; i < sp.Val.Len(); i++ {
		x := sp.Val.Row(i)
		mu, v := simcont.TruePosterior(float64(x[0]), float64(x[1]), sp.Val.Y[i], 0.7, simcont.DefaultTau)
		zmap.(invmmd.NormalMeans).MeanUnderNormal([]float64{mu}, []float64{v}, trueM.Row(i))
		if sp.Val.Delta[i] == 1 {
			zs, ms, vs := (sp.Val.Z[i]-nm.mean[0])/nm.sd[0], (mu-nm.mean[0])/nm.sd[0], v/(nm.sd[0]*nm.sd[0])
			bayes += 0.5 * (math.Log(2*math.Pi*vs) + (zs-ms)*(zs-ms)/vs)
		}
	}
	bayes /= float64(len(obs))
	t.Logf("%s; true posterior NLL %.4f", rep, bayes)
	if rep.ValNLL > rep.BaselineNLL-0.4 || rep.ValNLL > bayes+0.08 {
		t.Errorf("m's validation NLL %.4f: want it near the true posterior's %.4f and well below the marginal's %.4f", rep.ValNLL, bayes, rep.BaselineNLL)
	}
	// m̂ against the truth, and the marginal mean of ψ against the truth.
	psi, err := invmmd.Apply(zmap, sp.Train.ObservedZ())
	if err != nil {
		t.Fatal(err)
	}
	nObs := 0
	for i := 0; i < psi.Len(); i++ {
		if sp.Train.Delta[i] == 1 {
			nObs++
			for k, v := range psi.Row(i) {
				margMean[k] += v
			}
		}
	}
	for k := range margMean {
		margMean[k] /= float64(nObs)
	}
	var errM, errMarg float64
	for i := 0; i < sp.Val.Len(); i++ {
		errM += rowDist(aux.Val.MPsi.Row(i), trueM.Row(i))
		errMarg += rowDist(margMean, trueM.Row(i))
	}
	t.Logf("mean distance to the true m: fitted %.4f, marginal %.4f", errM/float64(sp.Val.Len()), errMarg/float64(sp.Val.Len()))
	if errM > 0.3*errMarg {
		t.Errorf("m̂ is %.4f from the true m on average, the marginal mean %.4f: want m̂ at most 0.3 of that", errM/float64(sp.Val.Len()), errMarg/float64(sp.Val.Len()))
	}
	// Predict on the validation rows gives the same m̂ as the fit's own predictions.
	p, err := aux.Predict(sp.Val)
	if err != nil {
		t.Fatal(err)
	}
	if d := rowDist(p.MPsi.Data, aux.Val.MPsi.Data); d > 1e-12 || p.M != nil {
		t.Errorf("Predict's m̂ differs from the fit's by %g (M %v)", d, p.M != nil)
	}
}

// catSample draws n rows of a categorical nuisance with 3 levels whose probabilities depend
// on X and Y through a softmax, Z missing at random given X; it returns the true
// P(Z = k | X, Y) per row too.
func catSample(rng *rand.Rand, name string, n int) (*dataset.Set, [][3]float64) {
	s := &dataset.Set{Name: name, Shape: []int{2}, X: make([]float32, 2*n), Y: make([]float64, n), Z: make([]float64, n),
		Delta: make([]float64, n), Nuisance: dataset.Nuisance{Kind: dataset.CategoricalZ, Levels: []string{"a", "b", "c"}}}
	probs := make([][3]float64, n)
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0.0
		if rng.Float64() < 1/(1+math.Exp(-x1)) {
			y = 1
		}
		l := [3]float64{0, 1.5*x1 - y, -1.2*x2 + 0.8*y}
		p := softmax(l[:])
		u, z := rng.Float64(), 2
		if u < p[0] {
			z = 0
		} else if u < p[0]+p[1] {
			z = 1
		}
		s.X[2*i], s.X[2*i+1] = float32(x1), float32(x2)
		s.Y[i], s.Z[i] = y, float64(z)
		if rng.Float64() < 1/(1+math.Exp(-(0.5+x2))) {
			s.Delta[i] = 1
		}
		copy(probs[i][:], p)
	}
	return s, probs
}

// TestFitAuxCategorical fits m of a three-level nuisance as a softmax and checks its NLL
// against the true probabilities' and the marginal frequencies', and that m̂ is a
// probability vector close to the truth.
func TestFitAuxCategorical(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two networks")
	}
	rng := rand.New(rand.NewPCG(9, 1))
	train, _ := catSample(rng, "train", 4000)
	val, truth := catSample(rng, "val", 2000)
	test, _ := catSample(rng, "test", 500)
	sp := dataset.Splits{Train: train, Val: val, Test: test}
	zmap, err := invmmd.NewMap(train.Nuisance, train.ObservedZ(), nil, invmmd.MapSpec{})
	if err != nil {
		t.Fatal(err)
	}
	aux, err := FitAux(context.Background(), sp, mlpFor, auxConfigFor(), Runtime{ZMap: zmap})
	if err != nil {
		t.Fatal(err)
	}
	var bayes, dist float64
	n := 0
	for i := 0; i < val.Len(); i++ {
		row := aux.Val.MPsi.Row(i)
		sum := 0.0
		for _, v := range row {
			sum += v
			if v < 0 || v > 1 {
				t.Fatalf("row %d: m̂ %v is not a probability vector", i, row)
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("row %d: m̂ %v sums to %v", i, row, sum)
		}
		dist += rowDist(row, truth[i][:])
		if val.Delta[i] == 1 {
			bayes -= math.Log(truth[i][int(val.Z[i])])
			n++
		}
	}
	bayes /= float64(n)
	rep := aux.M
	t.Logf("%s; true probabilities' NLL %.4f; mean distance of m̂ to them %.4f", rep, bayes, dist/float64(val.Len()))
	if rep.ValNLL > bayes+0.05 || rep.ValNLL > rep.BaselineNLL-0.1 {
		t.Errorf("m's validation NLL %.4f: want it within 0.05 of the true probabilities' %.4f and 0.1 below the marginal's %.4f", rep.ValNLL, bayes, rep.BaselineNLL)
	}
	if dist/float64(val.Len()) > 0.12 {
		t.Errorf("m̂ is %.4f from the true probabilities on average, want ≤ 0.12", dist/float64(val.Len()))
	}
}

// TestFitAuxNeedsMap checks the error for a nuisance that is not binary without a map.
func TestFitAuxNeedsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	a, _ := catSample(rng, "train", 50)
	b, _ := catSample(rng, "val", 50)
	c, _ := catSample(rng, "test", 50)
	_, err := FitAux(context.Background(), dataset.Splits{Train: a, Val: b, Test: c}, mlpFor, AuxConfig{Epochs: 1, LearningRate: 1e-3}, Runtime{})
	if err == nil || !strings.Contains(err.Error(), "Runtime.ZMap must give its feature map") {
		t.Errorf("FitAux without a map: %v", err)
	}
}

// TestJointPenaltyTrains trains h on the continuous-nuisance simulation without a penalty
// and with the dr estimate of the joint MMD² (Z missing for a third of the rows), and
// checks that the penalty does its job: the full-data joint MMD² on the training set (Z is
// known there in simulation) falls to a fraction of the unpenalised model's, and the
// accuracy under the shifted test distribution rises.
func TestJointPenaltyTrains(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three networks")
	}
	sp, err := simcont.Generate(simcont.Config{NTrain: 3000, NVal: 1500, NTest: 3000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	zmap, err := invmmd.NewMap(sp.Train.Nuisance, sp.Train.ObservedZ(), nil, invmmd.MapSpec{})
	if err != nil {
		t.Fatal(err)
	}
	aux, err := FitAux(context.Background(), sp, mlpFor, auxConfigFor(), Runtime{ZMap: zmap})
	if err != nil {
		t.Fatal(err)
	}
	run := func(m method.Method, lambda float64) Metrics {
		cfg := Config{Method: m, Lambda: lambda, BatchSize: 500, Epochs: 60, Patience: 10, SelectAfter: 3, LearningRate: 5e-3, Seed: 2,
			// JointScale 20 puts λ = 1 at the NLL's order of magnitude here.
			Estimator: invmmd.Options{JointScale: 20}}
		model, hist, err := Fit(context.Background(), sp, aux, models.MLP{Hidden: []int{16, 16}, Seed: 2}, cfg, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		// Z is known on every training row, so TrainMMD is the full estimator's.
		ev, err := Evaluate(model, sp, EvalOptions{Aux: aux, Options: cfg.Estimator, HeldOut: []method.Method{method.Full}})
		met := ev.Metrics
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v λ=%v: train joint MMD² (full) %.5f, train acc %.3f, test acc %.3f, best epoch %d of %d, %s", m, lambda, met.TrainMMD, met.TrainAcc, met.TestAcc, hist.BestEpoch, hist.StopEpoch, hist.PenaltyPath)
		return met
	}
	none := run(method.None, 0)
	dr := run(method.DR, 1)
	if none.TrainMMDBy != method.Full || dr.TrainMMD > 0.4*none.TrainMMD {
		t.Errorf("train joint MMD² by %v: dr %.5f, none %.5f; want dr's at most 0.4 of none's", none.TrainMMDBy, dr.TrainMMD, none.TrainMMD)
	}
	if dr.TestAcc < none.TestAcc+0.04 {
		t.Errorf("shifted test accuracy: dr %.3f, none %.3f; want dr's at least 0.04 higher", dr.TestAcc, none.TestAcc)
	}
}

// TestAuxRoles checks that FitAux fits only the models AuxConfig.Roles names (Predict
// gives nil for the other).
func TestAuxRoles(t *testing.T) {
	sp, err := simcont.Generate(simcont.Config{NTrain: 1500, NVal: 500, NTest: 500, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	zmap, err := invmmd.NewMap(sp.Train.Nuisance, sp.Train.ObservedZ(), nil, invmmd.MapSpec{})
	if err != nil {
		t.Fatal(err)
	}
	newNet := func(_ Role, seed uint64) models.Net { return models.MLP{Hidden: []int{8}, Seed: seed} }
	cfg := AuxConfig{Epochs: 5, LearningRate: 0.01, Seed: 3, Roles: []Role{RoleM}}
	mOnly, err := FitAux(context.Background(), sp, newNet, cfg, Runtime{ZMap: zmap})
	if err != nil {
		t.Fatal(err)
	}
	p, err := mOnly.Predict(sp.Test)
	if err != nil || p.G != nil || p.MPsi == nil {
		t.Fatalf("m only: G %v, MPsi %v, err %v; want no G", p.G != nil, p.MPsi != nil, err)
	}
	g, err := FitAux(context.Background(), sp, newNet, AuxConfig{Epochs: 5, LearningRate: 0.01, Seed: 3, Roles: []Role{RoleG}}, Runtime{ZMap: zmap})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := g.Predict(sp.Test); p.G == nil || p.MPsi != nil || g.M.Model != "" {
		t.Errorf("G only: G %v, MPsi %v, m's report %q; want only G", p.G != nil, p.MPsi != nil, g.M.Model)
	}
}
