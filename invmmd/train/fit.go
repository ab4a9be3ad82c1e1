package train

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlcontext "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
)

// PenaltyPath selects how the training graph computes the kernel sums of the penalty.
type PenaltyPath int

const (
	// PathAuto uses the Fourier expansion (O(n·M)) unless its number of terms makes the exact
	// sum cheaper.
	PathAuto PenaltyPath = iota
	// PathExact builds the n×n kernel matrix of each batch.
	PathExact
	// PathFourier always uses the expansion.
	PathFourier
)

// String names the path.
func (p PenaltyPath) String() string {
	return [...]string{"auto", "exact", "fourier"}[p]
}

// TrainingFourierTol is the per-pair kernel error allowed to the Fourier path in training,
// well below float32's resolution of a penalty summed over a batch.
const TrainingFourierTol = 1e-6

// Epoch is one epoch's record.
type Epoch struct {
	Epoch        int
	TrainLoss    float64 // mean over the epoch's steps
	TrainPenalty float64 // mean penalty over the steps (0 for none)
	ValObjective float64 // the method's validation objective (lower is better)
	// ValNLL and ValStrata are h's validation NLL and the method's raw estimate of each
	// stratum's MMD² on the validation split (nil without a penalty): the parts of
	// ValObjective. Zero for G and m.
	ValNLL    float64
	ValStrata []float64
	Seconds   float64
}

// History is the record of one fit.
type History struct {
	Name      string
	Epochs    []Epoch
	BestEpoch int     // 1-based epoch whose weights were kept
	BestVal   float64 // its validation objective
	// Why and when training ended: StopPatience when Patience epochs after the best one
	// brought no better validation objective, StopMaxEpochs when the cap ended it first.
	StopReason  StopReason
	StopEpoch   int // last epoch trained (= len(Epochs))
	MaxEpochs   int // the cap it ran under
	Patience    int // epochs without improvement that stop training (0: none, run to the cap)
	SelectAfter int // epochs trained before selection started (see Config.SelectAfter)
	Steps       int
	Seconds     float64
	PenaltyPath string // "exact", "fourier M=…" (the last used), "rff D=…"
	// Represent is the layer the penalty acted on, "features" (Config.Represent), and
	// Bandwidth the kernel's σ on it; both empty for the logits, so that the records of the
	// paper's fits do not change.
	Represent  string  `json:",omitempty"`
	Bandwidth  float64 `json:",omitempty"`
	Recompiles int     // times the Fourier graph was rebuilt with more terms
	// Guard counts summed over every training step (see invmmd.Report).
	FlooredG     int // Δ = 1 rows whose Ĝ was raised to the floor
	EmptyStrata  int // strata that contributed 0
	FlooredNorms int // normaliser estimates raised to the floor
	// UnreliableStrata counts stratum penalties flagged unreliable (invmmd.StratumReport),
	// DroppedStrata those of them left out of the penalty (invmmd.Options.DropUnreliable);
	// DropReason is the first one's reason.
	UnreliableStrata int
	DroppedStrata    int
	DropReason       string
}

// fitSpec is one network fit: the loop shared by G, m and h.
type fitSpec struct {
	name   string
	set    *dataset.Set
	rows   []int     // rows of set to train on
	target []float64 // per row of set
	batch  int
	epochs int // the cap
	// patience and selectAfter are the stopping and selection rules' settings (fitHooks),
	// also recorded in History.
	patience, selectAfter int
	lr                    float64
	seed                  uint64
	penalty               *penaltySpec
	// heads, when set, trains a multi-output network instead (the m of a nuisance that is
	// not binary); target is then unused.
	heads    *headsSpec
	validate func(m *Model) (float64, error) // validation objective, lower is better
	valLast  *valRecord                      // h's: the parts of the last validation objective
	rt       Runtime                         // its progress display and own hooks, run after the rules'
}

// fitHooks returns the hooks of a fit: SelectBest, EarlyStopping, the progress bar on w,
// then the runtime's own.
func fitHooks(selectAfter, patience int, w io.Writer, own []Hook) hooks {
	return append(hooks{SelectBest(selectAfter), EarlyStopping(patience), ProgressBar(w)}, own...)
}

