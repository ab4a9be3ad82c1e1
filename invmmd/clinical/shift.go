package clinical

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Default fractions of the shifted split and of the missingness. The paper says only
// "mostly Y ≠ Z" and "mostly Y = Z"; 0.85 is the middle of the range the team asked for.
const (
	DefaultTrainDisagree = 0.85 // within each label, share of train/validation rows with Z ≠ Y
	DefaultTestAgree     = 0.85 // within each label, share of test rows with Z = Y
	DefaultTestShare     = 0.5  // share of the used rows that go to test
	DefaultValShare      = 0.25 // share of the train/validation pool that goes to validation
	DefaultProbGroup     = 1.0  // P(Z observed) in the table's Group (the paper's: male patients, always)
	DefaultProbOther     = 0.2  // P(Z observed) outside it (the paper's: non-male patients, 0.2)
)

// Shift sets how a cohort is split into a training distribution where Y and Z mostly
// disagree and a test distribution where they mostly agree. A zero field takes its
// default (the Default* constants).
//
// The construction works within each label y separately: of the train/validation rows
// with Y = y a share TrainDisagree has Z ≠ y; of the test rows with Y = y a share TestAgree
// has Z = y. Every split gets the same share of each label (TestShare of the label's rows
// go to test), so P(Y = 1) is the same in train, validation and test and only the Y–Z
// association moves. Rows are subsampled, as many as the scarcest (Y, Z) cell allows:
// with TestShare 1/2 and TrainDisagree = TestAgree the construction uses, for each label y,
// twice the smaller of its two cells (up to rounding), whatever the rates.
type Shift struct {
	TrainDisagree float64 // in (0, 1); default 0.85
	TestAgree     float64 // in (0, 1); default 0.85
	TestShare     float64 // in (0, 1); default 0.5
	ValShare      float64 // in (0, 1); default 0.25
	MaxRows       int     // at most this many rows in all (0: as many as the cells allow)
}

// Missingness sets the simulated missingness of Z by a group of rows (Table.Group): the
// paper observes Z for every male patient and for other patients with probability 0.2; the
// group is the table's (male in MIMIC-III). A zero field takes its default. Because the
// rule is known, the true observation probability G is recorded in GTrue.
type Missingness struct {
	ProbGroup float64 // P(Δ = 1 | in the group), in (0, 1]; default 1
	ProbOther float64 // P(Δ = 1 | not in it), in (0, 1]; default 0.2
}

// WithDefaults returns s with each zero field set to its default.
func (s Shift) WithDefaults() Shift {
	s.TrainDisagree, s.TestAgree = cmp.Or(s.TrainDisagree, DefaultTrainDisagree), cmp.Or(s.TestAgree, DefaultTestAgree)
	s.TestShare, s.ValShare = cmp.Or(s.TestShare, DefaultTestShare), cmp.Or(s.ValShare, DefaultValShare)
	return s
}

// Validate checks that every fraction lies strictly between 0 and 1 and MaxRows is not
// negative (after defaults).
func (s Shift) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"TrainDisagree", s.TrainDisagree}, {"TestAgree", s.TestAgree}, {"TestShare", s.TestShare}, {"ValShare", s.ValShare}} {
		if !(f.v > 0 && f.v < 1) {
			return fmt.Errorf("clinical: Shift.%s = %v, want a fraction strictly between 0 and 1", f.name, f.v)
		}
	}
	if s.MaxRows < 0 {
		return fmt.Errorf("clinical: Shift.MaxRows = %d, want 0 (no cap) or a positive count", s.MaxRows)
	}
	return nil
}

// WithDefaults returns m with each zero field set to its default.
func (m Missingness) WithDefaults() Missingness {
	m.ProbGroup, m.ProbOther = cmp.Or(m.ProbGroup, DefaultProbGroup), cmp.Or(m.ProbOther, DefaultProbOther)
	return m
}

// Validate checks that both probabilities lie in (0, 1]: a zero probability would make the
// inverse-probability weights of the estimators infinite.
func (m Missingness) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"ProbGroup", m.ProbGroup}, {"ProbOther", m.ProbOther}} {
		if !(f.v > 0 && f.v <= 1) {
			return fmt.Errorf("clinical: Missingness.%s = %v, want a probability in (0, 1]", f.name, f.v)
		}
	}
	return nil
}

// G returns the true probability that Z is observed for a row in the group (inGroup) or
// not.
func (m Missingness) G(inGroup bool) float64 {
	if inGroup {
		return m.ProbGroup
	}
	return m.ProbOther
}

// Split indices in SplitReport arrays.
const (
	Train = 0
	Val   = 1
	Test  = 2
)

// SplitNames are the dataset.Set names of the three splits, in index order.
var SplitNames = [3]string{"train", "val", "test"}

