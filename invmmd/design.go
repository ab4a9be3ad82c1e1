package invmmd

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/invmmd/invmmd/invmmd/method"
)

// Design holds what one kernel pass over a batch needs to evaluate a set of methods: the
// factor columns V (one per factor, feature of ψ(Z) — the Z value b for a binary Z — and
// stratum, read only on the stratum's main rows) and, per method, coefficients C such that
// the method's penalty is
//
//	Σ_pq C_pq Q_pq,   Q_pq = Σ_{i≠j} V_ip V_jq k(h_i, h_j).
//
// Methods that share a factor (ip and dr share Δψ/G; reg, dr and dr+ share m) share its
// column. The columns do not depend on h, so a Design is built once per batch of rows and
// serves any model output; the number of columns depends only on the methods, the features
// of Z and Options.Unconditional, so a training graph keeps one shape. The coefficients
// come from the estimand: the paper's conditional MMD (conditional.go) or the joint-vs-product
// MMD (joint.go).
type Design struct {
	n        int
	opts     Options
	cols     [][]float64
	colBlock []int
	blocks   []block
	normRows [][]int       // per stratum: the rows that estimate its normalisers (conditional)
	per      []methodTerms // per method, in the order asked for
}

// methodTerms is one method's part of a design: its terms on the design's columns and what
// its strata's reports and normalisers say of them.
type methodTerms struct {
	method  method.Method
	coefs   []coef          // its terms as Σ c·Q_pq over its entries (see coef)
	include []float64       // 1 for the rows its U-statistics run over (weights.include)
	terms   []factor        // its factors, on the design's columns (rowMean: f_b of ψ_b(Z))
	rowF    [][]float64     // joint estimand: each row's f_b, then ‖f‖²; nil for conditional
	norms   [][2][2]float64 // per stratum: N_bb' (conditional); zero when empty
	empty   []bool          // per stratum: the stratum contributes 0 (empty or dropped)
	joint   []*jointStratum // per stratum (joint estimand; nil for conditional)
	report  Report
}

type block struct {
	label float64 // Y value of the stratum, 0 when unconditional
	rows  []int   // main rows of the stratum: the only rows where its columns may be nonzero
}

// coef adds c·Q_pq to a term of stratum s: T_bb' for the conditional estimand; for the
// joint estimand (bb = −1) the term of slot b (slotPair, slotQuad, slotTriple).
type coef struct {
	p, q     int
	s, b, bb int
	c        float64
}

// NewDesign builds the design of the given methods on rows (see Design). It validates rows
// for the methods and opts, and applies the guards recorded in each method's Report. The
// conditional estimand (the default) needs a binary Z; a nuisance given as features
// (Rows.Psi) of any other kind needs Options.Estimand = JointMMD.
func NewDesign(rows Rows, opts Options, methods ...method.Method) (*Design, error) {
	if opts.Median {
		return nil, fmt.Errorf("invmmd: NewDesign needs a fixed bandwidth: resolve Options.Median with MedianBandwidth of the outputs first (Estimate does)")
	}
	o, err := opts.Resolved()
	if err != nil {
		return nil, err
	}
	if len(methods) == 0 {
		return nil, fmt.Errorf("invmmd: NewDesign needs at least one method")
	}
	if err := rows.ValidateClasses(o.NumClasses(), methods...); err != nil {
		return nil, err
	}
	rows = rows.withDelta()
	joint := o.Estimand == JointMMD
	if ind, levels := rows.indicator(); !joint && !(ind && levels == 2) {
		return nil, fmt.Errorf("invmmd: the paper's MMD between the two groups of Z (Options.Estimand %v) needs a binary Z, "+
			"and Z comes as %d features%s; use Options.Estimand = JointMMD, the MMD between p(h, Z) and p(h)p(Z)",
			o.Estimand, rows.Psi.Dim, map[bool]string{true: " of one-hot levels", false: ""}[ind])
	}
	n := rows.Len()
	d := &Design{n: n, opts: o}

	// Rows [0, nNorm) estimate the normalisers, [nNorm, n) the main terms (appendix B.1);
	// the joint estimand has no normalisers: every row is a main row.
	mainFraction := o.MainFraction
	if joint {
		mainFraction = 1
	}
	nNorm := n - int(math.Round(mainFraction*float64(n)))

	strata := o.NumClasses() // Y = 0, …, K−1
	if o.Unconditional {
		strata = 1
	}
	d.blocks, d.normRows = make([]block, strata), make([][]int, strata)
	for i := 0; i < n; i++ {
		s := 0
		if !o.Unconditional {
			s = int(rows.Y[i])
		}
		if i < nNorm { // 0 when mainFraction is 1
			d.normRows[s] = append(d.normRows[s], i)
		} else {
			d.blocks[s].rows = append(d.blocks[s].rows, i)
		}
	}
	for s := range d.blocks {
		d.blocks[s].label = float64(s)   // 0 for the unconditional stratum
		if !joint && mainFraction == 1 { // every row both: one list
			d.normRows[s] = d.blocks[s].rows
		}
	}

	colIndex := map[string]int{}
	// The columns of one factor in different strata share one array, the factor's own
	// values on every row (a key names the same values in every method and stratum): a
	// column of stratum s is read only on s's rows, so a design holds n values per factor,
	// not n per factor and stratum, and copies none.
	shared := map[string][]float64{}
	column := func(key string, b, s int, values []float64) int {
		id := fmt.Sprintf("%s|%d|%d", key, b, s)
		if p, ok := colIndex[id]; ok {
			return p
		}
		sk := fmt.Sprintf("%s|%d", key, b)
		c := shared[sk]
		if c == nil {
			c = values
			shared[sk] = c
		}
		d.cols = append(d.cols, c)
		d.colBlock = append(d.colBlock, s)
		colIndex[id] = len(d.cols) - 1
		return len(d.cols) - 1
	}

	ones := slices.Repeat([]float64{1}, n) // the include of every method but obs
	for _, m := range methods {
		w, err := factorsFor(m, rows, o.GFloor, ones)
		if err != nil {
			return nil, err
		}
		if joint {
			d.addJoint(rows, w, column)
		} else {
			d.addConditional(rows, w, column)
		}
	}
	return d, nil
}

