package invmmd

import (
	"fmt"
	"math"
	"strings"
)

// Report counts what the guards did while one method's penalty was estimated on a batch,
// and says, stratum by stratum, whether the estimate can be trusted.
type Report struct {
	// FlooredG counts Δ = 1 rows whose G was below Options.GFloor and was raised to it.
	FlooredG int
	// FlooredNorms counts normaliser estimates N(b, b') below Options.NormFloor² that
	// were raised to it.
	FlooredNorms int
	// EmptyStrata lists the Y values (0 for the unconditional penalty) of strata that
	// contributed 0 because, for some Z value b, no row of the stratum's main or normaliser
	// part carried weight for b, or the main part had fewer than two rows.
	EmptyStrata []float64
	// Strata holds the diagnostics of each stratum, in the order of Result.Strata.
	Strata []StratumReport
}

// StratumReport is what one stratum's estimate rests on, computed from the same factor
// columns as the estimate (factorsFor), and whether it is reliable.
type StratumReport struct {
	Y        float64 // the stratum's Y value (0 when unconditional)
	All      bool    // the unconditional penalty's one stratum: every row, whatever Y
	Rows     int     // rows of the stratum in the batch
	Observed [2]int  // rows of the stratum with Z observed (Δ = 1) and Z = b, b = 0, 1
	// Columns holds, for each factor column of the method, its Kish effective sample
	// size (Σw)²/Σw² over the stratum's main rows, for Z = b.
	Columns []ColumnESS
	// Mean is the normaliser rows' mean of the per-row estimate of Z_b: the method's
	// estimate of P(Z = b | Y = y) before any floor.
	Mean [2]float64
	// RawN holds N(b, b') before the floor Options.NormFloor² (the floored value is in
	// Terms.N); N[0][1] is left 0.
	RawN [2][2]float64
	// Empty: the stratum contributed 0 (see Report.EmptyStrata).
	Empty bool
	// Unreliable: the stratum is empty, or a normaliser was not clearly positive (it was
	// floored), or a factor column's ESS for some Z value is below Options.MinESS.
	Unreliable bool
	// Reasons says why the stratum is unreliable, one phrase per cause.
	Reasons []string
	// Dropped: Design.DropUnreliable removed the stratum from the penalty.
	Dropped bool
}

// ColumnESS is the Kish effective sample size of one factor column, for Z = 0 and Z = 1.
type ColumnESS struct {
	Factor string // the column's name, e.g. "ΔZ/G", "m", "f"
	ESS    [2]float64
}

// Unreliable returns the Y values of the strata flagged unreliable.
func (r Report) Unreliable() []float64 {
	var out []float64
	for _, s := range r.Strata {
		if s.Unreliable {
			out = append(out, s.Y)
		}
	}
	return out
}

// String renders the report in a few lines: guard counts, then one line per stratum.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d row(s) with G raised to the floor, %d normaliser(s) raised to the floor", r.FlooredG, r.FlooredNorms)
	for _, s := range r.Strata {
		b.WriteString("\n  ")
		b.WriteString(s.String())
	}
	return b.String()
}

// Name names the stratum: "Y=0", "Y=1", or "all rows" for the unconditional penalty.
func (s StratumReport) Name() string {
	if s.All {
		return "all rows"
	}
	return fmt.Sprintf("Y=%v", s.Y)
}

// String renders the stratum's diagnostics on one line.
func (s StratumReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows, observed Z=0: %d, Z=1: %d", s.Name(), s.Rows, s.Observed[0], s.Observed[1])
	for _, c := range s.Columns {
		fmt.Fprintf(&b, "; ESS %s (Z=0, Z=1) = (%.1f, %.1f)", c.Factor, c.ESS[0], c.ESS[1])
	}
	if !s.Empty {
		fmt.Fprintf(&b, "; P(Z=1|Y) est. %.3f; N11 %.4g, N00 %.4g, N10 %.4g", s.Mean[1], s.RawN[1][1], s.RawN[0][0], s.RawN[1][0])
	}
	switch {
	case s.Dropped:
		fmt.Fprintf(&b, "; UNRELIABLE, dropped from the penalty: %s", strings.Join(s.Reasons, "; "))
	case s.Unreliable:
		fmt.Fprintf(&b, "; UNRELIABLE: %s", strings.Join(s.Reasons, "; "))
	default:
		b.WriteString("; reliable")
	}
	return b.String()
}

