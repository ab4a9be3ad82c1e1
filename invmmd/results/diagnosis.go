package results

import (
	"fmt"
	"io"
)

// DiagnosisStep is one training step of a diagnosed fit (experiments.Diagnose, invmmd
// diagnose): the penalty's raw estimate of each Y stratum's MMD² on that batch and what it
// rested on, for a binary Z (two strata).
type DiagnosisStep struct {
	Objective string // the training objective (experiments.Objectives): paper, train-norms, …
	Step      int    // 1-based over the whole fit
	Epoch     int
	NLL       float64    // the batch's mean negative log-likelihood before the step
	MMD2      [2]float64 // the estimate of MMD²_y for y = 0, 1, before any clipping
	// PZ1 is the batch's normaliser rows' estimate of P(Z = 1 | y), y = 0, 1: what the
	// paper's normalisers rest on (with normalisers from the training set, unused).
	PZ1     [2]float64
	Floored int // normalisers raised to the floor on this batch
}

// DiagnosisKept is the epoch a diagnosed fit kept under one objective (its lowest
// validation objective, after the selection's first epochs) and that epoch's validation
// values: the objective, its NLL and the method's estimate of each Y stratum's MMD² (the
// record's summary, experiments.DiagnosisSummary). The step tables hold training values
// only; these are what the figure marks.
type DiagnosisKept struct {
	Objective string
	Epoch     int
	Val       float64    // the validation objective
	ValNLL    float64    // its NLL
	ValStrata [2]float64 // the estimate of MMD²_y for y = 0, 1 on the validation split
}

// DiagnosisCSVHeader is the header of diagnosis CSV files.
const DiagnosisCSVHeader = "objective,step,epoch,nll,mmd2_y0,mmd2_y1,pz1_y0,pz1_y1,floored"

// WriteDiagnosisCSV writes steps under DiagnosisCSVHeader, numbers to 6 significant digits.
func WriteDiagnosisCSV(w io.Writer, steps []DiagnosisStep) error {
	return writeLines(w, DiagnosisCSVHeader, steps, func(s DiagnosisStep) string {
		return fmt.Sprintf("%s,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%d", s.Objective, s.Step, s.Epoch, s.NLL,
			s.MMD2[0], s.MMD2[1], s.PZ1[0], s.PZ1[1], s.Floored)
	})
}

// ReadDiagnosisCSV reads a diagnosis CSV file; errors name the file, line, column and value.
func ReadDiagnosisCSV(path string) ([]DiagnosisStep, error) {
	return readFile(path, DiagnosisCSVHeader, func(f *fieldReader) DiagnosisStep {
		s := DiagnosisStep{Objective: f.rec[0], Step: f.count(1, 1), Epoch: f.count(2, 1), NLL: f.num(3),
			MMD2: [2]float64{f.num(4), f.num(5)}, PZ1: [2]float64{f.num(6), f.num(7)}, Floored: f.count(8, 0)}
		if s.Objective == "" {
			f.bad(0, "an objective's name")
		}
		return s
	})
}
