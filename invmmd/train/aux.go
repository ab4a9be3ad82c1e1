package train

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
)

// Role is what a network is fit for: the model h, or one of the auxiliary models G and m.
// FitAux passes it, with the seed, to the function that builds each auxiliary network, so
// that the caller can give G and m their own architectures without telling them apart by
// their seeds.
type Role int

// The roles of the networks of an experiment.
const (
	RoleH Role = iota // h, the model trained with the penalty (Fit)
	RoleG             // G = P(Δ = 1 | X, Y), the missingness model (FitAux)
	RoleM             // m = P(Z = 1 | X, Y), the nuisance regression (FitAux)
)

// String returns the role's name as reports and configurations spell it: "h", "G", "m".
func (r Role) String() string {
	if names := [...]string{"h", "G", "m"}; r >= 0 && int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Pred holds the auxiliary predictions for the rows of one set.
type Pred struct {
	G []float64 // Ĝ = P̂(Δ = 1 | X, Y)
	M []float64 // m̂ = P̂(Z = 1 | X, Y) of a binary Z
	// MPsi is m̂ = Ê[ψ(Z) | X, Y] of a nuisance that is not binary (M is then nil).
	MPsi *invmmd.Features
}

// Aux holds the frozen auxiliary predictions for each split and how well each model fits.
type Aux struct {
	Train, Val, Test Pred
	G, M             FitReport
	// ZMap is the feature map of a nuisance that is not binary (Runtime.ZMap); nil for a
	// binary Z.
	ZMap invmmd.FeatureMap
	// gModel and mModel are the fitted networks; Predict runs them on new rows (through mNu
	// for a nuisance that is not binary).
	gModel, mModel *Model
	mNu            *nuisanceM
}

// split returns the predictions of split k (0 train, 1 validation, 2 test), nil for a nil a.
func (a *Aux) split(k int) *Pred {
	if a == nil {
		return nil
	}
	return []*Pred{&a.Train, &a.Val, &a.Test}[k]
}

// Predict returns Ĝ and m̂ for the rows of s (e.g. fresh batches in the variance study):
// those of the models FitAux fitted (AuxConfig.Roles), nil for a model it did not fit.
func (a *Aux) Predict(s *dataset.Set) (Pred, error) {
	if a.gModel == nil && a.mModel == nil {
		return Pred{}, fmt.Errorf("train: these auxiliary predictions were not fitted by FitAux, no model to predict with")
	}
	xy := WithLabel(s)
	var p Pred
	var err error
	if a.gModel != nil {
		if p.G, err = a.gModel.Probabilities(xy); err != nil {
			return Pred{}, err
		}
	}
	switch {
	case a.mModel == nil:
	case a.mNu != nil:
		out, err := a.mModel.Outputs(xy)
		if err != nil {
			return Pred{}, err
		}
		p.MPsi = a.mNu.features(out)
	default:
		if p.M, err = a.mModel.Probabilities(xy); err != nil {
			return Pred{}, err
		}
	}
	return p, nil
}

// WithG returns a copy of a (fitted for m alone, AuxConfig.Roles) with g's missingness
// model: its network, report and predictions on the three splits, so that one Aux predicts
// both, as when the kernel on Z is fixed from Ĝ between the two fits.
func (a *Aux) WithG(g *Aux) *Aux {
	b := *a
	b.gModel, b.G = g.gModel, g.G
	b.Train.G, b.Val.G, b.Test.G = g.Train.G, g.Val.G, g.Test.G
	return &b
}

// WithLabel returns s with the label Y appended to every row's features, the input of
// the auxiliary models: G_W = E[Δ | X, Y] and m_W = E[Z | X, Y] are functions of W = (X, Y).
// A binary label is one value: a table's rows gain a column ([d] → [d+1]); an image gains a
// constant channel ([H, W, C] → [H, W, C+1]). A label of K > 2 classes (Set.Classes) comes
// one-hot, K values instead of one, so that G and m need not treat the classes as ordered.
func WithLabel(s *dataset.Set) *dataset.Set {
	d, n := s.Dim(), s.Len()
	shape := append([]int(nil), s.Shape...)
	width := 1 // values per label: the label, or its one-hot
	if s.NumClasses() > 2 {
		width = s.NumClasses()
	}
	plane, c := 1, d // copies of the label per row (one per pixel for images), values per copy
	if len(shape) == 3 {
		plane, c = shape[0]*shape[1], shape[2]
		shape[2] += width
	} else {
		shape = []int{d + width}
	}
	out := *s
	out.Shape = shape
	out.X = make([]float32, 0, n*(d+plane*width))
	y := make([]float32, width)
	for i := 0; i < n; i++ {
		row := s.Row(i)
		if width == 1 {
			y[0] = float32(s.Y[i])
		} else {
			clear(y)
			y[int(s.Y[i])] = 1
		}
		for p := 0; p < plane; p++ {
			out.X = append(out.X, row[p*c:(p+1)*c]...)
			out.X = append(out.X, y...)
		}
	}
	return &out
}

// FitReport says how well an auxiliary model fits its validation rows.
type FitReport struct {
	Model     string  // "G" or "m" (Role.String)
	Net       string  // architecture
	Target    string  // what it predicts
	TrainRows int     // rows it was fit on
	ValRows   int     // rows it was validated on
	ValNLL    float64 // mean Bernoulli NLL
	ValAcc    float64 // accuracy of the 0.5 threshold
	ValECE    float64 // expected calibration error, 10 equal-width bins
	BestEpoch int
	// Why and when training ended (see History).
	StopReason StopReason
	StopEpoch  int
	MaxEpochs  int
	// BayesNLL is the validation NLL of the true probabilities (G from the data's true G,
	// m from Runtime.BayesM) when known (HasBayes): the floor that ValNLL approaches as
	// the model converges.
	BayesNLL float64
	HasBayes bool
	// MAETrueG is the mean |Ĝ − G| on validation rows when the true G is known
	// (HasTrueG), else 0.
	MAETrueG float64
	HasTrueG bool
	// For the m of a nuisance that is not binary (Kind): ValNLL is the NLL of the
	// observed Z (categorical: of its level; continuous: of its standardised value under
	// the normal predictive), ValAcc the accuracy of the most probable level (categorical),
	// and BaselineNLL the same NLL of the marginal model that ignores (X, Y) (HasBaseline):
	// an m not below it has learned nothing.
	Kind        dataset.ZKind
	BaselineNLL float64
	HasBaseline bool
	// Floored counts training rows with Ĝ below the floor that the estimators apply.
	Floored int
	Seconds float64
}

// String renders the report on one line.
func (r FitReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s; target %s): %d train rows, val NLL %.4f", r.Model, r.Net, r.Target, r.TrainRows, r.ValNLL)
	if r.HasBayes {
		fmt.Fprintf(&b, " (Bayes %.4f)", r.BayesNLL)
	}
	switch {
	case r.HasBaseline && r.Kind == dataset.CategoricalZ:
		fmt.Fprintf(&b, " (marginal %.4f), acc %.3f", r.BaselineNLL, r.ValAcc)
	case r.HasBaseline:
		fmt.Fprintf(&b, " (marginal %.4f)", r.BaselineNLL)
	default:
		fmt.Fprintf(&b, ", acc %.3f, ECE %.3f", r.ValAcc, r.ValECE)
	}
	fmt.Fprintf(&b, ", best epoch %d, stopped at %d of %d by %s",
		r.BestEpoch, r.StopEpoch, r.MaxEpochs, r.StopReason)
	if r.Seconds > 0 { // 0: a record that must not vary between reruns
		fmt.Fprintf(&b, ", %.1fs", r.Seconds)
	}
	if r.HasTrueG {
		fmt.Fprintf(&b, ", mean |Ĝ−G| %.3f", r.MAETrueG)
	}
	if r.Model == "G" {
		rows := "rows"
		if r.Floored == 1 {
			rows = "row"
		}
		fmt.Fprintf(&b, ", %d train %s with Z observed below the floor", r.Floored, rows) // Δ = 1 only: the rows whose weight 1/Ĝ the floor caps
	}
	return b.String()
}