// Result is one method's estimate on one batch.
type Result struct {
	Method Method
	// Value is the penalty: Σ_y MMD²_y (eq. objective), or the unconditional MMD².
	Value float64
	// Strata holds MMD²_y per stratum, indexed by the Y value (one entry when unconditional).
	Strata []float64
	// SE holds each stratum's jackknife standard error (Estimate only; nil from
	// Design.Evaluate), and ValueSE that of Value (the strata are disjoint rows).
	SE      []float64
	ValueSE float64
	// Terms holds the pieces of each stratum's MMD², in the order of Strata.
	Terms  []Terms
	Report Report
}

// String renders the estimate: the value, each stratum's MMD² and the Report.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: MMD² = %.6g", r.Method, r.Value)
	if r.SE != nil {
		fmt.Fprintf(&b, " ± %.2g", r.ValueSE)
	}
	for s, v := range r.Strata {
		name := fmt.Sprintf("Y=%v", r.Terms[s].Y)
		if s < len(r.Report.Strata) {
			name = r.Report.Strata[s].Name()
		}
		fmt.Fprintf(&b, "  [%s: %.6g", name, v)
		if r.SE != nil {
			fmt.Fprintf(&b, " ± %.2g", r.SE[s])
		}
		b.WriteString("]")
	}
	if u := r.Report.Unreliable(); len(u) > 0 {
		fmt.Fprintf(&b, "  UNRELIABLE in Y=%v", u)
	}
	b.WriteString("\n  ")
	b.WriteString(r.Report.String())
	return b.String()
}

// Terms are the pieces of one stratum's estimate: MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀
// (eqs. invariancemmd and fullmmd). T_bb' estimates E[k(h, h') Z_b Z'_b'] and N_bb'
// estimates N(b, b') = P(Z = b) P(Z' = b') within the stratum, both as U-statistics over
// pairs i ≠ j: N_bb' = Σ_{i≠j} f_b,i f_b',j / (n(n−1)) with f the method's per-row
// estimate of Z_b (appendix E). Each is unbiased when its auxiliary models are right;
// their ratio is consistent (section 3.3), and for Full it is exactly the usual unbiased
// MMD² between the two groups. (The product of two sample means as N_bb' would keep the
// i = j terms that T leaves out, biasing each within-group term by about −k̄/n_b.)
type Terms struct {
	Y     float64       // the stratum's Y value (0 when unconditional)
	T     [2][2]float64 // T[b][b']; T[0][1] is left 0 (the MMD uses T[1][0])
	N     [2][2]float64 // N[b][b'] after the floor Options.NormFloor²; N[0][1] is left 0
	Empty bool          // the stratum contributed 0 (see Report.EmptyStrata)
}

// MMD returns the stratum's MMD² from its terms (0 when Empty).
func (t Terms) MMD() float64 {
	if t.Empty {
		return 0
	}
	return t.T[1][1]/t.N[1][1] + t.T[0][0]/t.N[0][0] - 2*t.T[1][0]/t.N[1][0]
}

// Design holds what one kernel pass over a batch needs to evaluate a set of methods: the
// factor columns V (one per factor, Z value and stratum, restricted to the stratum's main
// rows) and, per method, coefficients C such that the method's penalty is
//
//	Σ_pq C_pq Q_pq,   Q_pq = Σ_{i≠j} V_ip V_jq k(h_i, h_j).
//
// Methods that share a factor (ip and dr share ΔZ̃/G; reg, dr and dr+ share m) share its
// column. The columns do not depend on h, so a Design is built once per batch of rows and
// serves any model output; the number of columns depends only on the methods and
// Options.Unconditional, so a training graph keeps one shape.
type Design struct {
	n        int
	opts     Options
	cols     [][]float64
	colBlock []int
	blocks   []block
	methods  []Method
	coefs    [][]coef          // per method: T_bb' = Σ c·Q_pq over its entries for (stratum, b, b')
	includes [][]float64       // per method: 1 for the rows its U-statistics run over (weights.include)
	rowF     [][2][]float64    // per method: each row's estimate f_b of Z_b (the normalisers' per-row terms)
	normRows [][]int           // per stratum: the rows that estimate its normalisers
	norms    [][][2][2]float64 // per method and stratum: N_bb'; zero when the stratum is empty
	reports  []Report
}

