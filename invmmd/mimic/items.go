package mimic

import (
	"math"
	"slices"
	"strings"
)

// Source is the events table a variable is read from.
type Source int

const (
	// Chart variables come from CHARTEVENTS, joined on ICUSTAY_ID.
	Chart Source = iota
	// Lab variables come from LABEVENTS, joined on SUBJECT_ID and HADM_ID (the stay's
	// admission) and the time window, as MIT-LCP mimic-code's labs_first_day.sql does;
	// Config.LabsBySubject drops the HADM_ID condition.
	Lab
)

// String names the source table.
func (s Source) String() string {
	if s == Lab {
		return "LABEVENTS"
	}
	return "CHARTEVENTS"
}

// Window is the time window, relative to the stay's INTIME, that a variable's rows must
// fall in. Each is the one of the mimic-code query the variable follows.
type Window int

const (
	// VitalsWindow is (INTIME, INTIME + FirstDayHours]: vitals_first_day.sql takes chart
	// rows strictly after INTIME and up to a day after it.
	VitalsWindow Window = iota
	// GCSWindow is [INTIME, INTIME + FirstDayHours]: gcs_first_day.sql includes INTIME.
	GCSWindow
	// LabWindow is [INTIME − LabLeadHours, INTIME + FirstDayHours] (labs_first_day.sql:
	// six hours before INTIME, so that the draws that led to the ICU admission count).
	LabWindow
)

// contains reports whether an event at sec (Unix seconds) falls in the window of a stay
// that starts at in, with lead and span in seconds.
func (w Window) contains(sec, in, lead, span int64) bool {
	switch w {
	case VitalsWindow:
		return sec > in && sec <= in+span
	case GCSWindow:
		return sec >= in && sec <= in+span
	}
	return sec >= in-lead && sec <= in+span
}

// Item is one ITEMID that measures a variable, with its plausible range in the unit the
// item records: a value v is kept when Min < v < Max, or v = Max with MaxIncluded, as in
// the mimic-code query the variable follows; values outside are dropped and counted.
type Item struct {
	ID          int
	Min, Max    float64
	MaxIncluded bool // the upper bound itself is a valid value (labs_first_day.sql: "> bound → null")
	Fahrenheit  bool // recorded in °F: range-checked in °F, then converted to °C
}

// valid reports whether v is inside the item's range.
func (it Item) valid(v float64) bool {
	return v > it.Min && (v < it.Max || (it.MaxIncluded && v == it.Max))
}

// Variable is one first-day lab or vital sign. Every variable gives four features over its
// window: <name>_min, <name>_max, <name>_mean and <name>_missing (1 when the stay has no
// usable value; the three aggregates are then imputed with the training median).
type Variable struct {
	Name   string
	Source Source
	Window Window
	Unit   string
	Items  []Item
	// Ref is the MIT-LCP mimic-code file (mimic-iii/concepts/firstday/) whose ITEMIDs,
	// bounds and window the variable follows.
	Ref string
}

// items gives ITEMIDs a shared range; open makes the upper bound exclusive (the
// vitals_first_day.sql form "valuenum < bound"), otherwise it is included (the
// labs_first_day.sql form "valuenum > bound → null"). Every lower bound is exclusive.
func items(min, max float64, open bool, ids ...int) []Item {
	out := make([]Item, len(ids))
	for i, id := range ids {
		out[i] = Item{ID: id, Min: min, Max: max, MaxIncluded: !open}
	}
	return out
}

// Files of MIT-LCP mimic-code (mimic-iii/concepts/firstday/) the variables follow.
const (
	refVitals = "vitals_first_day.sql"
	refGCS    = "gcs_first_day.sql"
	refLabs   = "labs_first_day.sql"
)