// FitAux fits G on every training row (target Δ) and m on the training rows where Z is
// observed (target Z), both on the features and the label (WithLabel), each keeping its
// best epoch by validation NLL, and returns their predictions on all three splits. newNet
// builds a fresh network for a role (RoleG or RoleM) from a seed: G's is cfg.Seed, m's
// cfg.Seed+1. rt says what the fits run with (Runtime; its ZMap is required for a nuisance
// that is not binary). ctx is checked before every step: once it is done, FitAux returns
// within a step with an error wrapping ctx.Err().
func FitAux(ctx context.Context, sp dataset.Splits, newNet func(role Role, seed uint64) models.Net, cfg AuxConfig, rt Runtime) (*Aux, error) {
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	var bayesM []float64
	if rt.BayesM != nil {
		if bayesM = rt.BayesM(sp.Val); len(bayesM) != sp.Val.Len() {
			return nil, fmt.Errorf("train: Runtime.BayesM gave %d probabilities for %d validation rows", len(bayesM), sp.Val.Len())
		}
	}
	sp = dataset.Splits{Train: WithLabel(sp.Train), Val: WithLabel(sp.Val), Test: WithLabel(sp.Test)}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.BatchSize = cmp.Or(cfg.BatchSize, sp.Train.Len()) // cfg is a copy: the caller's record keeps 0
	b, err := rt.backend()
	if err != nil {
		return nil, err
	}
	cfg.GFloor = cmp.Or(cfg.GFloor, invmmd.DefaultGFloor)
	trainObs, valObs := observedRows(sp.Train), observedRows(sp.Val)
	if cfg.fits(RoleM) && len(trainObs) < 2 {
		return nil, fmt.Errorf("train: m is fit on the rows with Z observed, and the training set has %d of them", len(trainObs))
	}
	if cfg.fits(RoleM) && len(valObs) == 0 {
		return nil, fmt.Errorf("train: the validation set has no row with Z observed: m cannot be validated")
	}
	nonBinary := sp.Train.Nuisance.Kind != dataset.BinaryZ
	if nonBinary && rt.ZMap == nil {
		return nil, fmt.Errorf("train: the nuisance of %s is %v: Runtime.ZMap must give its feature map (invmmd.NewMap)", sp.Train.Name, sp.Train.Nuisance)
	}
	aux := &Aux{}
	if nonBinary {
		aux.ZMap = rt.ZMap
	}
	if nonBinary && cfg.fits(RoleM) {
		model, nm, preds, rep, err := fitNuisanceM(ctx, b, sp, trainObs, valObs, newNet(RoleM, cfg.Seed+1), cfg.Seed+1, cfg, rt)
		if err != nil {
			return nil, err
		}
		aux.Train.MPsi, aux.Val.MPsi, aux.Test.MPsi, aux.mModel, aux.mNu, aux.M = preds[0], preds[1], preds[2], model, nm, rep
	}
	tasks := []auxTask{
		{role: RoleG, target: "Delta", rows: allRows(sp.Train.Len()), valRows: allRows(sp.Val.Len()), seed: cfg.Seed,
			train: sp.Train.Delta, val: sp.Val.Delta, truth: sp.Val.GTrue},
		{role: RoleM, target: "Z where observed", rows: trainObs, valRows: valObs, seed: cfg.Seed + 1,
			train: sp.Train.Z, val: sp.Val.Z, valW: sp.Val.Delta, truth: bayesM},
	}
	if nonBinary {
		tasks = tasks[:1] // m is fitted above
	}
	for _, task := range tasks {
		if !cfg.fits(task.role) {
			continue
		}
		model, preds, rep, err := task.fit(ctx, b, sp, newNet(task.role, task.seed), cfg, rt)
		if err != nil {
			return nil, err
		}
		if task.role == RoleG {
			aux.Train.G, aux.Val.G, aux.Test.G, aux.gModel, aux.G = preds[0], preds[1], preds[2], model, rep
		} else {
			aux.Train.M, aux.Val.M, aux.Test.M, aux.mModel, aux.M = preds[0], preds[1], preds[2], model, rep
		}
	}
	return aux, nil
}