type block struct {
	label float64 // Y value of the stratum, 0 when unconditional
	rows  []int   // main rows of the stratum: the only rows where its columns may be nonzero
}

// coef adds c·Q_pq to T_bb' of stratum s.
type coef struct {
	p, q     int
	s, b, bb int
	c        float64
}

// NewDesign builds the design of the given methods on rows (see Design). It validates rows
// for the methods and opts, and applies the guards recorded in each method's Report.
func NewDesign(rows Rows, opts Options, methods ...Method) (*Design, error) {
	o, err := opts.Resolved()
	if err != nil {
		return nil, err
	}
	if len(methods) == 0 {
		return nil, fmt.Errorf("invmmd: NewDesign needs at least one method")
	}
	if err := rows.Validate(methods...); err != nil {
		return nil, err
	}
	rows = rows.withDelta()
	n := rows.Len()
	d := &Design{n: n, opts: o, methods: methods}

	// Rows [0, nNorm) estimate the normalisers, [nNorm, n) the main terms (appendix B.1).
	nNorm := n - int(math.Round(o.MainFraction*float64(n)))
	isMain := func(i int) bool { return o.MainFraction == 1 || i >= nNorm }
	isNorm := func(i int) bool { return o.MainFraction == 1 || i < nNorm }

	labels := []float64{0, 1}
	if o.Unconditional {
		labels = []float64{0}
	}
	stratum := func(i int) int {
		if o.Unconditional {
			return 0
		}
		return int(rows.Y[i])
	}
	var normRows [][]int
	for s, lab := range labels {
		d.blocks = append(d.blocks, block{label: lab})
		normRows = append(normRows, nil)
		for i := 0; i < n; i++ {
			if stratum(i) != s {
				continue
			}
			if isMain(i) {
				d.blocks[s].rows = append(d.blocks[s].rows, i)
			}
			if isNorm(i) {
				normRows[s] = append(normRows[s], i)
			}
		}
	}

	d.normRows = normRows
	colIndex := map[string]int{}
	column := func(key string, b, s int, values []float64) int {
		id := fmt.Sprintf("%s|%d|%d", key, b, s)
		if p, ok := colIndex[id]; ok {
			return p
		}
		c := make([]float64, n)
		for _, i := range d.blocks[s].rows {
			c[i] = values[i]
		}
		d.cols = append(d.cols, c)
		d.colBlock = append(d.colBlock, s)
		colIndex[id] = len(d.cols) - 1
		return len(d.cols) - 1
	}

	for _, m := range methods {
		w, err := factorsFor(m, rows, o.GFloor)
		if err != nil {
			return nil, err
		}
		rep := Report{FlooredG: w.flooredG}
		var cs []coef
		norms := make([][2][2]float64, len(d.blocks))
		for s := range d.blocks {
			// Columns exist whether or not the stratum turns out empty, so that the design's
			// shape does not depend on the batch's content.
			ids := make([][2]int, len(w.terms))
			for k, t := range w.terms {
				ids[k] = [2]int{column(t.key, 0, s, t.col[0]), column(t.key, 1, s, t.col[1])}
			}
			nMain, nNorm := 0.0, 0.0
			for _, i := range d.blocks[s].rows {
				nMain += w.include[i]
			}
			// Normaliser pieces: Σ_i f_b,i and Σ_i f_b,i f_b',i over the normaliser rows.
			var sum, mainMass, normMass [2]float64
			var diag [2][2]float64
			for _, i := range normRows[s] {
				nNorm += w.include[i]
				f := [2]float64{w.rowMean(0, i), w.rowMean(1, i)}
				for b := 0; b < 2; b++ {
					sum[b] += f[b]
					for bb := 0; bb < 2; bb++ {
						diag[b][bb] += f[b] * f[bb]
					}
					for _, t := range w.terms {
						normMass[b] += math.Abs(t.col[b][i])
					}
				}
			}
			for _, i := range d.blocks[s].rows {
				for b := 0; b < 2; b++ {
					for _, t := range w.terms {
						mainMass[b] += math.Abs(t.col[b][i])
					}
				}
			}
			sr := diagnose(rows, w, d.blocks[s], normRows[s])
			sr.All = o.Unconditional
			if nMain < 2 || nNorm < 2 || mainMass[0] == 0 || mainMass[1] == 0 || normMass[0] == 0 || normMass[1] == 0 {
				rep.EmptyStrata = append(rep.EmptyStrata, d.blocks[s].label)
				sr.Empty = true
				sr.flag(o, emptyReason(nMain, nNorm, mainMass, normMass))
				rep.Strata = append(rep.Strata, sr)
				continue // norms[s] stays zero: the stratum is empty
			}
			var raw [2][2]float64
			sr.Mean = [2]float64{sum[0] / nNorm, sum[1] / nNorm}
			norms[s], raw = normalisers(sum, diag, nNorm, o.NormFloor, &rep)
			sr.RawN = raw
			sr.flag(o, normReasons(sr.Mean, raw, o.NormFloor)...)
			rep.Strata = append(rep.Strata, sr)
			// T_bb' = Σ_k sign_k Q[k_b, k_b'] / (n(n−1)), over the main rows.
			u := 1 / (nMain * (nMain - 1))
			for k, t := range w.terms {
				p0, p1 := ids[k][0], ids[k][1]
				a := t.sign * u
				cs = append(cs, coef{p1, p1, s, 1, 1, a}, coef{p0, p0, s, 0, 0, a}, coef{p1, p0, s, 1, 0, a})
			}
		}
		d.coefs = append(d.coefs, cs)
		d.includes = append(d.includes, w.include)
		var f [2][]float64
		for b := 0; b < 2; b++ {
			f[b] = make([]float64, n)
			for i := 0; i < n; i++ {
				f[b][i] = w.rowMean(b, i)
			}
		}
		d.rowF = append(d.rowF, f)
		d.norms = append(d.norms, norms)
		d.reports = append(d.reports, rep)
	}
	return d, nil
}

