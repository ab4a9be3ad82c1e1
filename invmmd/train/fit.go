package train

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/progress"
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
	Seconds      float64
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
	PenaltyPath string // "exact", "fourier M=…" (the last used)
	Recompiles  int    // times the Fourier graph was rebuilt with more terms
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
	name     string
	set      *dataset.Set
	rows     []int     // rows of set to train on
	target   []float64 // per row of set
	batch    int
	epochs   int // the cap
	stop     stopRule
	lr       float64
	seed     uint64
	penalty  *penaltySpec
	validate func(m *Model) (float64, error) // validation objective, lower is better
	progress io.Writer
}

type penaltySpec struct {
	method invmmd.Method
	lambda float64
	rows   invmmd.Rows // estimator inputs for every row of the set
	opts   invmmd.Options
	path   PenaltyPath
	tol    float64
	// clip trains on max(estimate, 0) per stratum instead of the raw estimates.
	clip bool
	// columns is the number of factor columns of the method's design (for the cost model).
	columns int
}

// stepExec is a compiled training step for one penalty path.
type stepExec struct {
	exec    *context.Exec
	fourier bool
	terms   int
}

func fit(b backends.Backend, net models.Net, s fitSpec) (*Model, *History, error) {
	if len(s.rows) < s.batch {
		return nil, nil, fmt.Errorf("train %s: batch size %d is larger than the %d training rows", s.name, s.batch, len(s.rows))
	}
	model := newModel(b, net, s.batch)
	hist := &History{Name: s.name}
	opt := optimizers.Adam().LearningRate(s.lr).Done()
	rng := rand.New(rand.NewPCG(s.seed, 0x5eed))

	var sigma float64
	if s.penalty != nil {
		o, err := s.penalty.opts.Resolved()
		if err != nil {
			return nil, nil, err
		}
		sigma = o.Bandwidth
	}
	execs := map[int]*stepExec{} // by number of Fourier terms; 0 = exact or no penalty
	getExec := func(terms int) (*stepExec, error) {
		if e, ok := execs[terms]; ok {
			return e, nil
		}
		se := &stepExec{fourier: terms > 0, terms: terms}
		e, err := context.NewExec(b, model.ctx, func(ctx *context.Context, in []*Node) []*Node {
			g := in[0].Graph()
			logits := net.Logit(ctx.In(modelScope), in[0])
			nll := models.BernoulliNLL(logits, in[1])
			loss, pen := nll, ScalarZero(g, nll.DType())
			bound, span := ScalarZero(g, nll.DType()), ScalarZero(g, nll.DType())
			if s.penalty != nil {
				v, c, sg, lambda := in[2], in[3], in[4], in[5]
				var strata *Node
				if se.fourier {
					strata, bound = invmmd.FourierPenaltyGraph(logits, v, c, sg, terms, s.penalty.tol)
				} else {
					strata = invmmd.PenaltyGraph(logits, v, c, sg)
				}
				if s.penalty.clip {
					strata = Max(strata, ZerosLike(strata))
				}
				pen = ReduceAllSum(strata)
				hs := StopGradient(logits)
				span = Sub(ReduceAllMax(hs), ReduceAllMin(hs))
				loss = Add(nll, Mul(lambda, pen))
			}
			opt.UpdateGraph(ctx, g, loss)
			return []*Node{loss, nll, pen, bound, span}
		})
		if err != nil {
			return nil, fmt.Errorf("train %s: building the training step: %w", s.name, err)
		}
		se.exec = e
		execs[terms] = se
		return se, nil
	}

	// Choose the penalty path and, for the expansion, its terms from the initial outputs.
	terms := 0
	if s.penalty != nil && s.penalty.path != PathExact {
		h0, err := model.Logits(s.set.Subset("first batch", s.rows[:s.batch]))
		if err != nil {
			return nil, nil, err
		}
		terms = s.penalty.chooseTerms(spanOf(h0), sigma, s.batch)
	}

	bar := progress.New(s.progress, s.epochs, s.name)
	defer bar.Finish()
	start := time.Now()
	best, bestEpoch := math.Inf(1), 0
	var bestWeights = model.snapshot()
	hist.StopReason, hist.MaxEpochs, hist.Patience, hist.SelectAfter = StopMaxEpochs, s.epochs, s.stop.patience, s.stop.selectAfter
	perm := append([]int(nil), s.rows...)
	nBatches := len(perm) / s.batch
	for epoch := 1; epoch <= s.epochs; epoch++ {
		t0 := time.Now()
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		var sumLoss, sumPen float64
		for k := 0; k < nBatches; k++ {
			idx := perm[k*s.batch : (k+1)*s.batch]
			args := []any{featureTensor(s.set, idx), vectorTensor(s.target, idx)}
			if s.penalty != nil {
				v, c, rep, err := s.penalty.batchDesign(idx)
				if err != nil {
					return nil, nil, fmt.Errorf("train %s: epoch %d, step %d: %w", s.name, epoch, k+1, err)
				}
				hist.FlooredG += rep.FlooredG
				hist.EmptyStrata += len(rep.EmptyStrata)
				hist.FlooredNorms += rep.FlooredNorms
				hist.noteDropped(rep)
				args = append(args, v, c, tensors.FromScalar(float32(sigma)), tensors.FromScalar(float32(s.penalty.lambda)))
			}
			se, err := getExec(terms)
			if err != nil {
				return nil, nil, err
			}
			out, err := se.exec.Exec(args...)
			if err != nil {
				return nil, nil, fmt.Errorf("train %s: epoch %d, step %d: %w", s.name, epoch, k+1, err)
			}
			loss := scalar(out[0])
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, nil, fmt.Errorf("train %s: epoch %d, step %d: loss is %v (NLL %v, penalty %v)",
					s.name, epoch, k+1, loss, scalar(out[1]), scalar(out[2]))
			}
			sumLoss += loss
			sumPen += scalar(out[2])
			hist.Steps++
			if se.fourier && scalar(out[3]) > s.penalty.tol {
				// The outputs spread beyond what the expansion covers: more terms from now on.
				terms = s.penalty.chooseTerms(1.25*scalar(out[4]), sigma, s.batch)
				hist.Recompiles++
			}
		}
		val, err := s.validate(model)
		if err != nil {
			return nil, nil, fmt.Errorf("train %s: validating epoch %d: %w", s.name, epoch, err)
		}
		ep := Epoch{Epoch: epoch, TrainLoss: sumLoss / float64(nBatches), TrainPenalty: sumPen / float64(nBatches),
			ValObjective: val, Seconds: time.Since(t0).Seconds()}
		hist.Epochs = append(hist.Epochs, ep)
		if s.stop.eligible(epoch) && val < best {
			best, bestEpoch = val, epoch
			bestWeights = model.snapshot()
		}
		bar.Add(1, fmt.Sprintf("loss %.4f val %.4f best %.4f@%d", ep.TrainLoss, val, best, bestEpoch))
		if s.stop.done(epoch, bestEpoch) {
			hist.StopReason = StopPatience
			break
		}
	}
	hist.StopEpoch = len(hist.Epochs)
	if err := model.restore(bestWeights); err != nil {
		return nil, nil, err
	}
	hist.BestEpoch, hist.BestVal = bestEpoch, best
	hist.Seconds = time.Since(start).Seconds()
	hist.PenaltyPath = "none"
	if s.penalty != nil {
		hist.PenaltyPath = "exact"
		if terms > 0 {
			hist.PenaltyPath = fmt.Sprintf("fourier M=%d", terms)
		}
	}
	return model, hist, nil
}

