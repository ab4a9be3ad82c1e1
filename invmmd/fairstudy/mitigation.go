package fairstudy

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// mitigationMethods are the methods the study fits on the rows a user has: none, obs, ip
// and dr (the oracle is full with every attribute).
var mitigationMethods = []method.Method{method.None, method.Obs, method.IP, method.DR}

// The mitigation study: on public tables with the attribute complete, the
// attribute is hidden on part of the training rows by a documented rule; fit's models are
// trained with the attribute partly missing (none, obs, ip, dr over λ), the oracle (full)
// with it whole, and every model's test scores are evaluated on complete held-out rows by
// fairness.EvaluateScores at the training prevalence and at 0.5. Fairlearn's scores, when
// scripts/fairness/mitigation_peer.py has written them beside the exported rows, are
// evaluated by the same code.

// MitigationTable is one table of the study: its rows, a binary attribute (Group against
// every other recorded level) and the rule hiding it on training and validation rows,
// with probability expit(Intercept + Σ terms + YCoef·Y) (a Term with a Level is an
// indicator, on a numeric column too; without one the column's standardised value).
type MitigationTable struct {
	Name, File   string
	Y, YPositive string
	Z, Group     string
	Drop         []string // attribute levels whose rows are left out (not recorded)
	X            []string
	Rows         int // a random subsample of this many rows per seed; 0: every row
	Intercept    float64
	YCoef        float64
	Terms        []Term
}

// MitigationTables are the study's tables: the Minneapolis stops (personSearch, race
// Black against the other recorded races), hidden more often where the officer saw a
// Black person before the stop (preRace) and in the 4th precinct, so that the complete
// cases under-represent Black people through features that also drive searches; and the
// college table (income, ethnicity afam against the others), hidden at random given the
// label and gender, not tied to the gap.
func MitigationTables() []MitigationTable {
	return []MitigationTable{
		{
			Name: "mplsstops", File: MplsFile, Y: "personSearch", YPositive: "YES", Z: "race", Group: "Black", Drop: []string{"Unknown"},
			X: MplsFeatures(), Rows: 6000, Intercept: -1.5, YCoef: 0.5,
			Terms: []Term{{"preRace", "Black", 2.0}, {"policePrecinct", "4", 1.0}},
		},
		{
			Name: "college", File: "data/fairness/college_full.csv", Y: "income", YPositive: "high", Z: "ethnicity", Group: "afam",
			X:         []string{"gender", "score", "fcollege", "mcollege", "home", "urban", "unemp", "wage", "distance", "tuition", "education", "region"},
			Intercept: -0.4, YCoef: 0.5,
			Terms: []Term{{"gender", "female", 0.3}},
		},
	}
}

// Split shares of the study's rows: training, validation, then the complete held-out rows.
const (
	mitTrain = 0.5
	mitVal   = 0.15
)

// MitigationConfig is one run of the study.
type MitigationConfig struct {
	Root    string // the repository's root (the tables' paths are relative to it)
	Dir     string // the exported rows and score files, DIR/TABLE/seedS/; empty writes none
	Tables  []MitigationTable
	Seeds   []uint64
	Lambdas []float64
	Nets    owndata.Nets
	Draws   int       // random rankings of the noise (fairness.DecisionOptions.Draws)
	Log     io.Writer // progress and timings; nil discards
}

// MitigationRow is one model's decisions on one seed's held-out rows under one rule.
type MitigationRow struct {
	Table  string
	Seed   uint64
	Model  string  // none, obs, ip, dr, oracle, or a score file's NAME
	Lambda float64 // NaN for none and the score files
	Rule   string  // "rate" (the training prevalence), "0.5", or "own" (a score file's randomised decisions)
	fairness.Decisions
	// HiddenShare and HiddenGroup are the shares of training rows hidden overall and in the
	// attribute's Group; Seconds the fit's time (0 for score files).
	HiddenShare, HiddenGroup, Seconds float64
}