// variables are the first-day labs and vitals: ITEMIDs and ranges as data, taken from the
// mimic-code files named in Ref (CareVue and MetaVision ITEMIDs of the same measurement
// fused, as there).
var variables = []Variable{
	{"heart_rate", Chart, VitalsWindow, "bpm", items(0, 300, true, 211, 220045), refVitals},
	{"sys_bp", Chart, VitalsWindow, "mmHg", items(0, 400, true, 51, 442, 455, 6701, 220179, 220050), refVitals},
	{"dia_bp", Chart, VitalsWindow, "mmHg", items(0, 300, true, 8368, 8440, 8441, 8555, 220180, 220051), refVitals},
	{"mean_bp", Chart, VitalsWindow, "mmHg", items(0, 300, true, 456, 52, 6702, 443, 220052, 220181, 225312), refVitals},
	{"resp_rate", Chart, VitalsWindow, "/min", items(0, 70, true, 615, 618, 220210, 224690), refVitals},
	{"temp_c", Chart, VitalsWindow, "°C", append(items(10, 50, true, 223762, 676),
		Item{ID: 223761, Min: 70, Max: 120, Fahrenheit: true}, Item{ID: 678, Min: 70, Max: 120, Fahrenheit: true}), refVitals},
	{"spo2", Chart, VitalsWindow, "%", items(0, 100, false, 646, 220277), refVitals},
	{"glucose_chart", Chart, VitalsWindow, "mg/dL", items(0, math.Inf(1), true, 807, 811, 1529, 3745, 3744, 225664, 220621, 226537), refVitals},

	{"albumin", Lab, LabWindow, "g/dL", items(0, 10, false, 50862), refLabs},
	{"anion_gap", Lab, LabWindow, "mEq/L", items(0, 10000, false, 50868), refLabs},
	{"bands", Lab, LabWindow, "%", items(0, 100, false, 51144), refLabs},
	{"bicarbonate", Lab, LabWindow, "mEq/L", items(0, 10000, false, 50882), refLabs},
	{"bilirubin", Lab, LabWindow, "mg/dL", items(0, 150, false, 50885), refLabs},
	{"bun", Lab, LabWindow, "mg/dL", items(0, 300, false, 51006), refLabs},
	{"chloride", Lab, LabWindow, "mEq/L", items(0, 10000, false, 50806, 50902), refLabs},
	{"creatinine", Lab, LabWindow, "mg/dL", items(0, 150, false, 50912), refLabs},
	{"glucose", Lab, LabWindow, "mg/dL", items(0, 10000, false, 50809, 50931), refLabs},
	{"hematocrit", Lab, LabWindow, "%", items(0, 100, false, 50810, 51221), refLabs},
	{"hemoglobin", Lab, LabWindow, "g/dL", items(0, 50, false, 50811, 51222), refLabs},
	{"inr", Lab, LabWindow, "ratio", items(0, 50, false, 51237), refLabs},
	{"lactate", Lab, LabWindow, "mmol/L", items(0, 50, false, 50813), refLabs},
	{"platelets", Lab, LabWindow, "K/uL", items(0, 10000, false, 51265), refLabs},
	{"potassium", Lab, LabWindow, "mEq/L", items(0, 30, false, 50822, 50971), refLabs},
	{"pt", Lab, LabWindow, "s", items(0, 150, false, 51274), refLabs},
	{"ptt", Lab, LabWindow, "s", items(0, 150, false, 51275), refLabs},
	{"sodium", Lab, LabWindow, "mEq/L", items(0, 200, false, 50824, 50983), refLabs},
	{"wbc", Lab, LabWindow, "K/uL", items(0, 1000, false, 51300, 51301), refLabs},
}

// Variables returns the first-day labs and vitals the builder extracts, with their
// ITEMIDs and plausible ranges (a copy: editing it changes nothing).
func Variables() []Variable {
	out := slices.Clone(variables)
	for i := range out {
		out[i].Items = slices.Clone(out[i].Items)
	}
	return out
}

// aggregates are the per-variable feature suffixes, in column order.
var aggregates = []string{"min", "max", "mean", "missing"}

// Categorical demographics and admission context, one-hot with an "other" column for any
// value not listed (the values are MIMIC-III's own spellings).
var (
	admissionTypes = []string{"EMERGENCY", "ELECTIVE", "URGENT"}
	careUnits      = []string{"MICU", "SICU", "CCU", "CSRU", "TSICU"}
	insurances     = []string{"Medicare", "Private", "Medicaid", "Government", "Self Pay"}
)

// AdmissionTypes returns the admission types that get a one-hot column (the others share
// the "other" column), in column order.
func AdmissionTypes() []string { return slices.Clone(admissionTypes) }

// CareUnits returns the first care units that get a one-hot column, in column order.
func CareUnits() []string { return slices.Clone(careUnits) }

// Insurances returns the insurances that get a one-hot column, in column order.
func Insurances() []string { return slices.Clone(insurances) }

// unknownEthnicities are the ETHNICITY values that record no ethnicity; Z = 0 for them
// unless Config.DropUnknownEthnicity removes them.
var unknownEthnicities = []string{"UNKNOWN/NOT SPECIFIED", "UNABLE TO OBTAIN", "PATIENT DECLINED TO ANSWER"}

// IsWhite is the nuisance Z: ETHNICITY recorded as white ("WHITE" or "WHITE - ...").
func IsWhite(ethnicity string) bool { return strings.HasPrefix(strings.TrimSpace(ethnicity), "WHITE") }

func isUnknownEthnicity(e string) bool {
	return slices.Contains(unknownEthnicities, strings.TrimSpace(e))
}

func snake(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "_"))
}

// FeatureNames returns the cohort's feature columns in order: age, male, the one-hot
// admission type, first care unit and insurance, four aggregates per variable, then
// the GCS features (gcsFeatures).
func FeatureNames() []string {
	names := []string{"age", "male"}
	for _, g := range []struct {
		prefix string
		values []string
	}{{"admission", admissionTypes}, {"careunit", careUnits}, {"insurance", insurances}} {
		for _, v := range g.values {
			names = append(names, g.prefix+"_"+snake(v))
		}
		names = append(names, g.prefix+"_other")
	}
	for _, v := range variables {
		for _, a := range aggregates {
			names = append(names, v.Name+"_"+a)
		}
	}
	return append(names, gcsFeatures...)
}

// oneHot appends the one-hot encoding of v over values plus "other".
func oneHot(dst []float64, v string, values []string) []float64 {
	hit := false
	for _, c := range values {
		if strings.EqualFold(strings.TrimSpace(v), c) {
			dst = append(dst, 1)
			hit = true
		} else {
			dst = append(dst, 0)
		}
	}
	if hit {
		return append(dst, 0)
	}
	return append(dst, 1)
}