// chooseTerms returns the Fourier terms for outputs spanning span, or 0 (the exact path)
// when the exact sum is cheaper for this batch size or the path is Exact.
func (p *penaltySpec) chooseTerms(span, sigma float64, batch int) int {
	if p.path == PathExact {
		return 0
	}
	m := invmmd.FourierTermsFor(span, sigma, p.tol)
	// Per row: the expansion evaluates 2(M+1) sines and cosines and their products with
	// the P columns; the exact path n kernel values and n·P products.
	if p.path == PathAuto && float64(2*(m+1))*(2*float64(p.columns)+10) > float64(batch)*(float64(p.columns)+10) {
		return 0
	}
	return m
}

// batchDesign builds the penalty's V and C for the batch's rows.
func (p *penaltySpec) batchDesign(idx []int) (v, c *tensors.Tensor, rep invmmd.Report, err error) {
	d, err := invmmd.NewDesign(p.rows.Subset(idx), p.opts, p.method)
	if err != nil {
		return nil, nil, rep, err
	}
	d.TrainingGuard() // with Options.DropUnreliable, unreliable strata leave the penalty
	v, c, err = d.Tensors(dtypes.Float32)
	return v, c, d.Reports()[0], err
}

func spanOf(h []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range h {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi - lo
}

func scalar(t *tensors.Tensor) float64 {
	return float64(tensors.MustCopyFlatData[float32](t)[0])
}

// StopReason says what ended a fit's training.
type StopReason string

// The reasons a fit stops.
const (
	// StopPatience: the validation objective did not improve for Patience epochs.
	StopPatience StopReason = "patience"
	// StopMaxEpochs: the epoch cap was reached first (the fit may not have converged).
	StopMaxEpochs StopReason = "max-epochs"
)

// stopRule is early stopping on the validation objective: epochs 1..selectAfter are trained
// but never kept (an early, nearly flat model has a penalty near 0 and could win the
// selection at large λ), and training ends once patience epochs have passed since the
// best kept epoch. patience 0 trains to the cap.
type stopRule struct {
	patience    int
	selectAfter int
}

// eligible reports whether epoch may be kept as the best one.
func (r stopRule) eligible(epoch int) bool { return epoch > r.selectAfter }

// done reports whether training stops after epoch, the best kept epoch being best (0: none yet).
func (r stopRule) done(epoch, best int) bool {
	if r.patience <= 0 || best == 0 {
		return false
	}
	return epoch-best >= r.patience
}