// RunMitigation runs the study: every table and seed, the models over the λ. It stops once
// ctx is done, with an error wrapping ctx's.
func RunMitigation(ctx context.Context, c MitigationConfig) ([]MitigationRow, error) {
	var out []MitigationRow
	for _, t := range c.Tables {
		tab, err := tabular.ReadFileContext(ctx, filepath.Join(c.Root, t.File), append([]string{t.Y, t.Z}, t.X...))
		if err != nil {
			return out, fmt.Errorf("mitigation %s: %w", t.Name, err)
		}
		for _, s := range c.Seeds {
			rows, err := mitigationSeed(ctx, c, t, tab, s)
			if err != nil {
				return out, fmt.Errorf("mitigation %s seed %d: %w", t.Name, s, err)
			}
			out = append(out, rows...)
		}
	}
	return out, nil
}

// mitSplit is one seed's rows of a table: encoded-free table columns, labels, complete
// attribute, hidden indicator and split names.
type mitSplit struct {
	sub    *tabular.Table
	y, z   []int
	hidden []bool
	split  []string
}

// mitigationRows draws one seed's rows of t: the recorded rows (Y and Z recorded, Z not
// dropped), subsampled, split, with the attribute hidden by t's rule on the training and
// validation rows.
func mitigationRows(tab *tabular.Table, t MitigationTable, seed uint64) (*mitSplit, error) {
	yc, zc := tab.Column(t.Y), tab.Column(t.Z)
	var keep []int
	for i := range tab.Len() {
		if !yc.IsMissing(i) && !zc.IsMissing(i) && !slices.Contains(t.Drop, zc.Value(i)) {
			keep = append(keep, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x3171))
	rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
	if t.Rows > 0 && t.Rows < len(keep) {
		keep = keep[:t.Rows]
	}
	slices.Sort(keep)
	sub, err := subTable(tab, keep, append([]string{t.Y, t.Z}, t.X...))
	if err != nil {
		return nil, err
	}
	yf, err := sub.Binary(t.Y, t.YPositive, "Y")
	if err != nil {
		return nil, err
	}
	n := sub.Len()
	s := &mitSplit{sub: sub, y: make([]int, n), z: make([]int, n), hidden: make([]bool, n), split: make([]string, n)}
	zs := sub.Column(t.Z)
	for i := range n {
		s.y[i] = int(yf[i])
		if zs.Value(i) == t.Group {
			s.z[i] = 1
		}
	}
	logit, err := hidingLogits(sub, s.y, t.Intercept, t.YCoef, t.Terms)
	if err != nil {
		return nil, err
	}
	nTrain, nVal := int(mitTrain*float64(n)), int(mitVal*float64(n))
	for k, i := range rng.Perm(n) {
		switch {
		case k < nTrain:
			s.split[i] = "train"
		case k < nTrain+nVal:
			s.split[i] = "val"
		default:
			s.split[i] = "test"
		}
		s.hidden[i] = s.split[i] != "test" && rng.Float64() < 1/(1+math.Exp(-logit[i]))
	}
	return s, nil
}

// hidingLogits returns each row's log odds of hiding by a rule: intercept + yCoef·y + Σ
// terms (an indicator of a Level, or the column's standardised value without one).
func hidingLogits(tab *tabular.Table, y []int, intercept, yCoef float64, terms []Term) ([]float64, error) {
	n := tab.Len()
	logit := make([]float64, n)
	for i := range n {
		logit[i] = intercept + yCoef*float64(y[i])
	}
	for _, term := range terms {
		c := tab.Column(term.Column)
		if c == nil {
			return nil, fmt.Errorf("%s: no column %q", tab.File, term.Column)
		}
		if c.Numeric && term.Level == "" {
			var s, ss float64
			for _, v := range c.Num {
				s += v
				ss += v * v
			}
			mean := s / float64(n)
			sd := math.Sqrt(ss/float64(n) - mean*mean)
			for i, v := range c.Num {
				logit[i] += term.Coef * (v - mean) / sd
			}
			continue
		}
		for i := range n {
			if c.Value(i) == term.Level {
				logit[i] += term.Coef
			}
		}
	}
	return logit, nil
}

// fitTable returns the table fit reads: the features x1..xd as encoded for the whole
// subsample (owndata.EncodeFeatures), y, z ("0"/"1", empty where hidden unless whole) and split.
func (s *mitSplit) fitTable(x []float64, dim int, whole bool) (*tabular.Table, []string, error) {
	n := len(s.y)
	var cols []tabular.Col
	var names []string
	for j := range dim {
		v := make([]float64, n)
		for i := range n {
			v[i] = x[i*dim+j]
		}
		name := "x" + strconv.Itoa(j+1)
		names = append(names, name)
		cols = append(cols, tabular.NumberColumn(name, v))
	}
	ys, zs := make([]string, n), make([]string, n)
	for i := range n {
		ys[i] = strconv.Itoa(s.y[i])
		if whole || !s.hidden[i] {
			zs[i] = strconv.Itoa(s.z[i])
		}
	}
	cols = append(cols, tabular.TextColumn("y", ys), tabular.TextColumn("z", zs), tabular.TextColumn("split", s.split))
	tab, err := tabular.NewTable("mitigation", cols...)
	return tab, names, err
}

// mitigationSeed fits and evaluates every model of one table and seed.
func mitigationSeed(ctx context.Context, c MitigationConfig, t MitigationTable, tab *tabular.Table, seed uint64) ([]MitigationRow, error) {
	log := c.Log
	if log == nil {
		log = io.Discard
	}
	s, err := mitigationRows(tab, t, seed)
	if err != nil {
		return nil, err
	}
	x, dim, err := owndata.EncodeFeatures(s.sub, t.X)
	if err != nil {
		return nil, err
	}
	plan := func(whole bool, ms ...method.Method) (*owndata.Plan, error) {
		tab, names, err := s.fitTable(x, dim, whole)
		if err != nil {
			return nil, err
		}
		cfg := owndata.DefaultConfig()
		cfg.Columns = owndata.Columns{Y: "y", YPositive: "1", Z: "z", ZPositive: "1", X: names}
		cfg.Split, cfg.Nets, cfg.Methods, cfg.Seeds, cfg.Out = "split", c.Nets, ms, []uint64{seed}, ""
		cfg.AuxSeed = seed
		return owndata.PrepareTable(ctx, tab, cfg)
	}
	p, err := plan(false, mitigationMethods...)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	po, err := plan(true, method.Full)
	if err != nil {
		return nil, err
	}
	defer po.Close()
	test, tr := p.Data.Splits.Test, p.Data.Splits.Train
	e := evaluation{table: t.Name, seed: seed, y: ints(test.Y), z: ints(po.Data.Splits.Test.Z), draws: c.Draws, log: log}
	for _, v := range tr.Y {
		e.rate += v
	}
	e.rate /= float64(tr.Len())
	var nG float64
	for i := range s.y {
		if s.split[i] == "train" {
			e.hid += b2f(s.hidden[i])
			e.hidG += b2f(s.hidden[i] && s.z[i] == 1)
			nG += float64(s.z[i])
		}
	}
	e.hid /= float64(tr.Len())
	e.hidG /= nG
	var out []MitigationRow
	start := time.Now()
	aux, _, err := p.FitNuisances(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "mitigation %s seed %d: %d rows (train %d, val %d, test %d), %.0f%% of training rows hidden (%.0f%% of group %s), G and m in %.1f s\n",
		t.Name, seed, len(s.y), tr.Len(), p.Data.Splits.Val.Len(), test.Len(), 100*e.hid, 100*e.hidG, t.Group, time.Since(start).Seconds())
	auxO, _, err := po.FitNuisances(ctx)
	if err != nil {
		return nil, err
	}
	type fitSpec struct {
		p *owndata.Plan
		m method.Method
		l float64
	}
	fits := []fitSpec{{p, method.None, math.NaN()}} // none once: λ does not move it
	for _, l := range c.Lambdas {
		fits = append(fits, fitSpec{p, method.Obs, l}, fitSpec{p, method.IP, l}, fitSpec{p, method.DR, l}, fitSpec{po, method.Full, l})
	}
	for _, f := range fits {
		a := aux
		if f.p == po {
			a = auxO
		}
		start := time.Now()
		lambda := f.l
		if math.IsNaN(lambda) {
			lambda = 0
		}
		model, err := f.p.TrainModel(ctx, a, f.m, seed, lambda)
		if err != nil {
			return nil, err
		}
		scores, err := model.Probabilities(f.p.Data.Splits.Test)
		if err != nil {
			return nil, err
		}
		name := f.m.String()
		if f.m == method.Full {
			name = "oracle"
		}
		rows, err := e.rows(name, f.l, scores, time.Since(start).Seconds(), false)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	if c.Dir == "" {
		return out, nil
	}
	dir := filepath.Join(c.Dir, t.Name, "seed"+strconv.FormatUint(seed, 10))
	if err := exportRows(dir, p.Data.Splits, po.Data.Splits); err != nil {
		return nil, err
	}
	peers, err := peerRows(dir, t.Name, seed, c.Draws, log)
	if err != nil {
		return nil, err
	}
	return append(out, peers...), nil
}

// evaluation evaluates one seed's models: on the held-out rows' labels and complete
// attribute, at the training prevalence, with the seed's ties; hid and hidG are the shares
// of training rows hidden overall and in the attribute's group.
type evaluation struct {
	table           string
	seed            uint64
	y, z            []int
	rate, hid, hidG float64
	draws           int
	log             io.Writer
}

// rows evaluates one model's test scores at the training prevalence and at 0.5, and with
// own at its own operating point too (fairness.EvaluateOwn: the score files, whose scores
// are a randomised classifier's P(Ŷ = 1); fit's models decide by threshold, their own
// point being the 0.5 rule).
func (e evaluation) rows(model string, lambda float64, scores []float64, secs float64, own bool) ([]MitigationRow, error) {
	r, h, err := fairness.EvaluateScores(scores, e.y, e.z, fairness.DecisionOptions{Rate: e.rate, Seed: e.seed, Draws: e.draws})
	if err != nil {
		return nil, fmt.Errorf("%s (λ %g): %w", model, lambda, err)
	}
	fmt.Fprintf(e.log, "mitigation %s seed %d %s λ %g: AUC %.3f, balanced accuracy %.3f, gap %.3f (noise %.3f ± %.3f) at rate %.3f, %.1f s\n",
		e.table, e.seed, model, lambda, r.AUC, r.BalancedAcc, r.Gap, r.NoiseMean, r.NoiseSD, e.rate, secs)
	row := MitigationRow{Table: e.table, Seed: e.seed, Model: model, Lambda: lambda, HiddenShare: e.hid, HiddenGroup: e.hidG, Seconds: secs}
	atRate, atHalf := row, row
	atRate.Rule, atRate.Decisions = "rate", r
	atHalf.Rule, atHalf.Decisions = "0.5", h
	if !own {
		return []MitigationRow{atRate, atHalf}, nil
	}
	o, err := fairness.EvaluateOwn(scores, e.y, e.z, fairness.DecisionOptions{Seed: e.seed, Draws: e.draws})
	if err != nil {
		return nil, fmt.Errorf("%s at its own operating point: %w", model, err)
	}
	atOwn := row
	atOwn.Rule, atOwn.Decisions = "own", o
	return []MitigationRow{atRate, atHalf, atOwn}, nil
}

// PeerRows evaluates the score files that scripts/fairness/mitigation_peer.py wrote beside
// the study's exported rows, DIR/TABLE/seedS/scores_NAME.csv, for every table and seed whose
// folder holds any, as the study evaluates its own models (the same rows, rate, ties and
// noise): so Fairlearn's scores join a committed study without fitting it again. A folder
// without score files gives no rows; the second result lists the folders that had some.
func PeerRows(dir string, tables []MitigationTable, seeds []uint64, draws int, log io.Writer) ([]MitigationRow, map[string]bool, error) {
	var out []MitigationRow
	had := map[string]bool{}
	for _, t := range tables {
		for _, s := range seeds {
			d := filepath.Join(dir, t.Name, "seed"+strconv.FormatUint(s, 10))
			rows, err := peerRows(d, t.Name, s, draws, log)
			if err != nil {
				return nil, nil, err
			}
			if len(rows) > 0 {
				had[t.Name+"/"+strconv.FormatUint(s, 10)] = true
			}
			out = append(out, rows...)
		}
	}
	return out, had, nil
}

// peerRows evaluates the score files of one exported folder (none: no rows), reading the
// labels, attribute, prevalence and hidden shares back from its train.csv and test.csv.
func peerRows(dir, table string, seed uint64, draws int, log io.Writer) ([]MitigationRow, error) {
	files, err := filepath.Glob(filepath.Join(dir, "scores_*.csv"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	slices.Sort(files)
	if log == nil {
		log = io.Discard
	}
	e := evaluation{table: table, seed: seed, draws: draws, log: log}
	test, err := tabular.ReadFile(filepath.Join(dir, "test.csv"), []string{"y", "z"})
	if err != nil {
		return nil, err
	}
	for i := range test.Len() {
		y, err1 := strconv.Atoi(test.Column("y").Value(i))
		z, err2 := strconv.Atoi(test.Column("z").Value(i))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s/test.csv: row %d: want whole numbers y and z", dir, i+1)
		}
		e.y, e.z = append(e.y, y), append(e.z, z)
	}
	train, err := tabular.ReadFile(filepath.Join(dir, "train.csv"), []string{"y", "z", "z_full", "split"})
	if err != nil {
		return nil, err
	}
	var n, nG float64
	for i := range train.Len() {
		if train.Column("split").Value(i) != "train" {
			continue
		}
		hidden, inG := train.Column("z").IsMissing(i), train.Column("z_full").Value(i) == "1"
		n++
		e.rate += b2f(train.Column("y").Value(i) == "1")
		e.hid += b2f(hidden)
		e.hidG += b2f(hidden && inG)
		nG += b2f(inG)
	}
	e.rate, e.hid, e.hidG = e.rate/n, e.hid/n, e.hidG/nG
	var out []MitigationRow
	for _, f := range files {
		tab, err := tabular.ReadFile(f, []string{"score"})
		if err != nil {
			return nil, err
		}
		c := tab.Column("score")
		if !c.Numeric || tab.Len() != len(e.y) {
			return nil, fmt.Errorf("%s: want a numeric column score of %d rows (one per test row), got %d", f, len(e.y), tab.Len())
		}
		rows, err := e.rows(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "scores_"), ".csv"), math.NaN(), c.Num, 0, true)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ints returns v as whole numbers (-1 for NaN).
func ints(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = -1
		if !math.IsNaN(x) {
			out[i] = int(x)
		}
	}
	return out
}

// exportRows writes dir/train.csv (training and validation rows: x1..xd as fit encoded
// them, y, z empty where hidden, z_full, split) and dir/test.csv (x1..xd, y, z), the rows
// scripts/fairness/mitigation_peer.py reads.
func exportRows(dir string, sp, whole dataset.Splits) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, sets []*dataset.Set, full []*dataset.Set) error {
		var b strings.Builder
		d := sets[0].Dim()
		for j := range d {
			fmt.Fprintf(&b, "x%d,", j+1)
		}
		b.WriteString("y,z")
		if len(sets) > 1 {
			b.WriteString(",z_full,split")
		}
		b.WriteString("\n")
		for k, s := range sets {
			for i := range s.Len() {
				for j := range d {
					b.WriteString(strconv.FormatFloat(float64(s.X[i*d+j]), 'g', -1, 32) + ",")
				}
				z := ""
				if s.Delta[i] == 1 {
					z = strconv.Itoa(int(s.Z[i]))
				}
				fmt.Fprintf(&b, "%d,%s", int(s.Y[i]), z)
				if len(sets) > 1 {
					fmt.Fprintf(&b, ",%d,%s", int(full[k].Z[i]), s.Name)
				}
				b.WriteString("\n")
			}
		}
		return os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
	}
	if err := write("train.csv", []*dataset.Set{sp.Train, sp.Val}, []*dataset.Set{whole.Train, whole.Val}); err != nil {
		return err
	}
	return write("test.csv", []*dataset.Set{sp.Test}, nil)
}

// WithPeers returns rows with the score files' rows of every table and seed that had score
// files (PeerRows) in place of those rows had: each table and seed's own models first, then
// its score files', as a full run orders them.
func WithPeers(rows, peers []MitigationRow, had map[string]bool) []MitigationRow {
	key := func(r MitigationRow) string { return r.Table + "/" + strconv.FormatUint(r.Seed, 10) }
	own := func(r MitigationRow) bool {
		return r.Model == "oracle" || slices.ContainsFunc(mitigationMethods, func(m method.Method) bool { return m.String() == r.Model })
	}
	var out []MitigationRow
	for i, r := range rows {
		if !had[key(r)] || own(r) {
			out = append(out, r)
		}
		// After the folder's last row, kept or not (a file holding score files' rows ends with one).
		if last := i == len(rows)-1 || key(rows[i+1]) != key(r); last && had[key(r)] {
			for _, p := range peers {
				if key(p) == key(r) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