// TrainingGuard applies what Options.DropUnreliable asks for (nothing when it is not
// set): every stratum flagged unreliable leaves every method's penalty, contributing 0 in
// Evaluate and in Matrices (the training graph) as an empty stratum does, and its
// StratumReport says Dropped, so that a stratum whose estimate rests on a handful of rows
// or a floored normaliser cannot dominate the loss. Training calls it on every batch's
// design and on the validation design; it returns the number of (method, stratum) pairs
// dropped.
func (d *Design) TrainingGuard() int {
	if !d.opts.DropUnreliable {
		return 0
	}
	dropped := 0
	for k := range d.per {
		rep := &d.per[k].report
		off := map[int]bool{}
		for s := range rep.Strata {
			sr := &rep.Strata[s]
			if sr.Unreliable && !sr.Empty && !sr.Dropped {
				sr.Dropped = true
				off[s] = true
				d.per[k].norms[s] = [2][2]float64{}
				d.per[k].empty[s] = true
				dropped++
			}
		}
		d.per[k].coefs = slices.DeleteFunc(d.per[k].coefs, func(e coef) bool { return off[e.s] })
	}
	return dropped
}

// NumColumns returns the number of factor columns P.
func (d *Design) NumColumns() int { return len(d.cols) }

// NumRows returns the number of rows n of the batch.
func (d *Design) NumRows() int { return d.n }

// Options returns the options the design was built with, defaults filled in.
func (d *Design) Options() Options { return d.opts }

// Reports returns each method's guard report, in the order of the methods.
func (d *Design) Reports() []Report {
	out := make([]Report, len(d.per))
	for k, t := range d.per {
		out[k] = t.report
	}
	return out
}

// Matrices returns V (n×P, row-major) and C (S×P×P, row-major; S the number of strata)
// for the graph penalty (PenaltyGraph): C[s] sums, over the design's methods, the
// coefficients of stratum s, so a design built for one method gives that method's
// MMD²_y per stratum as Σ_pq C[s]_pq Q_pq.
func (d *Design) Matrices() (v, c []float64, p, strata int) {
	p, strata = len(d.cols), len(d.blocks)
	v = make([]float64, d.n*p)
	for j, col := range d.cols {
		for _, i := range d.blocks[d.colBlock[j]].rows {
			v[i*p+j] = col[i]
		}
	}
	c = make([]float64, strata*p*p)
	for k := range d.per {
		for _, e := range d.per[k].coefs {
			if e.bb < 0 { // joint estimand: the term's weight in MMD² = Pair + Quad − 2·Triple
				c[(e.s*p+e.p)*p+e.q] += weights3[e.b] * e.c
				continue
			}
			c[(e.s*p+e.p)*p+e.q] += weights3[termIndex(e.b, e.bb)] * e.c / d.per[k].norms[e.s][e.b][e.bb]
		}
	}
	return v, c, p, strata
}

// Evaluate returns each method's estimate for model outputs h of any width d (one row per
// row of the design; a logit is the one-column ScalarRep), with the kernel
// exp(−‖h − h'‖²/(2σ²)), computing the kernel sums with summer (nil means AutoSums, as
// everywhere). For d > 1 the summers are ExactSums (AutoSums takes it too) and RFFSums;
// FourierSums and WindowSums return an error.
func (d *Design) Evaluate(h Rep, summer Summer) ([]Result, error) {
	if err := h.check(d.n); err != nil {
		return nil, err
	}
	q, err := d.perStratum(func(s int, _ []int, cols [][]float64) ([][]float64, error) {
		qs, _, err := PairSums(context.Background(), summer, h, d.blocks[s].rows, cols, d.opts.Bandwidth)
		return qs, err
	})
	if err != nil {
		return nil, err
	}
	return d.assemble(q)
}

