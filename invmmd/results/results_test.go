package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// paperSim is two methods of the paper's simulation table at λ = 1.
var paperSim = map[string]PaperRow{
	"none": {Cell{0.21, 0.04}, Cell{0.89, 0.00}, Cell{0.67, 0.02}},
	"full": {Cell{0.00, 0.01}, Cell{0.86, 0.01}, Cell{0.80, 0.01}},
}

// TestLambdaName: λ in file names (the tables', and the store's per-fit files', which use
// LambdaName too) in its shortest decimal form, never an exponent.
func TestLambdaName(t *testing.T) {
	for l, want := range map[float64]string{0: "0", 1: "1", 5: "5", 0.5: "0.5", 0.125: "0.125", 10: "10", 1e-7: "0.0000001"} {
		if got := LambdaName(l); got != want {
			t.Errorf("LambdaName(%v) = %q, want %q", l, got, want)
		}
	}
	if got, want := TablePath("d", "sim", 0.5), filepath.Join("d", "sim_lambda0.5.csv"); got != want {
		t.Errorf("TablePath = %q, want %q", got, want)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rows := []Row{{"none", 1, 0.21, 0.89, 0.67}, {"dr+", 2, -0.001, 0.84, 0.812345}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "method,seed,tr_mmd,tr_acc,te_acc\n") {
		t.Fatalf("header: %q", buf.String())
	}
	got, err := readRows(&buf, "x.csv", strings.Join(csvHeader, ","), parseRow)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != rows[1] {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestMalformedCSV(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"bad header", "method,seed,mmd,tr_acc,te_acc\n", "line 1: header"},
		{"unknown method", "method,seed,tr_mmd,tr_acc,te_acc\nfoo,1,0,0,0\n", "line 2, column method"},
		{"bad seed", "method,seed,tr_mmd,tr_acc,te_acc\nobs,x,0,0,0\n", "line 2, column seed"},
		{"NaN value", "method,seed,tr_mmd,tr_acc,te_acc\nobs,1,NaN,0,0\n", "line 2, column tr_mmd"},
		{"short row", "method,seed,tr_mmd,tr_acc,te_acc\nobs,1,0,0\n", "line 2: 4 fields, want 5 (method,seed,tr_mmd,tr_acc,te_acc)"},
		{"empty", "", "reading the header: EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRows(strings.NewReader(tc.in), "r.csv", strings.Join(csvHeader, ","), parseRow)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "r.csv") {
				t.Fatalf("error %v, want one naming r.csv and %q", err, tc.want)
			}
		})
	}
}