// observedRows returns the rows of s where Z is observed (Δ = 1).
func observedRows(s *dataset.Set) []int {
	var r []int
	for i, d := range s.Delta {
		if d == 1 {
			r = append(r, i)
		}
	}
	return r
}

// auxTask is the fit of one auxiliary model: its role, target and rows.
type auxTask struct {
	role          Role
	target        string // what it predicts, for the report
	rows, valRows []int  // training and validation rows it is fit and validated on
	seed          uint64
	train, val    []float64 // targets per row of the training and validation sets
	valW          []float64 // validation rows counted (nil: all)
	truth         []float64 // the true probabilities on the validation rows, when known
}

// fit trains the task's network net on sp (whose features carry the label) and returns the
// model at its best epoch by validation NLL, its probabilities on the three splits and its
// report.
func (t auxTask) fit(ctx context.Context, b backends.Backend, sp dataset.Splits, net models.Net, cfg AuxConfig, rt Runtime) (*Model, [3][]float64, FitReport, error) {
	var preds [3][]float64
	spec := cfg.spec(t.role, sp.Train, t.rows, t.seed, rt)
	spec.target = t.train
	spec.validate = func(m *Model) (float64, error) {
		h, err := m.Logits(sp.Val)
		if err != nil {
			return 0, err
		}
		return meanNLL(h, t.val, t.valW), nil
	}
	model, hist, err := fit(ctx, b, net, spec)
	if err != nil {
		return nil, preds, FitReport{}, err
	}
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		if preds[k], err = model.Probabilities(s); err != nil {
			return nil, preds, FitReport{}, err
		}
	}
	rep := newFitReport(t.role, net, t.target, t.rows, t.valRows, hist)
	rep.ValNLL, rep.ValAcc, rep.ValECE = classification(preds[1], t.val, t.valW)
	if t.truth != nil {
		rep.BayesNLL, _, _ = classification(t.truth, t.val, t.valW)
		rep.HasBayes = true
	}
	if t.role == RoleG {
		if sp.Val.GTrue != nil {
			rep.HasTrueG = true
			for i, g := range preds[1] {
				rep.MAETrueG += math.Abs(g - sp.Val.GTrue[i])
			}
			rep.MAETrueG /= float64(len(preds[1]))
		}
		for i, g := range preds[0] {
			if g < cfg.GFloor && sp.Train.Delta[i] == 1 {
				rep.Floored++
			}
		}
	}
	return model, preds, rep, nil
}