// perStratum returns the pair sums Q of the design's columns (P×P; 0 between columns of
// different strata) that f computes for each stratum s with columns and at least 2 main
// rows, given its columns and their places idx among the design's.
func (d *Design) perStratum(f func(s int, idx []int, cols [][]float64) ([][]float64, error)) ([][]float64, error) {
	q := make([][]float64, len(d.cols))
	for i := range q {
		q[i] = make([]float64, len(d.cols))
	}
	for s, blk := range d.blocks {
		var idx []int
		var cols [][]float64
		for j, b := range d.colBlock {
			if b == s {
				idx, cols = append(idx, j), append(cols, d.cols[j])
			}
		}
		if len(idx) == 0 || len(blk.rows) < 2 {
			continue
		}
		qs, err := f(s, idx, cols)
		if err != nil {
			return nil, err
		}
		for a, pa := range idx {
			for b, pb := range idx {
				q[pa][pb] = qs[a][b]
			}
		}
	}
	return q, nil
}

// assemble turns kernel sums into each method's result.
func (d *Design) assemble(q [][]float64) ([]Result, error) {
	out := make([]Result, len(d.per))
	for k, t := range d.per {
		m := t.method
		r := Result{Method: m, Strata: make([]float64, len(d.blocks)), Terms: make([]Terms, len(d.blocks)), Report: d.per[k].report}
		for s, blk := range d.blocks {
			r.Terms[s] = Terms{Y: blk.label, N: d.per[k].norms[s], Empty: d.per[k].empty[s], Joint: d.opts.Estimand == JointMMD}
		}
		for _, e := range d.per[k].coefs {
			t := &r.Terms[e.s]
			switch {
			case e.bb >= 0:
				t.T[e.b][e.bb] += e.c * q[e.p][e.q]
			case e.b == slotPair:
				t.Pair += e.c * q[e.p][e.q]
			case e.b == slotQuad:
				t.Quad += e.c * q[e.p][e.q]
			default:
				t.Triple += e.c * q[e.p][e.q]
			}
		}
		for s, t := range r.Terms {
			v := t.MMD()
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("invmmd: %v estimate in stratum Y=%v is %v", m, t.Y, v)
			}
			r.Strata[s] = v
			r.Value += v
		}
		out[k] = r
	}
	return out, nil
}

// Estimate evaluates methods on one batch: h holds the model outputs, a logit (ScalarRep)
// or a representation h ∈ ℝ^{n×d} of any width (Rep), and rows the rest, with the kernel
// exp(−‖h − h'‖²/(2σ²)), σ by opts' bandwidth rule (Options.Bandwidth, or the median
// heuristic on h with Options.Median). Each result carries the jackknife standard error of
// every stratum's estimate (Design.StandardErrors): an MMD² cannot be negative, so an
// estimate below 0 by a few standard errors says the same as a flag, that the estimate
// rests on too little. One pass of per-row kernel sums (opts.Sums; by default AutoSums:
// exact up to ExactPairs pairs per stratum, linear in the rows beyond) serves every
// estimate and standard error; Result.Path says which path it took and its error bound. It
// returns ctx's error if ctx is cancelled first.
func Estimate(ctx context.Context, h Rep, rows Rows, opts Options, methods ...method.Method) ([]Result, error) {
	if err := h.check(rows.Len()); err != nil {
		return nil, err
	}
	o := opts
	if o.Median { // σ by the median heuristic on h
		if o.Bandwidth != 0 {
			return nil, fmt.Errorf("invmmd: Options.Median with Options.Bandwidth = %v: give one bandwidth rule", o.Bandwidth)
		}
		sigma, err := MedianBandwidth(h)
		if err != nil {
			return nil, fmt.Errorf("invmmd: the median heuristic bandwidth: %w", err)
		}
		o.Bandwidth, o.Median = sigma, false
	}
	d, err := NewDesign(rows, o, methods...)
	if err != nil {
		return nil, err
	}
	q, se, path, err := d.strataSums(ctx, h, opts.Sums)
	if err != nil {
		return nil, err
	}
	res, err := d.assemble(q)
	if err != nil {
		return nil, err
	}
	for k := range res {
		r := &res[k]
		r.SE = se[k]
		r.Path = path
		var v float64
		for _, e := range r.SE {
			v += e * e
		}
		r.ValueSE = math.Sqrt(v)
	}
	return res, nil
}