// SplitReport records how Assemble built the splits, for result files and notebooks.
type SplitReport struct {
	Source      string
	Seed        uint64
	GroupName   string      // the table's Group, whose Z is observed w.p. Missingness.ProbGroup
	Shift       Shift       // with defaults filled in
	Missingness Missingness // with defaults filled in
	Available   [2][2]int   // table rows per (Y, Z)
	Used        [3][2][2]int
	Index       [3][]int // table row of each split row, in split order
	Names       []string // feature columns of X
	Median      []float64
	Mean        []float64 // training mean after imputation
	SD          []float64 // training standard deviation after imputation (1 for constant columns)
	Imputed     [3][]int  // per split and column, how many values were missing and imputed
	Constant    []string  // columns constant on the training split (left centred, not scaled)
	Summaries   [3]dataset.Summary
}

// String renders the report: split sizes and balance, then the imputation.
func (r SplitReport) String() string {
	var b strings.Builder
	sh := r.Shift
	fmt.Fprintf(&b, "%s shifted split (seed %d): P(Z≠Y|Y) = %.2f in train/val, P(Z=Y|Y) = %.2f in test, test share %.2f, val share %.2f; Z observed w.p. %.2f (%s) / %.2f (other)\n",
		r.Source, r.Seed, sh.TrainDisagree, sh.TestAgree, sh.TestShare, sh.ValShare, r.Missingness.ProbGroup, r.GroupName, r.Missingness.ProbOther)
	fmt.Fprintf(&b, "available (Y,Z) cells: 00=%d 01=%d 10=%d 11=%d\n", r.Available[0][0], r.Available[0][1], r.Available[1][0], r.Available[1][1])
	for k, s := range r.Summaries {
		if s.N == 0 {
			continue // Assemble stopped before building this split
		}
		u := r.Used[k]
		fmt.Fprintf(&b, "%s  cells 00=%d 01=%d 10=%d 11=%d\n", s, u[0][0], u[0][1], u[1][0], u[1][1])
	}
	var imp []string
	most, mostJ := 0, -1
	for j, name := range r.Names {
		if j >= len(r.Imputed[Train]) {
			break // Assemble stopped before imputing
		}
		if c := r.Imputed[Train][j]; c > 0 {
			imp = append(imp, fmt.Sprintf("%s %d", name, c))
			if c > most {
				most, mostJ = c, j
			}
		}
	}
	switch {
	case len(imp) > 8:
		fmt.Fprintf(&b, "imputed in train (training median): %d of %d columns, at most %d of %d values (%s)\n",
			len(imp), len(r.Names), most, r.Summaries[Train].N, r.Names[mostJ])
	case len(imp) > 0:
		fmt.Fprintf(&b, "imputed in train (training median): %s\n", strings.Join(imp, ", "))
	}
	if len(r.Constant) > 0 {
		fmt.Fprintf(&b, "constant on train (not scaled): %s\n", strings.Join(r.Constant, ", "))
	}
	return b.String()
}

// RNG streams: the subsample and the missingness draw from separate streams of the seed,
// so changing the missingness probabilities leaves the subsample unchanged.
const (
	streamSplit   = 0x5e1ec7
	streamMissing = 0xde17a
)

