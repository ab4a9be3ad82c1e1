package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestReadCSVStrayQuote is the regression test of a crash FuzzReadCSV found: a data line
// with a stray quote made the result CSV's reader ask the CSV reader for the line of a
// record it had not returned, which panics. It must be an error naming the file and the line.
func TestReadCSVStrayQuote(t *testing.T) {
	in := strings.Join(csvHeader, ",") + "\nobs,1,0,0,0\n\"obs\"x,2,0,0,0\n"
	_, err := readRows(strings.NewReader(in), "r.csv", strings.Join(csvHeader, ","), parseRow)
	if err == nil || !strings.Contains(err.Error(), "r.csv") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("error %v, want one naming r.csv and line 3", err)
	}
}

// FuzzReadCSV feeds arbitrary bytes to the result CSV's reader (readRows with parseRow). It
// must never panic, and what it accepts must be rows of known methods with finite numbers
// that WriteCSV writes back into a file it reads as the same rows rounded as written
// (AsWritten).
func FuzzReadCSV(f *testing.F) {
	head := strings.Join(csvHeader, ",") + "\n"
	for _, s := range []string{
		head + "none,1,0.210000,0.890000,0.670000\nfull,2,0.000000,0.860000,0.800000\n",
		head + "DRplus,3,1e-3,1,0\n",
		head,
		"",
		"method,seed,mmd,tr_acc,te_acc\n",
		head + "foo,1,0,0,0\n",
		head + "obs,-1,0,0,0\n",
		head + "obs,1,NaN,0,0\n",
		head + "obs,1,0,0\n",
		head + "\"obs\"x,1,0,0,0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readRows(bytes.NewReader(data), "fuzz.csv", strings.Join(csvHeader, ","), parseRow)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range rows {
			if _, err := method.Parse(r.Method); err != nil {
				t.Fatalf("accepted %+v: %v", r, err)
			}
			for _, v := range []float64{r.TrMMD, r.TrAcc, r.TeAcc} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, rows); err != nil {
			t.Fatal(err)
		}
		back, err := readRows(&buf, "rewritten.csv", strings.Join(csvHeader, ","), parseRow)
		if err != nil {
			t.Fatalf("rows read from the input do not read back once written: %v", err)
		}
		want := AsWritten(rows)
		if len(back) != len(want) {
			t.Fatalf("%d rows read back, %d written", len(back), len(want))
		}
		for i := range back {
			if back[i] != want[i] {
				t.Fatalf("row %d read back as %+v, written as %+v", i, back[i], want[i])
			}
		}
	})
}

// FuzzReadVarianceCSV feeds arbitrary bytes to the reader of variance.csv. It must never
// panic, and what it accepts must be points of known estimators with a batch size of at
// least 2, at least one batch, finite numbers, a median between its quartiles, counts ≥ 0
// and a smallest G in [0, 1].
func FuzzReadVarianceCSV(f *testing.F) {
	head := VarianceCSVHeader + "\n"
	for _, s := range []string{
		head + "full,1000,0.250000,0.031235,100,0.24,0.2,0.3,0,0,\ndr+,2000,0.3,0.1,100,0.3,0.2,0.4,1,2,0.05\n",
		head,
		"",
		"estimator,size,mean,std,n\n",
		"estimator,batch_size,mean,std,n\nfull,1000,0.2,0.1,100\n",
		head + "full,x,0.2,0.1,100,0.2,0.1,0.3,0,0,\n",
		head + "full,1000,Inf,0.1,100,0.2,0.1,0.3,0,0,\n",
		head + "foo,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,\n",
		head + "full,1000,0.2,0.1,100,0.2,0.1,0.3,0,0\n",
		head + "full,1000,0.2,0.1,100,0.4,0.1,0.3,0,0,\n",
		head + "full,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,2\n",
		head + "\"full\"x,1000,0.2,0.1,100,0.2,0.1,0.3,0,0,\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := readRows(bytes.NewReader(data), "fuzz.csv", VarianceCSVHeader, parseVariancePoint)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, p := range pts {
			if _, err := method.Parse(p.Estimator); err != nil || p.BatchSize < 2 || p.N < 1 ||
				math.IsNaN(p.Mean) || math.IsInf(p.Mean, 0) || math.IsNaN(p.Std) || math.IsInf(p.Std, 0) || p.Std < 0 ||
				!(p.Q25 <= p.Median && p.Median <= p.Q75) || math.IsInf(p.Q25, 0) || math.IsInf(p.Q75, 0) ||
				p.Empty < 0 || p.Floored < 0 || !(p.MinG >= 0 && p.MinG <= 1) {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}

// FuzzReadDiagnosisCSV feeds arbitrary bytes to ReadDiagnosisCSV (through a file). It must
// never panic, and what it accepts must be steps of named objectives with counts ≥ 1 and
// finite numbers.
func FuzzReadDiagnosisCSV(f *testing.F) {
	head := DiagnosisCSVHeader + "\n"
	for _, s := range []string{
		head + "paper,1,1,0.91,0.16,-0.01,0.14,0.89,0\n",
		head + ",1,1,0,0,0,0,0,0\n",
		head + "paper,0,1,0,0,0,0,0,0\n",
		head + "paper,1,1,Inf,0,0,0,0,0\n",
		head + "paper,1,1,0,0,0,0,0\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "d.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		steps, err := ReadDiagnosisCSV(p)
		if err != nil {
			return
		}
		for _, s := range steps {
			if s.Objective == "" || s.Step < 1 || s.Epoch < 1 || s.Floored < 0 {
				t.Fatalf("accepted %+v", s)
			}
			for _, v := range []float64{s.NLL, s.MMD2[0], s.MMD2[1], s.PZ1[0], s.PZ1[1]} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("accepted a non-finite number: %+v", s)
				}
			}
		}
	})
}