func TestSummarizeAndMarkdown(t *testing.T) {
	rows := []Row{{"full", 1, 0, 0.8, 0.7}, {"full", 2, 0.02, 0.9, 0.9}, {"none", 1, 0.2, 0.9, 0.6}}
	sums := Summarize(rows)
	if len(sums) != 2 || sums[0].Method != "none" || sums[1].N != 2 {
		t.Fatalf("summaries %+v: want none then full (table order)", sums)
	}
	if c := sums[1].TeAcc; c.Mean != 0.8 || c.Std < 0.1414 || c.Std > 0.1415 {
		t.Errorf("full te acc %+v, want 0.8 ± 0.1414", c)
	}
	// Each summary keeps its method's rows, in the input order, for the per-seed points.
	if r := sums[1].Rows; len(r) != 2 || r[0] != rows[0] || r[1] != rows[1] || len(sums[0].Rows) != 1 || sums[0].Rows[0] != rows[2] {
		t.Errorf("rows kept: none %+v, full %+v", sums[0].Rows, sums[1].Rows)
	}
	var b strings.Builder
	if err := WriteMarkdownWith(&b, "Sim", sums, paperSim, DefaultMMDNote, TableExtras{}); err != nil {
		t.Fatal(err)
	}
	// none has one seed: its value alone, no "± 0.000".
	for _, want := range []string{"| te acc (ours) | 0.600 | 0.800 ± 0.141 |", "| te acc (paper) | 0.670 ± 0.020 | 0.800 ± 0.010 |", "over 2 seeds"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteMarkdownWith(&b, "Sim", Summarize(rows[2:]), nil, DefaultMMDNote, TableExtras{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "±") || !strings.Contains(s, "One seed") {
		t.Errorf("a one-seed table shows a spread or does not say it has one seed:\n%s", s)
	}
}

func TestVarianceCSV(t *testing.T) {
	var buf bytes.Buffer
	pts := []VariancePoint{
		{Estimator: "full", BatchSize: 1000, Mean: 0.25, Std: 0.0312345678, N: 100, Empty: 3, Median: 0.24, Q25: 0.2, Q75: 0.3},
		{Estimator: "dr", BatchSize: 1000, Mean: 3.3, Std: 10.4, N: 100, Floored: 9, Median: 0.31, Q25: 0.12, Q75: 0.55, MinG: 0.0412345678},
	}
	if err := WriteVarianceCSV(&buf, pts); err != nil {
		t.Fatal(err)
	}
	want := VarianceCSVHeader + "\nfull,1000,0.250000,0.031235,100,0.240000,0.200000,0.300000,3,0,\n" +
		"dr,1000,3.300000,10.400000,100,0.310000,0.120000,0.550000,0,9,0.041235\n"
	if buf.String() != want {
		t.Errorf("WriteVarianceCSV wrote %q, want %q", buf.String(), want)
	}
	// The old five columns stay first, in their order.
	if !strings.HasPrefix(VarianceCSVHeader, "estimator,batch_size,mean,std,n,") {
		t.Errorf("header %q does not start with the old columns", VarianceCSVHeader)
	}
	written := VarianceAsWritten(pts)
	if got := written[0]; got.Std != 0.031235 || pts[0].Std != 0.0312345678 || written[1].MinG != 0.041235 || got.MinG != 0 {
		t.Errorf("VarianceAsWritten: %+v (input now %+v), want Std 0.031235, MinG 0.041235 and 0, and the input unchanged", written, pts[0])
	}
	// The round trip: what is read back is what VarianceAsWritten gives.
	dir := t.TempDir()
	rt := filepath.Join(dir, "rt.csv")
	if err := os.WriteFile(rt, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadVarianceCSV(rt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, written) {
		t.Errorf("read back %+v, want %+v", back, written)
	}
	for _, tc := range []struct{ body, want string }{
		{"estimator,size,mean,std,n\n", "line 1: header"},
		{"estimator,batch_size,mean,std,n\nfull,1000,0.25,0.03,100\n", "before the median"},
		{VarianceCSVHeader + "\nfull,x,0.2,0.1,100,0.2,0.1,0.3,0,0,\n", "line 2, column batch_size"},
		{VarianceCSVHeader + "\nfull,1000,Inf,0.1,100,0.2,0.1,0.3,0,0,\n", "line 2, column mean"},
		{VarianceCSVHeader + "\nfoo,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,\n", "line 2, column estimator"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.2,0.1,0.3,0,0\n", "line 2: 10 fields, want 11"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.5,0.1,0.3,0,0,\n", "line 2, column median"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.2,0.1,0.3,-1,0,\n", "line 2, column empty"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.2,0.1,0.3,0,x,\n", "line 2, column floored"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,1.5\n", "line 2, column min_g"},
		{VarianceCSVHeader + "\nfull,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,0.1\nfull,2000,0.2,-0.1,100,0.2,0.1,0.3,0,0,\n", "line 3, column std"},
	} {
		p := filepath.Join(dir, "bad.csv")
		os.WriteFile(p, []byte(tc.body), 0o644)
		if _, err := ReadVarianceCSV(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

// TestDiagnosisCSVRoundTrip writes diagnosis rows and reads them back, and checks that a
// bad value is named by line, column and value.
func TestDiagnosisCSVRoundTrip(t *testing.T) {
	rows := []DiagnosisStep{{Objective: "paper", Step: 1, Epoch: 1, NLL: 0.91, MMD2: [2]float64{0.161049, -0.0128}, PZ1: [2]float64{0.1389, 0.8926}, Floored: 2}}
	var b strings.Builder
	if err := WriteDiagnosisCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDiagnosisCSV(p)
	if err != nil || len(got) != 1 || got[0] != rows[0] {
		t.Fatalf("read back %+v, %v; wrote %+v", got, err, rows[0])
	}
	bad := strings.Replace(b.String(), "-0.0128", "NaN", 1)
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDiagnosisCSV(p); err == nil || !strings.Contains(err.Error(), "line 2, column mmd2_y1: \"NaN\"") {
		t.Errorf("a NaN estimate: %v", err)
	}
}

// TestQuartiles checks Quantile and Quartiles on small samples whose quartiles are known
// by hand (linear interpolation between order statistics, as R's and NumPy's default).
func TestQuartiles(t *testing.T) {
	for _, tc := range []struct {
		name          string
		values        []float64
		q25, med, q75 float64
	}{
		{"one value", []float64{2}, 2, 2, 2},
		{"two values", []float64{1, 3}, 1.5, 2, 2.5},
		{"odd count, unsorted", []float64{5, 1, 4, 2, 3}, 2, 3, 4},
		{"even count", []float64{1, 2, 3, 4}, 1.75, 2.5, 3.25},
		{"an outlier moves the mean, not the quartiles", []float64{0.3, 0.1, 0.2, 0.4, 100}, 0.2, 0.3, 0.4},
		{"ties and negatives", []float64{-1, -1, 0, 2, 2, 2}, -0.75, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.values)
			q25, med, q75 := Quartiles(in)
			if math.Abs(q25-tc.q25) > 1e-12 || math.Abs(med-tc.med) > 1e-12 || math.Abs(q75-tc.q75) > 1e-12 {
				t.Errorf("Quartiles(%v) = %g, %g, %g, want %g, %g, %g", tc.values, q25, med, q75, tc.q25, tc.med, tc.q75)
			}
			if !slices.Equal(in, tc.values) {
				t.Errorf("Quartiles changed its input to %v", in)
			}
		})
	}
	for _, tc := range []struct {
		sorted []float64
		q      float64
		want   float64
	}{
		{[]float64{0, 10}, 0, 0},
		{[]float64{0, 10}, 1, 10},
		{[]float64{0, 10}, 0.1, 1},
		{[]float64{0, 10, 20}, 0.9, 18},
	} {
		if got := Quantile(tc.sorted, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %g) = %g, want %g", tc.sorted, tc.q, got, tc.want)
		}
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		if got := Quantile([]float64{1, 2}, q); !math.IsNaN(got) {
			t.Errorf("Quantile(q = %g) = %g, want NaN", q, got)
		}
	}
	if a, b, c := Quartiles(nil); !math.IsNaN(a) || !math.IsNaN(b) || !math.IsNaN(c) {
		t.Errorf("Quartiles(nil) = %g, %g, %g, want NaN", a, b, c)
	}
}

// TestSignTestP checks the sign test's one-sided p-value against binomial tails worked
// out by hand (and, for 37 flips, by exact integer sums).
func TestSignTestP(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		want float64
	}{
		{0, 5, 1},
		{-1, 5, 1},
		{6, 5, 0},
		{1, 1, 0.5},
		{4, 4, 1.0 / 16},
		{3, 4, 5.0 / 16},
		{2, 4, 11.0 / 16},
		{21, 37, 0.2556878907926148},
		{24, 37, 0.04943587479647249},
	} {
		if got := SignTestP(tc.k, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SignTestP(%d, %d) = %.15g, want %.15g", tc.k, tc.n, got, tc.want)
		}
	}
}

// TestMajorityOf: the baseline is P(Y = k) of the test split's more common label k, mean ±
// sd over seeds, with its training accuracy; seeds whose test splits disagree on the label,
// and malformed input, are errors.
func TestMajorityOf(t *testing.T) {
	for _, c := range []struct {
		name        string
		train, test []float64
		want        Majority
		err         string
	}{
		{"label 0", []float64{0.285, 0.285}, []float64{0.285, 0.285}, Majority{Label: 0, N: 2, TeAcc: Cell{0.715, 0}, TrAcc: Cell{0.715, 0}}, ""},
		{"label 1", []float64{0.6}, []float64{0.7}, Majority{Label: 1, N: 1, TeAcc: Cell{0.7, 0}, TrAcc: Cell{0.6, 0}}, ""},
		{"spread", []float64{0.3, 0.2}, []float64{0.2, 0.4}, Majority{Label: 0, N: 2, TeAcc: Cell{0.7, 0.14142135623730948}, TrAcc: Cell{0.75, 0.07071067811865474}}, ""},
		{"labels differ", []float64{0.5, 0.5}, []float64{0.4, 0.6}, Majority{}, "differs between seeds"},
		{"lengths", []float64{0.5}, []float64{0.4, 0.6}, Majority{}, "want the same number"},
		{"empty", nil, nil, Majority{}, "at least one"},
		{"not a probability", []float64{1.5}, []float64{0.4}, Majority{}, "want probabilities"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := MajorityOf(c.train, c.test)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			close := func(a, b Cell) bool { return math.Abs(a.Mean-b.Mean) < 1e-12 && math.Abs(a.Std-b.Std) < 1e-12 }
			if m.Label != c.want.Label || m.N != c.want.N || !close(m.TeAcc, c.want.TeAcc) || !close(m.TrAcc, c.want.TrAcc) {
				t.Fatalf("MajorityOf = %+v, want %+v", m, c.want)
			}
			if want := fmt.Sprintf("majority (always Y=%d)", c.want.Label); m.Name() != want {
				t.Errorf("Name() = %q, want %q", m.Name(), want)
			}
		})
	}
}

// TestDiffsFromNone: per seed, paired on the seed (a seed none lacks is left out), mean ±
// sd; the difference of means when the rows are not known; not ok without none.
func TestDiffsFromNone(t *testing.T) {
	rows := []Row{
		{"none", 1, 0, 0, 0.70}, {"none", 2, 0, 0, 0.74},
		{"full", 1, 0, 0, 0.75}, {"full", 2, 0, 0, 0.77}, {"full", 3, 0, 0, 0.10},
	}
	sums := Summarize(rows)
	d, ok := DiffsFromNone(sums)
	if !ok || len(d) != 2 {
		t.Fatalf("DiffsFromNone: %v, %v", d, ok)
	}
	// full − none: seed 1 +0.05, seed 2 +0.03 (seed 3 has no none): mean 0.04, sd √0.0002.
	if d[0].Mean != 0 || d[0].Seeds != 2 || math.Abs(d[1].Mean-0.04) > 1e-12 || math.Abs(d[1].Std-math.Sqrt(0.0002)) > 1e-12 || d[1].Seeds != 2 {
		t.Errorf("differences %+v, want none 0 and full 0.040 ± 0.014 over 2 seeds", d)
	}
	byHand := []Summary{{Method: "none", N: 3, TeAcc: Cell{0.64, 0}}, {Method: "reg", N: 3, TeAcc: Cell{0.66, 0.01}}}
	if d, ok := DiffsFromNone(byHand); !ok || math.Abs(d[1].Mean-0.02) > 1e-12 || d[1].Seeds != 0 {
		t.Errorf("summaries without rows: %+v, %v; want the difference of the means, 0 seeds", d, ok)
	}
	if _, ok := DiffsFromNone(sums[1:]); ok {
		t.Error("no none: want ok false")
	}
}

// TestWriteMarkdownWith: without extras the table is the plain table's, to the byte; with
// a paper on another dataset its levels give way to differences from none, ours per seed;
// the majority baseline is a row under every method, explained below the table.
func TestWriteMarkdownWith(t *testing.T) {
	rows := []Row{
		{"none", 1, 0.09, 0.86, 0.737}, {"none", 2, 0.08, 0.85, 0.741},
		{"full", 1, 0.003, 0.83, 0.776}, {"full", 2, 0.002, 0.83, 0.790},
	}
	sums := Summarize(rows)
	var plain, zero bytes.Buffer
	if err := WriteMarkdownWith(&plain, "T", sums, paperSim, DefaultMMDNote, TableExtras{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownWith(&zero, "T", sums, paperSim, DefaultMMDNote, TableExtras{}); err != nil {
		t.Fatal(err)
	}
	if plain.String() != zero.String() {
		t.Fatalf("zero extras change the table:\n%s\nvs\n%s", zero.String(), plain.String())
	}
	maj := &Majority{Label: 0, N: 2, TeAcc: Cell{0.715, 0}, TrAcc: Cell{0.715, 0}}
	for _, c := range []struct {
		name        string
		ex          TableExtras
		want, avoid []string
	}{
		{"other dataset and majority", TableExtras{Majority: maj, PaperDataset: "MIMIC-III"},
			[]string{
				"| te acc (ours) | 0.739 ± 0.003 | 0.783 ± 0.010 | \n",
				"| te acc − none (ours) | 0 | +0.044 ± 0.007 | \n",
				"| te acc − none (paper, MIMIC-III) | 0 | +0.13 | \n",
				"| te acc, majority (always Y=0) | 0.715 | 0.715 | \n",
				"The paper's numbers are on MIMIC-III",
				"majority (always Y=0): always predicting Y = 0",
			},
			[]string{"(paper) |"}},
		{"majority only", TableExtras{Majority: maj},
			[]string{"| te acc (paper) | 0.670 ± 0.020 | 0.800 ± 0.010 | \n", "| te acc, majority (always Y=0) | 0.715 | 0.715 | \n"},
			[]string{"− none"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMarkdownWith(&b, "T", sums, paperSim, DefaultMMDNote, c.ex); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range c.avoid {
				if strings.Contains(b.String(), w) {
					t.Errorf("table shows %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestReadersNameBadTables: every table reader names the file, and the line of a missing or
// wrong header or of a record with a wrong number of fields (one reader, readRows, serves
// them all).
func TestReadersNameBadTables(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		header string
		read   func(string) error
	}{
		{strings.Join(csvHeader, ","), func(p string) error { _, err := ReadCSVFile(p); return err }},
		{VarianceCSVHeader, func(p string) error { _, err := ReadVarianceCSV(p); return err }},
		{CalibrationCSVHeader, func(p string) error { _, err := ReadCalibrationCSV(p); return err }},
		{CalibrationNullCSVHeader, func(p string) error { _, err := ReadCalibrationNullCSV(p); return err }},
		{DiagnosisCSVHeader, func(p string) error { _, err := ReadDiagnosisCSV(p); return err }},
		{strings.Join(toolCalibrationHeader, ","), func(p string) error { _, err := ReadToolCalibrationCSV(p); return err }},
		{strings.Join(seCalibrationHeader, ","), func(p string) error { _, err := ReadSECalibrationCSV(p); return err }},
	} {
		n := len(strings.Split(r.header, ","))
		for _, tc := range []struct{ body, want string }{
			{"", "bad.csv: reading the header: EOF"},
			{"x,y\n", fmt.Sprintf("bad.csv: line 1: header \"x,y\", want %q", r.header)},
			{r.header + "\n1\n", fmt.Sprintf("bad.csv: line 2: 1 fields, want %d (%s)", n, r.header)},
		} {
			p := filepath.Join(dir, "bad.csv")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := r.read(p); err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("%s: %q: error %v, want one ending %q", r.header, tc.body, err, tc.want)
			}
		}
	}
}