// spec returns the fit of the auxiliary model of role r on rows of set: its batches never
// exceed the rows (m sees only the observed ones), its epoch kept by validation NLL.
func (c AuxConfig) spec(r Role, set *dataset.Set, rows []int, seed uint64, rt Runtime) fitSpec {
	return fitSpec{name: r.String(), set: set, rows: rows, batch: min(c.BatchSize, len(rows)),
		epochs: c.Epochs, patience: c.Patience, lr: c.LearningRate, seed: seed, rt: rt}
}

// newFitReport returns the report of an auxiliary model's fit with what every kind shares:
// the model, its rows and how its training ended.
func newFitReport(r Role, net models.Net, target string, rows, valRows []int, hist *History) FitReport {
	return FitReport{Model: r.String(), Net: net.Describe(), Target: target, TrainRows: len(rows), ValRows: len(valRows),
		BestEpoch: hist.BestEpoch, StopReason: hist.StopReason, StopEpoch: hist.StopEpoch, MaxEpochs: hist.MaxEpochs, Seconds: hist.Seconds}
}

// classification returns the NLL, accuracy and expected calibration error (10 equal-width
// bins; Naeini et al. 2015) of probabilities p for binary targets y over rows with w = 1
// (all when w is nil).
func classification(p, y, w []float64) (nll, acc, ece float64) {
	var bins [10]struct{ n, conf, pos float64 }
	n := 0.0
	for i, pi := range p {
		if w != nil && w[i] == 0 {
			continue
		}
		n++
		q := math.Min(math.Max(pi, 1e-12), 1-1e-12)
		nll -= y[i]*math.Log(q) + (1-y[i])*math.Log(1-q)
		if (pi >= 0.5) == (y[i] == 1) {
			acc++
		}
		b := min(int(pi*10), 9)
		bins[b].n++
		bins[b].conf += pi
		bins[b].pos += y[i]
	}
	for _, b := range bins {
		if b.n > 0 {
			ece += math.Abs(b.conf-b.pos) / n
		}
	}
	return nll / n, acc / n, ece
}