// Assemble splits t into train, validation and test with the shifted (Y, Z) association of
// shift, draws Δ from miss, imputes missing features with the training split's median and
// standardises every column with the training split's mean and standard deviation. The
// same seed gives the same splits. An error names the empty (split, Y, Z) cell when the
// table cannot fill one.
func Assemble(t *Table, shift Shift, miss Missingness, seed uint64) (dataset.Splits, SplitReport, error) {
	shift, miss = shift.WithDefaults(), miss.WithDefaults()
	rep := SplitReport{Source: t.Name, Seed: seed, GroupName: t.GroupName, Shift: shift, Missingness: miss, Names: slices.Clone(t.Names)}
	for _, check := range []func() error{shift.Validate, miss.Validate, t.Validate} {
		if err := check(); err != nil {
			return dataset.Splits{}, rep, err
		}
	}

	var cells [2][2][]int
	for i := 0; i < t.Len(); i++ {
		y, z := int(t.Y[i]), int(t.Z[i])
		cells[y][z] = append(cells[y][z], i)
	}
	for y := 0; y < 2; y++ {
		for z := 0; z < 2; z++ {
			rep.Available[y][z] = len(cells[y][z])
			if len(cells[y][z]) == 0 {
				return dataset.Splits{}, rep, fmt.Errorf("clinical: %s: the table has no row with Y=%d, Z=%d, so no shifted split exists", t.Name, y, z)
			}
		}
	}
	pool, test := ShiftCounts(rep.Available, shift)
	rng := rand.New(rand.NewPCG(seed, streamSplit))
	var idx [3][]int
	for y := 0; y < 2; y++ {
		for z := 0; z < 2; z++ {
			c := slices.Clone(cells[y][z])
			rng.Shuffle(len(c), func(a, b int) { c[a], c[b] = c[b], c[a] })
			p := c[:pool[y][z]]
			nVal := int(math.Round(shift.ValShare * float64(len(p))))
			idx[Val] = append(idx[Val], p[:nVal]...)
			idx[Train] = append(idx[Train], p[nVal:]...)
			idx[Test] = append(idx[Test], c[pool[y][z]:pool[y][z]+test[y][z]]...)
			rep.Used[Val][y][z], rep.Used[Train][y][z], rep.Used[Test][y][z] = nVal, len(p)-nVal, test[y][z]
		}
	}
	for k := range idx {
		for y := 0; y < 2; y++ {
			for z := 0; z < 2; z++ {
				if rep.Used[k][y][z] == 0 {
					return dataset.Splits{}, rep, fmt.Errorf("clinical: %s: the shifted split leaves %s with no row with Y=%d, Z=%d (available cells 00=%d 01=%d 10=%d 11=%d; used %v); the table is too small or too unbalanced for these fractions",
						t.Name, SplitNames[k], y, z, rep.Available[0][0], rep.Available[0][1], rep.Available[1][0], rep.Available[1][1], rep.Used[k])
				}
			}
		}
		rng.Shuffle(len(idx[k]), func(a, b int) { idx[k][a], idx[k][b] = idx[k][b], idx[k][a] })
	}
	rep.Index = idx

	if err := fitScaling(t, idx[Train], &rep); err != nil {
		return dataset.Splits{}, rep, err
	}
	mrng := rand.New(rand.NewPCG(seed, streamMissing))
	var sets [3]*dataset.Set
	for k := range sets {
		sets[k] = buildSet(t, SplitNames[k], idx[k], &rep, k, miss, mrng)
		rep.Summaries[k] = sets[k].Summarize()
	}
	sp := dataset.Splits{Train: sets[Train], Val: sets[Val], Test: sets[Test]}
	if err := sp.Validate(); err != nil {
		return dataset.Splits{}, rep, fmt.Errorf("clinical: %s: %w", t.Name, err)
	}
	return sp, rep, nil
}

// ShiftCounts returns how many rows of each (Y, Z) cell the shifted split takes for the
// train/validation pool and for test, given the available rows per cell. For each label y
// it solves for the largest n_y such that the pool's (1−TestShare)·n_y rows (a share
// TrainDisagree with Z ≠ y) and the test's TestShare·n_y rows (a share TestAgree with Z = y)
// fit in the cells; then it scales both labels down to MaxRows when set. Counts are floored,
// so they never exceed what is available.
func ShiftCounts(avail [2][2]int, s Shift) (pool, test [2][2]int) {
	s = s.WithDefaults()
	phi := s.TestShare
	aDis := s.TrainDisagree*(1-phi) + (1-s.TestAgree)*phi // share of n_y drawn from cell (y, 1−y)
	aAgr := (1-s.TrainDisagree)*(1-phi) + s.TestAgree*phi // share of n_y drawn from cell (y, y)
	var n [2]float64
	for y := 0; y < 2; y++ {
		n[y] = math.Min(float64(avail[y][1-y])/aDis, float64(avail[y][y])/aAgr)
	}
	if tot := n[0] + n[1]; s.MaxRows > 0 && tot > float64(s.MaxRows) {
		n[0] *= float64(s.MaxRows) / tot
		n[1] *= float64(s.MaxRows) / tot
	}
	floor := func(x float64) int { return int(math.Floor(x + 1e-9)) }
	for y := 0; y < 2; y++ {
		tp, ts := (1-phi)*n[y], phi*n[y]
		pool[y][1-y], pool[y][y] = floor(s.TrainDisagree*tp), floor((1-s.TrainDisagree)*tp)
		test[y][y], test[y][1-y] = floor(s.TestAgree*ts), floor((1-s.TestAgree)*ts)
		for z := 0; z < 2; z++ { // guard the 1e-9 slack in floor
			if pool[y][z]+test[y][z] > avail[y][z] {
				test[y][z] = avail[y][z] - pool[y][z]
			}
		}
	}
	return pool, test
}