// penaltySpec is the MMD penalty of h's fit: the plan's method, λ, estimator options,
// path, clipping and normalisers, with the estimator's inputs and how the training graph
// sums the kernel.
type penaltySpec struct {
	*plan
	rows    invmmd.Rows // estimator inputs for every row of the set
	tol     float64     // the Fourier path's per-pair kernel error
	columns int         // factor columns of the method's design (for the cost model)
	// features puts the penalty on h's penultimate layer (Config.Represent), summed
	// exactly or, when rff > 0, by rff random Fourier features drawn from the seed.
	features bool
	rff      int
}

// fit trains net on s.rows of s.set, the loop shared by G, m and h (Loop), and returns the
// model at the epoch its hooks (fitHooks) kept, with the fit's record. Once ctx is done
// the fit ends, within a step, with an error wrapping ctx.Err().
func fit(ctx context.Context, b backends.Backend, net models.Net, s fitSpec) (*Model, *History, error) {
	r, err := newFitRun(b, net, s)
	if err != nil {
		return nil, nil, err
	}
	if s.penalty != nil && s.penalty.Penalty != PathExact && !s.penalty.features {
		// Choose the penalty path and, for the expansion, its terms from the initial outputs.
		if err := r.chooseInitialTerms(); err != nil {
			return nil, nil, err
		}
	}
	start := time.Now()
	r.hist.StopReason, r.hist.MaxEpochs, r.hist.Patience, r.hist.SelectAfter = StopMaxEpochs, s.epochs, s.patience, s.selectAfter
	r.loop.kept = r.model.snapshot() // the initial weights, returned when no epoch is kept
	if err := r.run(ctx); err != nil {
		return nil, nil, err
	}
	if err := r.model.restore(r.loop.kept); err != nil {
		return nil, nil, err
	}
	r.finish(start)
	return r.model, r.hist, nil
}

// run runs the loop's epochs, from its OnStart hooks to its OnEnd hooks, which see the
// error that ended it.
func (r *fitRun) run(ctx context.Context) error {
	l, hs := r.loop, r.hooks
	err := hs.start(l)
	for epoch := 1; err == nil && epoch <= r.s.epochs; epoch++ {
		l.Epoch, l.Step = epoch, 0
		var ep Epoch
		if ep, err = r.epoch(ctx, epoch); err != nil {
			break
		}
		r.hist.Epochs = append(r.hist.Epochs, ep)
		if err = hs.epoch(l, ep); err != nil {
			err = fmt.Errorf("train %s: %w", r.s.name, err)
			break
		}
		if l.stop != "" {
			r.hist.StopReason = l.stop
			break
		}
	}
	return hs.end(l, err)
}

// fitRun is the state of one fit: the network being trained, its compiled training steps
// and the record so far.
type fitRun struct {
	s     fitSpec
	b     backends.Backend
	net   models.Net
	model *Model
	hist  *History
	opt   optimizers.Interface
	rng   *rand.Rand // batch order
	sigma float64    // the penalty's kernel bandwidth (0 without a penalty)
	// terms is the number of Fourier terms of the step in use, 0 for the exact sum or no
	// penalty; steps holds the compiled step for each number of terms used so far.
	terms int
	steps map[int]*mlcontext.Exec
	perm  []int // the training rows in this epoch's order
	loop  *Loop
	hooks hooks // fitHooks of the spec
}

