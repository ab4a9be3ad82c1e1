// Package results holds the plain data an experiment's tables and figures are made of —
// the rows of a result CSV, their summaries over seeds, the paper's numbers, the points of
// the variance study and the training curves of a fit — with their CSV and Markdown forms.
// It imports nothing but the standard library, so that drawing (package figures) and
// reading tables need none of the training code: a program or notebook cell that only
// reads and draws results compiles in seconds.
//
// A result CSV has the header `method,seed,tr_mmd,tr_acc,te_acc`, one row per trained
// model; variance.csv has `estimator,batch_size,mean,std,n,median,q25,q75,empty,floored,min_g`
// (VarianceCSVHeader), one row per estimator and batch size.
package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
)

// Cell is a reported mean ± standard deviation.
type Cell struct{ Mean, Std float64 }

// PaperRow is one method's column of a table of the paper: train MMD, train accuracy and
// test accuracy, each mean ± std over PaperSeeds seeds.
type PaperRow struct{ TrMMD, TrAcc, TeAcc Cell }

// PaperSeeds is the number of seeds behind each of the paper's means and standard
// deviations (its tables report three runs), which the results figures print next to ours.
const PaperSeeds = 3

// Row is one trained model's numbers: a row of the result CSV.
type Row struct {
	Method string
	Seed   uint64
	TrMMD  float64 // full estimator of Σ_y MMD²_y on the training set
	TrAcc  float64
	TeAcc  float64
}

// Summary is a method's mean ± sample standard deviation over seeds, with the rows it
// summarises: a figure draws each seed, so that a split result (some seeds fail, others
// do not) is not read as one wide spread.
type Summary struct {
	Method              string
	N                   int
	TrMMD, TrAcc, TeAcc Cell
	// Rows are the method's rows in the order given to Summarize (nil in a summary built
	// by hand: a figure then draws the mean ± sd alone).
	Rows []Row
}

// FigureHints are what an experiment's results figure draws besides its table, things
// the table cannot say: the accuracy ceiling of an invariant model where the data's
// construction fixes it, and where the paper's numbers come from when it is not our
// dataset. The zero value draws neither.
type FigureHints struct {
	// Ceiling is the best test accuracy an invariant model can reach (0: no ceiling line),
	// CeilingWhat what fixes it, e.g. "invariant h*" or "label noise".
	Ceiling     float64
	CeilingWhat string
	// PaperDataset names the dataset of the paper's numbers when it differs from ours
	// (e.g. "MIMIC-III" next to a public stand-in); "" when it is the same.
	PaperDataset string
	// MMDOf names what the train MMD² is taken on when it is not the logit, e.g. "the
	// penultimate features"; "" for the logit.
	MMDOf string
}

// csvHeader is the header of every result CSV.
var csvHeader = []string{"method", "seed", "tr_mmd", "tr_acc", "te_acc"}

