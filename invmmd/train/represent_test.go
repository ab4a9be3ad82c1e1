package train

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	stdcontext "context"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/penalty"
)

// featureMLP is the test's network for the features penalty: two hidden layers, so the
// penultimate layer (8 columns) is not the first.
func featureMLP(seed uint64) models.Net { return models.MLP{Hidden: []int{12, 8}, Seed: seed} }

// penaltyAt returns the float64 penalty Σ_y MMD²_y of method on the features of model over
// every training row, with the training step's design (TrainingGuard) and bandwidth sigma.
func penaltyAt(t *testing.T, model *Model, sp dataset.Splits, aux *Aux, method method.Method, opts invmmd.Options) (float64, []float64) {
	t.Helper()
	f, err := model.Features(sp.Train)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := RowsFor(sp.Train, aux.split(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := invmmd.NewDesign(rows, opts, method)
	if err != nil {
		t.Fatal(err)
	}
	d.TrainingGuard()
	res, err := d.Evaluate(f, invmmd.ExactSums{})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Value, res[0].Strata
}

// TestFeaturesPenaltyInAStep checks the penalty that a training step computes on the
// penultimate features against the float64 estimator (Design.Evaluate) on the same
// weights: one full-batch step of full and of dr, whose per-stratum estimates (Trace)
// come from the initial network, which the seed fixes. It also checks the bandwidth (the
// median heuristic on the initial training features) and the record.
func TestFeaturesPenaltyInAStep(t *testing.T) {
	sp := smallSim(t, 11)
	aux := quickAux(t, sp)
	for _, tc := range []struct {
		method method.Method
		path   PenaltyPath
		tol    float64 // relative, per stratum
		record string
	}{
		{method.Full, PathAuto, 2e-4, "exact"},
		{method.DR, PathExact, 2e-4, "exact"},
		{method.DR, PathFourier, 0.1, "rff D=1024"}, // random features: within a few percent
	} {
		t.Run(tc.method.String()+"/"+tc.path.String(), func(t *testing.T) {
			opts := invmmd.Options{MainFraction: 1}
			var strata []float64
			cfg := Config{Method: tc.method, Lambda: 1, Epochs: 1, LearningRate: 1e-3, Seed: 3, Estimator: opts, Penalty: tc.path,
				Represent: RepresentFeatures}
			model, hist, err := Fit(stdcontext.Background(), sp, aux, featureMLP(3), cfg, Runtime{Hooks: []Hook{Trace(func(s StepTrace) { strata = s.Strata })}})
			if err != nil {
				t.Fatal(err)
			}
			if hist.Represent != "features" || hist.PenaltyPath != tc.record || model.Represent != RepresentFeatures {
				t.Errorf("record: represent %q, path %q, model %q", hist.Represent, hist.PenaltyPath, model.Represent)
			}
			b, err := backend.Shared()
			if err != nil {
				t.Fatal(err)
			}
			initial := newModel(b, featureMLP(3), sp.Train.Len())
			f0, err := initial.Features(sp.Train)
			if err != nil {
				t.Fatal(err)
			}
			if f0.Dim != 8 {
				t.Fatalf("features of %d columns, want the last hidden layer's 8", f0.Dim)
			}
			sigma, err := invmmd.MedianBandwidth(f0)
			if err != nil {
				t.Fatal(err)
			}
			if hist.Bandwidth != sigma || model.Bandwidth != sigma {
				t.Errorf("bandwidth %v (model %v), want the median heuristic on the initial features %v", hist.Bandwidth, model.Bandwidth, sigma)
			}
			opts.Bandwidth = sigma
			_, want := penaltyAt(t, initial, sp, aux, tc.method, opts)
			if len(strata) != len(want) {
				t.Fatalf("step strata %v, want %v", strata, want)
			}
			for k := range want {
				if d := math.Abs(strata[k] - want[k]); d > tc.tol*math.Abs(want[k])+1e-6 {
					t.Errorf("stratum %d: step %.6g, Evaluate %.6g", k, strata[k], want[k])
				}
			}
		})
	}
}

// TestFeaturesPenaltyGradient checks the gradient of the training step's features penalty
// (the network's Features and featuresPenaltyGraph, exact) with respect to the
// penultimate layer's weights against central differences of the float64 estimator
// (Design.Evaluate) along a random direction.
func TestFeaturesPenaltyGradient(t *testing.T) {
	sp := smallSim(t, 12)
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	net := featureMLP(5).(models.FeatureNet)
	n := 400
	idx := allRows(n)
	set := sp.Train.Subset("batch", idx)
	model := newModel(b, net, n)
	f0, err := model.Features(set)
	if err != nil {
		t.Fatal(err)
	}
	sigma, _ := invmmd.MedianBandwidth(f0)
	opts := invmmd.Options{MainFraction: 1, Bandwidth: sigma}
	rows, err := RowsFor(set, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := invmmd.NewDesign(rows, opts, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := penalty.Tensors(d, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	// The variable: the last hidden layer's weights.
	var target *context.Variable
	for vr := range model.ctx.IterVariables() {
		if strings.HasSuffix(vr.Scope(), "hidden1") && vr.Name() == "weights" {
			target = vr
		}
	}
	if target == nil {
		t.Fatal("no hidden1/weights variable")
	}
	w0 := tensors.MustCopyFlatData[float32](target.MustValue())
	dims := target.Shape().Dimensions
	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float32, len(w0))
	for i := range u {
		u[i] = float32(rng.NormFloat64())
	}
	exec, err := context.NewExec(b, model.ctx.In(modelScope), func(ctx *context.Context, x, v, c, sg *Node) []*Node {
		feats, _ := net.Features(ctx, x)
		pen := ReduceAllSum(featuresPenaltyGraph(feats, v, c, sg, 0, 0))
		w := ctx.GetVariableByScopeAndName(target.Scope(), target.Name()).ValueGraph(x.Graph())
		grad := Gradient(pen, w)[0]
		dir := Const(x.Graph(), tensors.FromFlatDataAndDimensions(u, dims...))
		return []*Node{pen, ReduceAllSum(Mul(grad, dir))}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(featureTensor(set, idx), v, c, tensors.FromScalar(float32(sigma)))
	if err != nil {
		t.Fatal(err)
	}
	pen, dirDeriv := scalar(out[0]), scalar(out[1])
	at := func(eps float64) float64 {
		w := make([]float32, len(w0))
		for i := range w {
			w[i] = w0[i] + float32(eps)*u[i]
		}
		if err := target.SetValue(tensors.FromFlatDataAndDimensions(w, dims...)); err != nil {
			t.Fatal(err)
		}
		f, err := model.Features(set)
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Evaluate(f, invmmd.ExactSums{})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].Value
	}
	p0 := at(0)
	if math.Abs(pen-p0) > 1e-4*math.Abs(p0)+1e-7 {
		t.Errorf("graph penalty %.7g, Evaluate %.7g", pen, p0)
	}
	const eps = 1e-3
	fd := (at(eps) - at(-eps)) / (2 * eps)
	if math.Abs(fd-dirDeriv) > 0.02*math.Abs(fd)+1e-6 {
		t.Errorf("directional derivative: graph %.6g, central differences %.6g", dirDeriv, fd)
	}
	if fd == 0 {
		t.Errorf("the penalty does not change along the direction; the check is empty")
	}
}

// logitOnly is a network without a penultimate layer to expose (no models.FeatureNet).
type logitOnly struct{ m models.MLP }

func (l logitOnly) Logit(ctx *context.Context, x *Node) *Node { return l.m.Logit(ctx, x) }
func (l logitOnly) Describe() string                          { return "logit-only " + l.m.Describe() }

// TestRepresentErrors checks the errors of the features penalty: an unknown
// representation, and a network without features (for a penalised method and for none,
// whose evaluation is on the features too), named in the message.
func TestRepresentErrors(t *testing.T) {
	sp := smallSim(t, 13)
	base := Config{Method: method.Full, Lambda: 1, BatchSize: 300, Epochs: 1, LearningRate: 1e-3}
	for _, tc := range []struct {
		name string
		cfg  func(Config) Config
		net  models.Net
		want string
	}{
		{"unknown", func(c Config) Config { c.Represent = "penultimate"; return c }, mlp(1), `representation "penultimate", want logits or features`},
		{"no features", func(c Config) Config { c.Represent = RepresentFeatures; return c }, logitOnly{models.MLP{Hidden: []int{4}}}, "logit-only MLP [4]"},
		{"none, no features", func(c Config) Config { c.Method, c.Represent = method.None, RepresentFeatures; return c }, logitOnly{models.MLP{Hidden: []int{4}}}, "models.FeatureNet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Fit(stdcontext.Background(), sp, nil, tc.net, tc.cfg(base), Runtime{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	b, _ := backend.Shared()
	m := newModel(b, logitOnly{models.MLP{Hidden: []int{4}}}, 100)
	if _, err := m.Features(sp.Val); err == nil || !strings.Contains(err.Error(), "models.FeatureNet") {
		t.Errorf("Features of a network without them: %v", err)
	}
}

// TestRepresentation checks the names of the representations, and that the logits (the
// zero value) leave a configuration's JSON as it was while features are recorded.
func TestRepresentation(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Representation
		err  bool
	}{{"logits", RepresentLogits, false}, {"", RepresentLogits, false}, {"features", RepresentFeatures, false}, {"feature", "", true}} {
		got, err := ParseRepresentation(tc.name)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseRepresentation(%q) = %q, %v", tc.name, got, err)
		}
		if !tc.err && tc.name != "" && got.String() != tc.name {
			t.Errorf("%q.String() = %q", got, got.String())
		}
	}
	for _, tc := range []struct {
		r    Representation
		want bool
	}{{RepresentLogits, false}, {RepresentFeatures, true}} {
		js, err := json.Marshal(Config{Represent: tc.r})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(js), `"Represent":"features"`); got != tc.want || (!tc.want && strings.Contains(string(js), "Represent")) {
			t.Errorf("Represent %q in JSON: %s", tc.r, js)
		}
	}
}

// TestFeaturesEvaluation checks that a model trained on its features is evaluated on
// them: TrainMMD is the full estimator on the training features with the fit's σ, and
// the same model read as a logit model gives another number, which the features model
// reports as TrainMMDLogit.
func TestFeaturesEvaluation(t *testing.T) {
	sp := smallSim(t, 14)
	model, hist, err := Fit(stdcontext.Background(), sp, nil, featureMLP(2), Config{Method: method.Full, Lambda: 1, BatchSize: 300, Epochs: 2, LearningRate: 1e-2, Seed: 2,
		Represent: RepresentFeatures}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(model, sp, EvalOptions{})
	met := ev.Metrics
	if err != nil {
		t.Fatal(err)
	}
	f, err := model.Features(sp.Train)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := RowsFor(sp.Train, nil, nil)
	res, err := invmmd.Estimate(stdcontext.Background(), f, rows, invmmd.Options{Bandwidth: hist.Bandwidth, MainFraction: 1}, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	if met.TrainMMD != res[0].Value {
		t.Errorf("TrainMMD %v, want the full estimator on the features %v", met.TrainMMD, res[0].Value)
	}
	lm, lh, err := Fit(stdcontext.Background(), sp, nil, featureMLP(2), Config{Method: method.Full, Lambda: 1, BatchSize: 300, Epochs: 1, LearningRate: 1e-2, Seed: 2}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(lh); strings.Contains(string(js), "Represent") || strings.Contains(string(js), "Bandwidth") || lm.Represent != RepresentLogits {
		t.Errorf("a logits fit's record names its representation (the paper's records would change): %s", js)
	}
	model.Represent = RepresentLogits
	ev2, err := Evaluate(model, sp, EvalOptions{})
	logit := ev2.Metrics
	if err != nil {
		t.Fatal(err)
	}
	if logit.TrainMMD == met.TrainMMD || logit.TrainAcc != met.TrainAcc {
		t.Errorf("logits: %+v, features: %+v; want the same accuracy and another MMD", logit, met)
	}
	// The features model also reports its logit's MMD, σ = 1: what the logits model reports
	// as TrainMMD; a logits model leaves it 0 (absent from its records).
	if met.TrainMMDLogit != logit.TrainMMD || logit.TrainMMDLogit != 0 {
		t.Errorf("TrainMMDLogit %v, want the logit's TrainMMD %v (and 0 for the logits model, got %v)", met.TrainMMDLogit, logit.TrainMMD, logit.TrainMMDLogit)
	}
	if js, _ := json.Marshal(logit); strings.Contains(string(js), "TrainMMDLogit") {
		t.Errorf("a logits model's metrics name TrainMMDLogit (the paper's records would change): %s", js)
	}
}