// newFitRun checks the batch size against the rows and prepares a fit: a fresh model, Adam
// and the seeded batch order.
func newFitRun(b backends.Backend, net models.Net, s fitSpec) (*fitRun, error) {
	if len(s.rows) < s.batch {
		return nil, fmt.Errorf("train %s: batch size %d is larger than the %d training rows", s.name, s.batch, len(s.rows))
	}
	r := &fitRun{s: s, b: b, net: net, model: newModel(b, net, s.batch), hist: &History{Name: s.name},
		opt: optimizers.Adam().LearningRate(s.lr).Done(), rng: rand.New(rand.NewPCG(s.seed, 0x5eed)),
		steps: map[int]*mlcontext.Exec{}, hooks: fitHooks(s.selectAfter, s.patience, s.rt.Progress, s.rt.Hooks)}
	if s.penalty != nil {
		o, err := s.penalty.Estimator.Resolved()
		if err != nil {
			return nil, err
		}
		r.sigma = o.Bandwidth
	}
	if s.heads != nil {
		if _, ok := net.(models.MultiNet); !ok {
			return nil, fmt.Errorf("train %s: %s has one output per row; this fit needs %d (a models.MultiNet such as models.MLP)", s.name, net.Describe(), s.heads.k)
		}
		r.model.Heads = s.heads.k
	}
	r.perm = append([]int(nil), s.rows...)
	r.loop = newLoop(s.name, s.epochs, r.model.snapshot, r.hist)
	return r, nil
}

// epoch trains one epoch: the rows shuffled, one step per full batch (the incomplete last
// batch dropped), then the validation objective.
func (r *fitRun) epoch(ctx context.Context, epoch int) (Epoch, error) {
	s := r.s
	t0 := time.Now()
	perm := r.perm
	r.rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	nBatches := len(perm) / s.batch
	var sumLoss, sumPen float64
	for k := 0; k < nBatches; k++ {
		if err := ctx.Err(); err != nil {
			return Epoch{}, fmt.Errorf("train %s: stopped at epoch %d, before step %d: %w", s.name, epoch, k+1, err)
		}
		loss, pen, err := r.step(epoch, k+1, perm[k*s.batch:(k+1)*s.batch])
		if err != nil {
			return Epoch{}, fmt.Errorf("train %s: epoch %d, step %d: %w", s.name, epoch, k+1, err)
		}
		sumLoss += loss
		sumPen += pen
	}
	if err := ctx.Err(); err != nil {
		return Epoch{}, fmt.Errorf("train %s: stopped at epoch %d, before validating: %w", s.name, epoch, err)
	}
	val, err := s.validate(r.model)
	if err != nil {
		return Epoch{}, fmt.Errorf("train %s: validating epoch %d: %w", s.name, epoch, err)
	}
	ep := Epoch{Epoch: epoch, TrainLoss: sumLoss / float64(nBatches), TrainPenalty: sumPen / float64(nBatches),
		ValObjective: val, Seconds: time.Since(t0).Seconds()}
	if s.valLast != nil {
		ep.ValNLL, ep.ValStrata = s.valLast.nll, s.valLast.strata
	}
	return ep, nil
}

// step runs step k of epoch on the rows idx and returns its loss and penalty. It adds the
// penalty's guard counts to the record, calls the trace when set, and when the outputs
// have spread beyond what the Fourier expansion covers it switches the following steps to
// more terms.
func (r *fitRun) step(epoch, k int, idx []int) (loss, pen float64, err error) {
	s := r.s
	target, cols := s.target, 0
	if s.heads != nil {
		target, cols = s.heads.target, s.heads.cols
	}
	args := []any{featureTensor(s.set, idx), rowsTensor(target, cols, idx)}
	var rep invmmd.Report
	if s.penalty != nil {
		var v, c *tensors.Tensor
		v, c, rep, err = s.penalty.batchDesign(idx)
		if err != nil {
			return 0, 0, err
		}
		r.hist.FlooredG += rep.FlooredG
		r.hist.EmptyStrata += len(rep.EmptyStrata)
		r.hist.FlooredNorms += rep.FlooredNorms
		r.hist.noteDropped(rep)
		args = append(args, v, c, tensors.FromScalar(float32(r.sigma)), tensors.FromScalar(float32(s.penalty.Lambda)))
	}
	e, err := r.compiled(r.terms)
	if err != nil {
		return 0, 0, err
	}
	out, err := e.Exec(args...)
	if err != nil {
		return 0, 0, err
	}
	loss, pen = scalar(out[0]), scalar(out[2])
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return 0, 0, fmt.Errorf("h diverged at epoch %d, step %d: the loss is %v (NLL %v, penalty %v); lower the learning rate (now %v)",
			epoch, k+1, loss, scalar(out[1]), pen, s.lr)
	}
	if span := scalar(out[4]); s.penalty != nil && !(span <= MaxLogitSpan) {
		return 0, 0, fmt.Errorf("h diverged at epoch %d, step %d: its outputs on the batch span %.3g (more than %g, where every probability is 0 or 1); lower the learning rate (now %v)",
			epoch, k+1, span, MaxLogitSpan, s.lr)
	}
	r.hist.Steps++
	if r.terms > 0 && scalar(out[3]) > s.penalty.tol {
		// The outputs spread beyond what the expansion covers: more terms from now on.
		r.terms = s.penalty.chooseTerms(1.25*scalar(out[4]), r.sigma, s.batch)
		r.hist.Recompiles++
	}
	r.loop.Step, r.loop.Steps = k, r.hist.Steps
	if r.hooks.wantsSteps() {
		t := StepTrace{Epoch: epoch, Step: k, NLL: scalar(out[1]), Penalty: pen, Report: rep}
		if s.penalty != nil {
			for _, v := range tensors.MustCopyFlatData[float32](out[5]) {
				t.Strata = append(t.Strata, float64(v))
			}
		}
		if err := r.hooks.step(r.loop, t); err != nil {
			return 0, 0, err
		}
	}
	return loss, pen, nil
}

