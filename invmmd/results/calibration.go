package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
)

// CalibrationRow is one test at one sample size and dependence strength of the invariance
// test's calibration study: how often it rejected at level α over its replicates. At
// Delta = 0 (the null hypothesis) that is the test's size, elsewhere its power.
type CalibrationRow struct {
	N          int     // rows tested
	Delta      float64 // dependence strength of h on Z given Y; 0 is the null
	Method     string  // the estimator family of the pseudo-outcome (dr, reg, ip, full, obs)
	Route      string  // cross, wild or permutation
	Replicates int
	Rejections int // replicates with p ≤ α
}

// Test names the row's test as "method/route".
func (r CalibrationRow) Test() string { return r.Method + "/" + r.Route }

// Rate returns the rejection rate.
func (r CalibrationRow) Rate() float64 { return float64(r.Rejections) / float64(r.Replicates) }

// SE returns the binomial standard error of the rejection rate, √(rate(1 − rate)/R).
func (r CalibrationRow) SE() float64 {
	p := r.Rate()
	return math.Sqrt(p * (1 - p) / float64(r.Replicates))
}

// CalibrationP is one null replicate's p-value (for the QQ plot).
type CalibrationP struct {
	N             int
	Method, Route string
	Replicate     int
	P             float64
}

// CSV headers of calibration.csv and calibration_null.csv.
const (
	CalibrationCSVHeader     = "n,delta,method,route,replicates,rejections,rate,se"
	CalibrationNullCSVHeader = "n,method,route,replicate,p_value"
)

// WriteCalibrationCSV writes rows under CalibrationCSVHeader (rate and SE to 4 decimals).
func WriteCalibrationCSV(w io.Writer, rows []CalibrationRow) error {
	return writeLines(w, CalibrationCSVHeader, rows, func(r CalibrationRow) string {
		return fmt.Sprintf("%d,%g,%s,%s,%d,%d,%.4f,%.4f", r.N, r.Delta, r.Method, r.Route, r.Replicates, r.Rejections, r.Rate(), r.SE())
	})
}

// WriteCalibrationNullCSV writes the null p-values under CalibrationNullCSVHeader, each to
// 6 decimals.
func WriteCalibrationNullCSV(w io.Writer, ps []CalibrationP) error {
	return writeLines(w, CalibrationNullCSVHeader, ps, func(p CalibrationP) string {
		return fmt.Sprintf("%d,%s,%s,%d,%.6f", p.N, p.Method, p.Route, p.Replicate, p.P)
	})
}

// ReadCalibrationCSV reads calibration.csv; errors name the file, line and column.
func ReadCalibrationCSV(path string) ([]CalibrationRow, error) {
	return readFile(path, CalibrationCSVHeader, func(f *fieldReader) CalibrationRow {
		r := CalibrationRow{N: f.count(0, 0), Delta: f.num(1), Method: f.rec[2], Route: f.rec[3], Replicates: f.count(4, 1), Rejections: f.count(5, 0)}
		if r.Delta < 0 {
			f.bad(1, "a number ≥ 0")
		}
		if r.Rejections > r.Replicates {
			f.bad(5, fmt.Sprintf("at most the %d replicates", r.Replicates))
		}
		return r
	})
}

// ReadCalibrationNullCSV reads calibration_null.csv; errors name the file, line and column.
func ReadCalibrationNullCSV(path string) ([]CalibrationP, error) {
	return readFile(path, CalibrationNullCSVHeader, func(f *fieldReader) CalibrationP {
		p := CalibrationP{N: f.count(0, 0), Method: f.rec[1], Route: f.rec[2], Replicate: f.count(3, 0), P: f.num(4)}
		if !(p.P >= 0 && p.P <= 1) {
			f.bad(4, "a probability")
		}
		return p
	})
}

// readRows reads a CSV table from r whose first line must be header, then each record by
// parse, which reads its fields through a fieldReader; an error names the file (name), line,
// column and value of the first bad field, or a header that retiredHeaders explains.
func readRows[T any](r io.Reader, name, header string, parse func(*fieldReader) T) ([]T, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // checked below, naming the line and the header
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", name, err)
	}
	if h := strings.Join(head, ","); h != header {
		if why, ok := retiredHeaders[h]; ok {
			return nil, fmt.Errorf("%s: line 1: header %q is %s", name, h, why)
		}
		return nil, fmt.Errorf("%s: line 1: header %q, want %q", name, h, header)
	}
	f := &fieldReader{path: name, cols: head}
	var out []T
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			// Only now ask for the line: after a parse error the record has no fields,
			// and FieldPos would panic.
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		f.line, _ = cr.FieldPos(0)
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s: line %d: %d fields, want %d (%s)", name, f.line, len(rec), len(head), header)
		}
		f.rec = rec
		v := parse(f)
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, v)
	}
}

// readFile is readRows on the file at path.
func readFile[T any](path, header string, parse func(*fieldReader) T) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRows(f, path, header, parse)
}

// retiredHeaders are the headers of tables an earlier version wrote, with what they are:
// reading one says so rather than only that the header is not the current one.
var retiredHeaders = map[string]string{
	"estimator,batch_size,mean,std,n": "that of a table written before the median, quartiles and floor counts were recorded: rerun invmmd variance",
}

// fieldReader reads the fields of one record of readRows, keeping the first bad one's error.
type fieldReader struct {
	path      string
	line      int
	cols, rec []string
	err       error
}

// bad records that column col does not hold what it should (want), unless a field before
// it was bad.
func (f *fieldReader) bad(col int, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("%s: line %d, column %s: %q, want %s", f.path, f.line, f.cols[col], f.rec[col], want)
	}
}

// count reads column col as an integer ≥ least.
func (f *fieldReader) count(col, least int) int {
	v, err := strconv.Atoi(f.rec[col])
	if err != nil || v < least {
		f.bad(col, fmt.Sprintf("an integer ≥ %d", least))
	}
	return v
}

// method reads column col as a method's name as a result file may spell it
// (case-insensitive, surrounding spaces ignored, "plus" for "+", as method.Parse reads it).
func (f *fieldReader) method(col int) string {
	if _, err := method.Parse(f.rec[col]); err != nil {
		f.bad(col, "a method: "+err.Error())
	}
	return f.rec[col]
}

// num reads column col as a finite number.
func (f *fieldReader) num(col int) float64 {
	v, err := strconv.ParseFloat(f.rec[col], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		f.bad(col, "a finite number")
	}
	return v
}