// normalisers returns N(b, b') for b, b' ∈ {(1,1), (0,0), (1,0)} from the per-row
// estimates f of Z_b on n rows, given their sums and the sums of their products: the
// U-statistic Σ_{i≠j} f_b,i f_b',j / (n(n−1)), floored at floor². When a mean estimate of
// P(Z = b) is itself below floor (DR and IP estimates can be negative), the product of
// the floored means is used instead, since the U-statistic of two negative means would be
// positive. Each floor is counted in rep. raw holds the U-statistics before any floor.
func normalisers(sum [2]float64, diag [2][2]float64, n, floor float64, rep *Report) (norm, raw [2][2]float64) {
	pairs := [][2]int{{1, 1}, {0, 0}, {1, 0}}
	mean := [2]float64{sum[0] / n, sum[1] / n}
	for _, bb := range pairs {
		b, c := bb[0], bb[1]
		raw[b][c] = (sum[b]*sum[c] - diag[b][c]) / (n * (n - 1))
	}
	if mean[0] < floor || mean[1] < floor {
		for b := range mean {
			if mean[b] < floor {
				mean[b] = floor
				rep.FlooredNorms++
			}
		}
		for _, bb := range pairs {
			norm[bb[0]][bb[1]] = mean[bb[0]] * mean[bb[1]]
		}
		return norm, raw
	}
	for _, bb := range pairs {
		b, c := bb[0], bb[1]
		v := raw[b][c]
		if v < floor*floor {
			v = floor * floor
			rep.FlooredNorms++
		}
		norm[b][c] = v
	}
	return norm, raw
}