// finish records the kept epoch, the time and the penalty path last used.
func (r *fitRun) finish(start time.Time) {
	h := r.hist
	h.StopEpoch = len(h.Epochs)
	h.BestEpoch, h.BestVal = r.loop.Kept()
	h.Seconds = time.Since(start).Seconds()
	h.PenaltyPath = "none"
	if r.s.penalty != nil {
		h.PenaltyPath = "exact"
		if r.s.penalty.rff > 0 {
			h.PenaltyPath = fmt.Sprintf("rff D=%d", r.s.penalty.rff)
		}
		if r.terms > 0 {
			h.PenaltyPath = fmt.Sprintf("fourier M=%d", r.terms)
		}
	}
}

// MaxLogitSpan is the span of a batch's outputs beyond which training stops with an error:
// logits 10⁴ apart give probabilities of exactly 0 and 1 in float32, which no fit reaches
// unless it diverged (a learning rate far too high), and the penalty's kernel sums would
// need a Fourier series of about 10⁴/σ terms.
const MaxLogitSpan = 1e4

func scalar(t *tensors.Tensor) float64 {
	return float64(tensors.MustCopyFlatData[float32](t)[0])
}

// noteDropped records the strata of one step's penalty that were flagged unreliable, and
// those of them that were dropped.
func (h *History) noteDropped(rep invmmd.Report) {
	for _, s := range rep.Strata {
		if !s.Unreliable || s.Empty {
			continue
		}
		h.UnreliableStrata++
		if s.Dropped {
			h.DroppedStrata++
		}
		if h.DropReason == "" {
			h.DropReason = fmt.Sprintf("%s: %s", s.Name(), strings.Join(s.Reasons, "; "))
		}
	}
}

// Warning returns a sentence saying how many stratum penalties were unreliable during the
// fit and what was done with them, or "" when none was.
func (h *History) Warning() string {
	switch {
	case h.UnreliableStrata == 0:
		return ""
	case h.DroppedStrata > 0:
		return fmt.Sprintf("%s: %d stratum penalties over %d steps were dropped as unreliable (first: %s)",
			h.Name, h.DroppedStrata, h.Steps, h.DropReason)
	}
	return fmt.Sprintf("%s: %d stratum penalties over %d steps were unreliable and kept in the loss; "+
		DropHint+" (first: %s)", h.Name, h.UnreliableStrata, h.Steps, h.DropReason)
}

// DropHint is what Warning says to do with unreliable strata kept in the loss, in the
// library's terms; a command replaces it with its own flag's.
const DropHint = "set Options.DropUnreliable (invmmd fit does) to leave them out"