// LambdaName formats λ for file names: 1 → "1", 0.5 → "0.5".
func LambdaName(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// TablePath returns the path of the result CSV for experiment name at λ under dir:
// dir/NAME_lambdaΛ.csv.
func TablePath(dir, name string, lambda float64) string {
	return filepath.Join(dir, name+"_lambda"+LambdaName(lambda)+".csv")
}

// WriteCSV writes rows under the header method, seed, tr_mmd, tr_acc, te_acc, numbers with
// 6 decimals.
func WriteCSV(w io.Writer, rows []Row) error {
	return WriteRecords(w, csvHeader, rows, func(r Row) []string {
		return []string{r.Method, strconv.FormatUint(r.Seed, 10), fmtF(r.TrMMD), fmtF(r.TrAcc), fmtF(r.TeAcc)}
	})
}

// WriteRecords writes header and then one record per row (rec) with encoding/csv: the one
// CSV writer of the project's tables.
func WriteRecords[T any](w io.Writer, header []string, rows []T, rec func(T) []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(rec(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeLines writes header and then one line per row (line, without its newline).
func writeLines[T any](w io.Writer, header string, rows []T, line func(T) string) error {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		b.WriteString(line(r) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtF(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }

// asWritten rounds x as the result tables write it (6 decimals).
func asWritten(x float64) float64 {
	v, _ := strconv.ParseFloat(fmtF(x), 64) // what FormatFloat writes, NaN and ±Inf too, parses
	return v
}

// AsWritten returns a copy of rows with their numbers rounded as WriteCSV writes them, so
// that a figure drawn from a run's rows is the figure `invmmd figures` redraws from its CSV,
// to the byte.
func AsWritten(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		r.TrMMD, r.TrAcc, r.TeAcc = asWritten(r.TrMMD), asWritten(r.TrAcc), asWritten(r.TeAcc)
		out[i] = r
	}
	return out
}

// ReadCSVFile reads the result CSV at path, checking the header and every value; errors
// name the file, line and column.
func ReadCSVFile(path string) ([]Row, error) {
	return readFile(path, strings.Join(csvHeader, ","), parseRow)
}

// parseRow reads a record of a result CSV.
func parseRow(f *fieldReader) Row {
	return Row{Method: f.method(0), Seed: uint64(f.count(1, 0)), TrMMD: f.num(2), TrAcc: f.num(3), TeAcc: f.num(4)}
}

// Summarize groups rows by method, in the order of the method table (the paper's table order,
// extensions last), keeping each method's rows in its Summary.
func Summarize(rows []Row) []Summary {
	by := map[string][]Row{}
	for _, r := range rows {
		by[r.Method] = append(by[r.Method], r)
	}
	var out []Summary
	for _, m := range method.Names() {
		rs, ok := by[m]
		if !ok {
			continue
		}
		s := Summary{Method: m, N: len(rs), Rows: rs}
		s.TrMMD = cellOf(rs, func(r Row) float64 { return r.TrMMD })
		s.TrAcc = cellOf(rs, func(r Row) float64 { return r.TrAcc })
		s.TeAcc = cellOf(rs, func(r Row) float64 { return r.TeAcc })
		out = append(out, s)
	}
	return out
}

func cellOf(rs []Row, f func(Row) float64) Cell {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return CellOf(v)
}

// DefaultMMDNote says what the tr mmd row of the paper's experiments is.
const DefaultMMDNote = "tr mmd is the full estimator of Σ_y MMD²_y on the training set."

// TableExtras is what a results table shows beyond the paper's layout; the zero value
// adds nothing.
type TableExtras struct {
	// Majority, when set, adds a row with the test split's majority baseline under every
	// method: the accuracy to beat when P(Y = 1) in test is far from 1/2.
	Majority *Majority
	// PaperDataset names the dataset of the paper's numbers when it is not ours (e.g.
	// "MIMIC-III" beside a public stand-in): the levels are then not comparable, so the
	// table gives the paper's test accuracy only as each method's difference from the
	// paper's none, next to ours from our none, and leaves out the paper's levels.
	PaperDataset string
}

// WriteMarkdownWith writes a table of sums next to the paper's numbers (when paper is not
// nil), in the paper's layout: a column per method, rows train MMD, train accuracy and test
// accuracy. Our cells are mean ± standard deviation over seeds; a method with one seed
// shows its value alone. The footnote's sentence mmdNote says what tr mmd is
// (DefaultMMDNote for the paper's MMD²; an experiment whose penalty is another, e.g. the
// joint MMD² of a continuous nuisance, says so). ex adds the majority baseline and, for a
// paper on another dataset, the comparison as differences from none (TableExtras).
func WriteMarkdownWith(w io.Writer, title string, sums []Summary, paper map[string]PaperRow, mmdNote string, ex TableExtras) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n| | ", title)
	for _, s := range sums {
		fmt.Fprintf(&b, "%s | ", s.Method)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sums)) + "\n")
	// row writes a row of the table: its label, then each method's cell.
	row := func(label string, cell func(i int, s Summary) string) {
		fmt.Fprintf(&b, "| %s | ", label)
		for i, s := range sums {
			b.WriteString(cell(i, s) + " | ")
		}
		b.WriteString("\n")
	}
	levels := paper // the paper's rows at their levels
	if ex.PaperDataset != "" {
		levels = nil
	}
	line := func(label string, ours func(Summary) Cell, theirs func(PaperRow) Cell) {
		row(label+" (ours)", func(_ int, s Summary) string {
			if c := ours(s); s.N != 1 {
				return fmt.Sprintf("%.3f ± %.3f", c.Mean, c.Std)
			}
			return fmt.Sprintf("%.3f", ours(s).Mean) // one seed has no spread: a "± 0.000" would claim one
		})
		if levels != nil {
			row(label+" (paper)", func(_ int, s Summary) string {
				if p, ok := levels[s.Method]; ok {
					return fmt.Sprintf("%.3f ± %.3f", theirs(p).Mean, theirs(p).Std)
				}
				return "–"
			})
		}
	}
	line("tr mmd", func(s Summary) Cell { return s.TrMMD }, func(p PaperRow) Cell { return p.TrMMD })
	line("tr acc", func(s Summary) Cell { return s.TrAcc }, func(p PaperRow) Cell { return p.TrAcc })
	line("te acc", func(s Summary) Cell { return s.TeAcc }, func(p PaperRow) Cell { return p.TeAcc })
	none := method.None.String()
	diffs := false
	if ex.PaperDataset != "" && paper != nil {
		if d, ok := DiffsFromNone(sums); ok {
			diffs = true
			row("te acc − none (ours)", func(i int, s Summary) string {
				switch {
				case s.Method == none:
					return "0"
				case d[i].Seeds < 2:
					return fmt.Sprintf("%+.3f", d[i].Mean)
				}
				return fmt.Sprintf("%+.3f ± %.3f", d[i].Mean, d[i].Std)
			})
		}
		if pn, ok := paper[none]; ok {
			diffs = true
			row(fmt.Sprintf("te acc − none (paper, %s)", ex.PaperDataset), func(_ int, s Summary) string {
				p, ok := paper[s.Method]
				switch {
				case !ok:
					return "–"
				case s.Method == none:
					return "0"
				}
				return fmt.Sprintf("%+.2f", p.TeAcc.Mean-pn.TeAcc.Mean)
			})
		}
	}
	if m := ex.Majority; m != nil {
		row("te acc, "+m.Name(), func(int, Summary) string {
			if m.N > 1 && m.TeAcc.Std > 0 {
				return fmt.Sprintf("%.3f ± %.3f", m.TeAcc.Mean, m.TeAcc.Std)
			}
			return fmt.Sprintf("%.3f", m.TeAcc.Mean)
		})
	}
	n := 0
	for _, s := range sums {
		n = max(n, s.N)
	}
	switch {
	case n == 1 && levels != nil:
		fmt.Fprintf(&b, "\nOne seed: our numbers have no standard deviation (the paper's are over three seeds). %s\n", mmdNote)
	case n == 1:
		fmt.Fprintf(&b, "\nOne seed: our numbers have no standard deviation. %s\n", mmdNote)
	default:
		fmt.Fprintf(&b, "\nMean ± standard deviation over %d seeds. %s\n", n, mmdNote)
	}
	if diffs {
		fmt.Fprintf(&b, "The paper's numbers are on %s, whose levels are not ours: its test accuracies are compared as differences from its none. te acc − none (ours) is, per seed, a method's test accuracy minus none's on the same split.\n", ex.PaperDataset)
	}
	if m := ex.Majority; m != nil {
		fmt.Fprintf(&b, "%s: always predicting Y = %d, the test split's more common label, which scores P(Y = %d) there; it, not 0.5, is the accuracy to beat.\n", m.Name(), m.Label, m.Label)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Diff is a method's test accuracy minus none's, mean ± sd over the Seeds seeds both
// have (0 seeds: the difference of the two means, rows not known); Rows are the method's
// rows of those seeds, each with its test accuracy minus none's on the same seed.
type Diff struct {
	Cell
	Seeds int
	Rows  []Row
}

// DiffsFromNone returns, for each summary, its test accuracy minus none's: per seed on the
// seeds both have (Summary.Rows), mean ± sd, or the difference of the means when the rows
// are not there. ok is false when sums has no none.
func DiffsFromNone(sums []Summary) (d []Diff, ok bool) {
	i := slices.IndexFunc(sums, func(s Summary) bool { return s.Method == method.None.String() })
	if i < 0 {
		return nil, false
	}
	none := sums[i]
	bySeed := map[uint64]float64{}
	for _, r := range none.Rows {
		bySeed[r.Seed] = r.TeAcc
	}
	d = make([]Diff, len(sums))
	for i, s := range sums {
		var v []float64
		for _, r := range s.Rows {
			if base, ok := bySeed[r.Seed]; ok {
				r.TeAcc -= base
				d[i].Rows = append(d[i].Rows, r)
				v = append(v, r.TeAcc)
			}
		}
		if len(v) == 0 {
			d[i].Cell = Cell{Mean: s.TeAcc.Mean - none.TeAcc.Mean}
			continue
		}
		d[i].Cell, d[i].Seeds = CellOf(v), len(v)
	}
	return d, true
}

// CellOf is the mean ± sample standard deviation of v (the standard deviation is 0 for one
// value), as the tables report a quantity over seeds.
func CellOf(v []float64) Cell {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	if len(v) > 1 {
		ss /= float64(len(v) - 1)
	}
	return Cell{Mean: m, Std: math.Sqrt(ss)}
}

// Majority is the baseline of always predicting one label, the test split's more common
// one, summarised over seeds: the accuracy a classifier must beat when P(Y = 1) in test is
// far from 1/2 (on a shifted clinical split, 0.715 rather than 0.5).
type Majority struct {
	Label int  // the label always predicted: the test split's majority in every seed
	N     int  // seeds
	TeAcc Cell // its test accuracy, P(Y = Label) in test, mean ± sd over seeds
	TrAcc Cell // its training accuracy, P(Y = Label) in training
}

// Name labels the baseline in tables and figures: "majority (always Y=k)".
func (m Majority) Name() string { return fmt.Sprintf("majority (always Y=%d)", m.Label) }

// MajorityOf computes the baseline from each seed's P(Y = 1) on the training and test
// splits (one entry per seed, in the same order). It fails when the seeds' test splits
// have different majority labels (no one constant prediction is the baseline of them
// all), when the slices differ in length or are empty, or when a value is not a
// probability.
func MajorityOf(trainPY1, testPY1 []float64) (Majority, error) {
	if len(testPY1) == 0 || len(trainPY1) != len(testPY1) {
		return Majority{}, fmt.Errorf("majority baseline: %d training and %d test splits, want the same number, at least one", len(trainPY1), len(testPY1))
	}
	label := -1
	var te, tr []float64
	for i, p := range testPY1 {
		q := trainPY1[i]
		if !(p >= 0 && p <= 1) || !(q >= 0 && q <= 1) {
			return Majority{}, fmt.Errorf("majority baseline: seed %d: P(Y=1) = %v in training, %v in test, want probabilities", i+1, q, p)
		}
		k, pk, qk := 0, 1-p, 1-q // the label, P(Y = k) in test and in training
		if p > 0.5 {
			k, pk, qk = 1, p, q
		}
		if label >= 0 && k != label {
			return Majority{}, fmt.Errorf("majority baseline: the test splits' majority label differs between seeds (P(Y=1) = %v)", testPY1)
		}
		label, te, tr = k, append(te, pk), append(tr, qk)
	}
	return Majority{Label: label, N: len(te), TeAcc: CellOf(te), TrAcc: CellOf(tr)}, nil
}
