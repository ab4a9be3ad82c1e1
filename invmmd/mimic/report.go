package mimic

import (
	"fmt"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/clinical"
)

// Stay is one ICU stay of the cohort: the identifiers and the raw values behind its
// label, nuisance and demographic features.
type Stay struct {
	SubjectID, HadmID, ICUStayID int
	InTime, OutTime              time.Time
	LOSDays                      float64 // (OUTTIME − INTIME) in days
	Age                          float64 // years at INTIME, capped
	Male                         bool
	Ethnicity                    string
	AdmissionType                string
	FirstCareUnit                string
	Insurance                    string
}

// Cohort is the extracted cohort before splitting: one Stay and one Table row per ICU
// stay, ordered by ICUSTAY_ID.
type Cohort struct {
	Stays []Stay
	Table *clinical.Table // raw features (NaN where a variable was not measured), Y, Z, Group (male)
}

// Exclusion counts the ICU stays left out for one reason.
type Exclusion struct {
	Reason string
	Count  int
}

// VariableReport says how well a variable is covered in the cohort.
type VariableReport struct {
	Name       string
	Source     string
	Values     int     // values aggregated (in window, in range)
	OutOfRange int     // in-window values dropped as implausible
	Stays      int     // cohort stays with at least one value
	Coverage   float64 // Stays / cohort size
}

// Report records how the cohort and its splits were built; it goes into result files.
type Report struct {
	Config           Config // with defaults filled in
	Files            []FileReport
	ICUStays         int // well-formed ICUSTAYS rows
	Exclusions       []Exclusion
	Cohort           int
	PLong            float64 // P(Y = 1) in the cohort
	PWhite           float64 // P(Z = 1) in the cohort
	PMale            float64
	UnknownEthnicity int // cohort stays with an unknown ethnicity (Z = 0)
	ChartNoStay      int // CHARTEVENTS rows of a used ITEMID with an empty ICUSTAY_ID
	ChartErrors      int // CHARTEVENTS rows of a used ITEMID with ERROR = 1
	NoValue          int // event rows of a used ITEMID in a cohort window with an empty VALUENUM
	// LabOtherAdmission counts LABEVENTS rows of a used ITEMID in a stay's window left out
	// because their HADM_ID is empty or another admission's (none with LabsBySubject).
	LabOtherAdmission int
	Variables         []VariableReport
	Split             clinical.SplitReport // filled by Build
}

// String renders the report: files, cohort funnel, coverage, then the split.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MIMIC-III cohort from %s\n", r.Config.Dir)
	for _, f := range r.Files {
		fmt.Fprintf(&b, "  %-12s %s, %d rows, %d malformed, %s\n", f.Table, humanBytes(f.Bytes), f.Rows, f.Malformed, f.Elapsed.Round(time.Millisecond))
		for _, is := range f.Issues {
			fmt.Fprintf(&b, "      %s\n", is)
		}
	}
	fmt.Fprintf(&b, "  ICU stays %d", r.ICUStays)
	for _, e := range r.Exclusions {
		fmt.Fprintf(&b, ", −%d %s", e.Count, e.Reason)
	}
	fmt.Fprintf(&b, " → cohort %d (P(LOS > %g d) = %.3f, P(white) = %.3f, P(male) = %.3f, unknown ethnicity %d)\n",
		r.Cohort, r.Config.LongStayDays, r.PLong, r.PWhite, r.PMale, r.UnknownEthnicity)
	fmt.Fprintf(&b, "  chart rows skipped: %d without ICUSTAY_ID, %d flagged ERROR; lab rows in a window skipped: %d of no or another admission; %d in-window rows without VALUENUM\n",
		r.ChartNoStay, r.ChartErrors, r.LabOtherAdmission, r.NoValue)
	b.WriteString("  coverage:")
	for _, v := range r.Variables {
		fmt.Fprintf(&b, " %s %.2f", v.Name, v.Coverage)
	}
	b.WriteString("\n")
	if r.Split.Source != "" {
		b.WriteString(r.Split.String())
	}
	return b.String()
}