// diagnose returns the diagnostics of one stratum that do not depend on its normalisers:
// its rows, its observed rows per Z value and each factor column's Kish ESS over its main
// rows. They come from w, the same factor columns that make the estimate.
func diagnose(rows Rows, w weights, blk block, normRows []int) StratumReport {
	sr := StratumReport{Y: blk.label}
	seen := make([]bool, rows.Len())
	for _, set := range [][]int{blk.rows, normRows} {
		for _, i := range set {
			if seen[i] {
				continue
			}
			seen[i] = true
			sr.Rows++
			if rows.Delta[i] == 1 {
				sr.Observed[int(rows.Z[i])]++
			}
		}
	}
	for _, t := range w.terms {
		c := ColumnESS{Factor: t.key}
		for b := 0; b < 2; b++ {
			var s, s2 float64
			for _, i := range blk.rows {
				x := t.col[b][i]
				s += x
				s2 += x * x
			}
			if s2 > 0 {
				c.ESS[b] = s * s / s2
			}
		}
		sr.Columns = append(sr.Columns, c)
	}
	return sr
}

// flag marks the stratum unreliable for each reason given, and for each factor column
// whose ESS is below o.MinESS.
func (sr *StratumReport) flag(o Options, reasons ...string) {
	for _, c := range sr.Columns {
		for b := 0; b < 2; b++ {
			if c.ESS[b] < o.MinESS {
				reasons = append(reasons, fmt.Sprintf("ESS of %s for Z=%d is %.1f < %g", c.Factor, b, c.ESS[b], o.MinESS))
			}
		}
	}
	if len(reasons) > 0 {
		sr.Unreliable = true
		sr.Reasons = append(sr.Reasons, reasons...)
	}
}

// emptyReason says why a stratum is empty.
func emptyReason(nMain, nNorm float64, mainMass, normMass [2]float64) string {
	if nMain < 2 || nNorm < 2 {
		return fmt.Sprintf("empty: %v main and %v normaliser rows, want at least 2 of each", nMain, nNorm)
	}
	for b := 0; b < 2; b++ {
		if mainMass[b] == 0 || normMass[b] == 0 {
			return fmt.Sprintf("empty: no row carries weight for Z=%d", b)
		}
	}
	return "empty"
}

