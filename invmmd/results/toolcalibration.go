package results

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ToolCalibrationRow is one cell of the calibration of invmmd test as the command runs it
// (G and m fitted by its MLPs): a nuisance kind, sample size, way of fitting G and m,
// dependence strength δ (0: the null) and method, with how many replicates rejected at the
// study's level and how many the command marked unreliable.
type ToolCalibrationRow struct {
	Kind       string // binary, categorical, continuous
	N          int
	Fitting    string // crossfit5, crossfit2, split
	Delta      float64
	Method     string
	Replicates int
	Rejections int
	// Marked counts the replicates whose p-value the command marked unreliable for a
	// reason of the data (a stratum too small, Ĝ floored on many rows), not the method's
	// standing caveat; Failed those that gave no p-value.
	Marked, Failed int
}

// Rate returns the rejection rate over the replicates that gave a p-value.
func (r ToolCalibrationRow) Rate() float64 {
	return float64(r.Rejections) / float64(max(1, r.Replicates-r.Failed))
}

// SE returns the binomial standard error of Rate.
func (r ToolCalibrationRow) SE() float64 {
	p, n := r.Rate(), float64(max(1, r.Replicates-r.Failed))
	return math.Sqrt(p * (1 - p) / n)
}

var toolCalibrationHeader = []string{"kind", "n", "fitting", "delta", "method", "replicates", "rejections", "rate", "se", "marked", "failed"}

// WriteToolCalibrationCSV writes the rows with a header line.
func WriteToolCalibrationCSV(w io.Writer, rows []ToolCalibrationRow) error {
	return WriteRecords(w, toolCalibrationHeader, rows, func(r ToolCalibrationRow) []string {
		return []string{r.Kind, strconv.Itoa(r.N), r.Fitting, strconv.FormatFloat(r.Delta, 'g', -1, 64), r.Method, strconv.Itoa(r.Replicates),
			strconv.Itoa(r.Rejections), fmt.Sprintf("%.4f", r.Rate()), fmt.Sprintf("%.4f", r.SE()), strconv.Itoa(r.Marked), strconv.Itoa(r.Failed)}
	})
}

// ReadToolCalibrationCSV reads what WriteToolCalibrationCSV wrote, naming the line and
// column of a malformed cell.
func ReadToolCalibrationCSV(path string) ([]ToolCalibrationRow, error) {
	return readFile(path, strings.Join(toolCalibrationHeader, ","), func(f *fieldReader) ToolCalibrationRow {
		return ToolCalibrationRow{Kind: f.rec[0], N: f.count(1, 0), Fitting: f.rec[2], Delta: f.num(3), Method: f.rec[4],
			Replicates: f.count(5, 0), Rejections: f.count(6, 0), Marked: f.count(9, 0), Failed: f.count(10, 0)}
	})
}

// SECalibrationRow is the calibration of one estimator's standard error in invmmd
// estimate as the command runs it: over Replicates independent tables of a nuisance kind,
// size and dependence strength, the mean and standard deviation of the estimates and the
// root mean square of their standard errors, whose ratio to the standard deviation is 1
// for a calibrated standard error (E[SE²] = Var).
type SECalibrationRow struct {
	Kind       string
	N          int
	Delta      float64
	Method     string
	Replicates int
	Mean, SD   float64
	RMSSE      float64
}

// Ratio returns RMSSE / SD.
func (r SECalibrationRow) Ratio() float64 { return r.RMSSE / r.SD }

// RatioSE returns the Monte Carlo standard error of Ratio from the spread of the estimates
// alone: a standard deviation over R replicates has relative error 1/√(2(R−1)) for normal
// estimates (the RMS of R standard errors varies far less). A ratio is told from a band's
// edge only beyond about two of these.
func (r SECalibrationRow) RatioSE() float64 {
	return r.Ratio() / math.Sqrt(2*float64(max(1, r.Replicates-1)))
}

var seCalibrationHeader = []string{"kind", "n", "delta", "method", "replicates", "mean", "sd", "rms_se", "ratio"}

// WriteSECalibrationCSV writes the rows with a header line.
func WriteSECalibrationCSV(w io.Writer, rows []SECalibrationRow) error {
	return WriteRecords(w, seCalibrationHeader, rows, func(r SECalibrationRow) []string {
		return []string{r.Kind, strconv.Itoa(r.N), strconv.FormatFloat(r.Delta, 'g', -1, 64), r.Method, strconv.Itoa(r.Replicates),
			fmt.Sprintf("%.6f", r.Mean), fmt.Sprintf("%.6f", r.SD), fmt.Sprintf("%.6f", r.RMSSE), fmt.Sprintf("%.3f", r.Ratio())}
	})
}

// ReadSECalibrationCSV reads what WriteSECalibrationCSV wrote.
func ReadSECalibrationCSV(path string) ([]SECalibrationRow, error) {
	return readFile(path, strings.Join(seCalibrationHeader, ","), func(f *fieldReader) SECalibrationRow {
		return SECalibrationRow{Kind: f.rec[0], N: f.count(1, 0), Delta: f.num(2), Method: f.rec[3], Replicates: f.count(4, 0),
			Mean: f.num(5), SD: f.num(6), RMSSE: f.num(7)}
	})
}