// fitScaling computes the training medians (for imputation) and the training mean and
// standard deviation after imputation.
func fitScaling(t *Table, train []int, rep *SplitReport) error {
	d := t.Dim()
	rep.Median, rep.Mean, rep.SD = make([]float64, d), make([]float64, d), make([]float64, d)
	col := make([]float64, 0, len(train))
	for j := 0; j < d; j++ {
		col = col[:0]
		for _, i := range train {
			if v := t.X[i*d+j]; !math.IsNaN(v) {
				col = append(col, v)
			}
		}
		if len(col) == 0 {
			return fmt.Errorf("clinical: %s: column %s has no measured value in the training split (%d rows), so it cannot be imputed; drop the column or use more rows", t.Name, t.Names[j], len(train))
		}
		slices.Sort(col)
		m := len(col) / 2
		med := col[m]
		if len(col)%2 == 0 {
			med = (col[m-1] + col[m]) / 2
		}
		rep.Median[j] = med
		var sum, sq float64
		for _, i := range train {
			v := t.X[i*d+j]
			if math.IsNaN(v) {
				v = med
			}
			sum += v
			sq += v * v
		}
		nf := float64(len(train))
		mean := sum / nf
		sd := math.Sqrt(math.Max(sq/nf-mean*mean, 0))
		if sd < 1e-12*math.Max(1, math.Abs(mean)) {
			sd = 1
			rep.Constant = append(rep.Constant, t.Names[j])
		}
		rep.Mean[j], rep.SD[j] = mean, sd
	}
	return nil
}

// buildSet builds one split's dataset.Set: standardised float32 features, Y, Z, the true G
// and Δ drawn from it.
func buildSet(t *Table, name string, idx []int, rep *SplitReport, k int, miss Missingness, rng *rand.Rand) *dataset.Set {
	d := t.Dim()
	n := len(idx)
	s := &dataset.Set{Name: name, Shape: []int{d}, X: make([]float32, n*d),
		Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n), GTrue: make([]float64, n)}
	rep.Imputed[k] = make([]int, d)
	for r, i := range idx {
		for j := 0; j < d; j++ {
			v := t.X[i*d+j]
			if math.IsNaN(v) {
				v = rep.Median[j]
				rep.Imputed[k][j]++
			}
			s.X[r*d+j] = float32((v - rep.Mean[j]) / rep.SD[j])
		}
		s.Y[r], s.Z[r] = t.Y[i], t.Z[i]
		g := miss.G(t.Group[i])
		s.GTrue[r] = g
		if rng.Float64() < g {
			s.Delta[r] = 1
		}
	}
	return s
}

// Table is a cohort before it is split: one row per patient (or ICU stay) with raw,
// unstandardised features. It is what a data source hands to Assemble.
type Table struct {
	Name  string    // source name for messages and reports, e.g. "flchain", "mimic3"
	Names []string  // feature names, one per column of X
	X     []float64 // raw features, row-major; NaN marks a value that was not measured
	Y     []float64 // label, 0 or 1
	Z     []float64 // nuisance, 0 or 1 (the truth; Assemble hides some of it)
	// Group marks the rows of the group whose Z is observed with Missingness.ProbGroup
	// (the others with ProbOther): it drives the simulated missingness of Z, as being male
	// does in the paper. It must be a function of X, so that the true G is one too.
	Group []bool
	// GroupName says what Group is, for reports: "male" (MIMIC-III), "aged 65 or over"
	// (flchain).
	GroupName string
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.Y) }

// Dim returns the number of feature columns.
func (t *Table) Dim() int { return len(t.Names) }

// Validate checks that the columns agree in length, that Y and Z are 0 or 1 and that every
// feature is finite or NaN (NaN means missing; ±Inf is an error). Errors name the row and
// column.
func (t *Table) Validate() error {
	n, d := t.Len(), t.Dim()
	if n == 0 {
		return fmt.Errorf("clinical table %s: no rows", t.Name)
	}
	if d == 0 {
		return fmt.Errorf("clinical table %s: no feature columns", t.Name)
	}
	if len(t.X) != n*d {
		return fmt.Errorf("clinical table %s: %d feature values for %d rows of %d columns (want %d)", t.Name, len(t.X), n, d, n*d)
	}
	if len(t.Z) != n || len(t.Group) != n {
		return fmt.Errorf("clinical table %s: Y has %d rows, Z %d, Group %d", t.Name, n, len(t.Z), len(t.Group))
	}
	for i := 0; i < n; i++ {
		if t.Y[i] != 0 && t.Y[i] != 1 {
			return fmt.Errorf("clinical table %s: row %d: Y = %v, want 0 or 1", t.Name, i, t.Y[i])
		}
		if t.Z[i] != 0 && t.Z[i] != 1 {
			return fmt.Errorf("clinical table %s: row %d: Z = %v, want 0 or 1", t.Name, i, t.Z[i])
		}
		for j, v := range t.X[i*d : (i+1)*d] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("clinical table %s: row %d: column %s = %v, want a finite value or NaN for missing", t.Name, i, t.Names[j], v)
			}
		}
	}
	return nil
}