// normReasons says which normalisers were not clearly positive: a mean estimate of
// P(Z = b) below the floor, or an N(b, b') below floor², each of which was floored.
func normReasons(mean [2]float64, raw [2][2]float64, floor float64) []string {
	var out []string
	for b := 0; b < 2; b++ {
		if mean[b] < floor {
			out = append(out, fmt.Sprintf("estimate of P(Z=%d|Y) is %.4g < %g (normalisers floored)", b, mean[b], floor))
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, bb := range [][2]int{{1, 1}, {0, 0}, {1, 0}} {
		if v := raw[bb[0]][bb[1]]; v < floor*floor {
			out = append(out, fmt.Sprintf("normaliser N%d%d = %.4g is not clearly positive (floored to %g)", bb[0], bb[1], v, floor*floor))
		}
	}
	return out
}

// TrainingGuard applies what Options.DropUnreliable asks for: DropUnreliable when it is
// set, nothing otherwise. Training calls it on every batch's design and on the validation
// design; it returns the number of (method, stratum) pairs dropped.
func (d *Design) TrainingGuard() int {
	if !d.opts.DropUnreliable {
		return 0
	}
	return d.DropUnreliable()
}

// DropUnreliable removes every stratum flagged unreliable from every method's penalty:
// it then contributes 0, in Evaluate and in Matrices (the training graph), as an empty
// stratum does, and its StratumReport says Dropped. Training calls it so that a stratum
// whose estimate rests on a handful of rows or a floored normaliser cannot dominate the
// loss. It returns the number of (method, stratum) pairs dropped.
func (d *Design) DropUnreliable() int {
	dropped := 0
	for k := range d.methods {
		rep := &d.reports[k]
		off := map[int]bool{}
		for s := range rep.Strata {
			sr := &rep.Strata[s]
			if sr.Unreliable && !sr.Empty && !sr.Dropped {
				sr.Dropped = true
				off[s] = true
				d.norms[k][s] = [2][2]float64{}
				dropped++
			}
		}
		kept := d.coefs[k][:0]
		for _, e := range d.coefs[k] {
			if !off[e.s] {
				kept = append(kept, e)
			}
		}
		d.coefs[k] = kept
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
func (d *Design) Reports() []Report { return append([]Report(nil), d.reports...) }

// Matrices returns V (n×P, row-major) and C (S×P×P, row-major; S the number of strata)
// for the graph penalty (PenaltyGraph): C[s] sums, over the design's methods, the
// coefficients of stratum s, so a design built for one method gives that method's
// MMD²_y per stratum as Σ_pq C[s]_pq Q_pq.
func (d *Design) Matrices() (v, c []float64, p, strata int) {
	p, strata = len(d.cols), len(d.blocks)
	v = make([]float64, d.n*p)
	for j, col := range d.cols {
		for i, x := range col {
			v[i*p+j] = x
		}
	}
	c = make([]float64, strata*p*p)
	for k, cs := range d.coefs {
		for _, e := range cs {
			n := d.norms[k][e.s]
			w := 1.0 // MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀
			if e.b != e.bb {
				w = -2
			}
			c[(e.s*p+e.p)*p+e.q] += w * e.c / n[e.b][e.bb]
		}
	}
	return v, c, p, strata
}

// Evaluate returns each method's estimate for model outputs h, computing the kernel sums
// with summer (nil means Exact with one goroutine per CPU).
func (d *Design) Evaluate(h []float64, summer PairSummer) ([]Result, error) {
	if len(h) != d.n {
		return nil, fmt.Errorf("invmmd: %d model outputs for %d rows", len(h), d.n)
	}
	if err := checkFinite("h", h); err != nil {
		return nil, err
	}
	if summer == nil {
		summer = DefaultSummer()
	}
	p := len(d.cols)
	q := make([][]float64, p)
	for i := range q {
		q[i] = make([]float64, p)
	}
	for s, blk := range d.blocks {
		var idx []int
		var cols [][]float64
		for j, b := range d.colBlock {
			if b == s {
				idx = append(idx, j)
				cols = append(cols, d.cols[j])
			}
		}
		if len(idx) == 0 || len(blk.rows) < 2 {
			continue
		}
		qs, err := summer.PairSums(h, blk.rows, cols, d.opts.Bandwidth)
		if err != nil {
			return nil, err
		}
		for a, pa := range idx {
			for b, pb := range idx {
				q[pa][pb] = qs[a][b]
			}
		}
	}
	return d.assemble(q)
}

// assemble turns kernel sums into each method's result.
func (d *Design) assemble(q [][]float64) ([]Result, error) {
	out := make([]Result, len(d.methods))
	for k, m := range d.methods {
		r := Result{Method: m, Strata: make([]float64, len(d.blocks)), Terms: make([]Terms, len(d.blocks)), Report: d.reports[k]}
		for s, blk := range d.blocks {
			r.Terms[s] = Terms{Y: blk.label, N: d.norms[k][s], Empty: d.norms[k][s][0][0] == 0}
		}
		for _, e := range d.coefs[k] {
			r.Terms[e.s].T[e.b][e.bb] += e.c * q[e.p][e.q]
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

// Estimate evaluates methods on one batch: h holds the model outputs and rows the rest.
// The kernel sums are exact, in float64, over all pairs i ≠ j. Each result carries the
// jackknife standard error of every stratum's estimate (Design.StandardErrors): an MMD²
// cannot be negative, so an estimate below 0 by a few standard errors says the same as a
// flag, that the estimate rests on too little.
func Estimate(h []float64, rows Rows, opts Options, methods ...Method) ([]Result, error) {
	if len(h) != rows.Len() {
		return nil, fmt.Errorf("invmmd: %d model outputs for %d rows", len(h), rows.Len())
	}
	d, err := NewDesign(rows, opts, methods...)
	if err != nil {
		return nil, err
	}
	res, err := d.Evaluate(h, nil)
	if err != nil {
		return nil, err
	}
	se := d.StandardErrors(h)
	for k := range res {
		r := &res[k]
		r.SE = se[k]
		var v float64
		for _, e := range r.SE {
			v += e * e
		}
		r.ValueSE = math.Sqrt(v)
	}
	return res, nil
}
