package mimic

import "strings"

// Source is the events table a variable is read from.
type Source int

const (
	// Chart variables come from CHARTEVENTS, joined on ICUSTAY_ID.
	Chart Source = iota
	// Lab variables come from LABEVENTS, joined on SUBJECT_ID and the time window (as
	// MIT-LCP's mimic-code first-day lab query does: many first-day labs are drawn in the
	// emergency department before the admission's HADM_ID exists).
	Lab
)

// String names the source table.
func (s Source) String() string {
	if s == Lab {
		return "LABEVENTS"
	}
	return "CHARTEVENTS"
}

// Item is one ITEMID that measures a variable, with its plausible range in the unit the
// item records. Values outside (Min, Max] are dropped as charting errors and counted.
type Item struct {
	ID         int
	Min, Max   float64
	Fahrenheit bool // recorded in °F: range-checked in °F, then converted to °C
}

// Variable is one first-day lab or vital sign. Every variable gives four features over its
// window: <name>_min, <name>_max, <name>_mean and <name>_missing (1 when the stay has no
// usable value; the three aggregates are then imputed with the training median).
type Variable struct {
	Name   string
	Source Source
	Unit   string
	Items  []Item
}

// The ITEMIDs and ranges follow MIT-LCP mimic-code's MIMIC-III concepts
// pivoted_vital / vitals_first_day (chart: CareVue and MetaVision ITEMIDs of the same
// measurement) and labs_first_day (lab: valid when > 0 and not above the upper bound).
// GCS is kept as its three components (worst = min), without mimic-code's correction for
// intubated patients' verbal score.
func chartItems(min, max float64, ids ...int) []Item {
	out := make([]Item, len(ids))
	for i, id := range ids {
		out[i] = Item{ID: id, Min: min, Max: max}
	}
	return out
}

var variables = []Variable{
	{"heart_rate", Chart, "bpm", chartItems(0, 300, 211, 220045)},
	{"sys_bp", Chart, "mmHg", chartItems(0, 400, 51, 442, 455, 6701, 220179, 220050)},
	{"dia_bp", Chart, "mmHg", chartItems(0, 300, 8368, 8440, 8441, 8555, 220180, 220051)},
	{"mean_bp", Chart, "mmHg", chartItems(0, 300, 456, 52, 6702, 443, 220052, 220181, 225312)},
	{"resp_rate", Chart, "/min", chartItems(0, 70, 615, 618, 220210, 224690)},
	{"temp_c", Chart, "°C", append(chartItems(10, 50, 223762, 676),
		Item{ID: 223761, Min: 70, Max: 120, Fahrenheit: true}, Item{ID: 678, Min: 70, Max: 120, Fahrenheit: true})},
	{"spo2", Chart, "%", chartItems(0, 100, 646, 220277)},
	{"gcs_eye", Chart, "score", chartItems(0, 4, 184, 220739)},
	{"gcs_verbal", Chart, "score", chartItems(0, 5, 723, 223900)},
	{"gcs_motor", Chart, "score", chartItems(0, 6, 454, 223901)},

	{"anion_gap", Lab, "mEq/L", chartItems(0, 10000, 50868)},
	{"bicarbonate", Lab, "mEq/L", chartItems(0, 10000, 50882)},
	{"bilirubin", Lab, "mg/dL", chartItems(0, 150, 50885)},
	{"bun", Lab, "mg/dL", chartItems(0, 300, 51006)},
	{"chloride", Lab, "mEq/L", chartItems(0, 10000, 50806, 50902)},
	{"creatinine", Lab, "mg/dL", chartItems(0, 150, 50912)},
	{"glucose", Lab, "mg/dL", chartItems(0, 10000, 50809, 50931)},
	{"hematocrit", Lab, "%", chartItems(0, 100, 50810, 51221)},
	{"hemoglobin", Lab, "g/dL", chartItems(0, 50, 50811, 51222)},
	{"inr", Lab, "ratio", chartItems(0, 50, 51237)},
	{"lactate", Lab, "mmol/L", chartItems(0, 50, 50813)},
	{"platelets", Lab, "K/uL", chartItems(0, 10000, 51265)},
	{"potassium", Lab, "mEq/L", chartItems(0, 30, 50822, 50971)},
	{"sodium", Lab, "mEq/L", chartItems(0, 200, 50824, 50983)},
	{"wbc", Lab, "K/uL", chartItems(0, 1000, 51300, 51301)},
}

// Variables returns the first-day labs and vitals the builder extracts, with their
// ITEMIDs and plausible ranges (a copy: editing it changes nothing).
func Variables() []Variable {
	out := make([]Variable, len(variables))
	for i, v := range variables {
		out[i] = v
		out[i].Items = append([]Item(nil), v.Items...)
	}
	return out
}

// Aggregates are the per-variable feature suffixes, in column order.
var Aggregates = []string{"min", "max", "mean", "missing"}

// Categorical demographics and admission context, one-hot with an "other" column for any
// value not listed (the values are MIMIC-III's own spellings).
var (
	AdmissionTypes = []string{"EMERGENCY", "ELECTIVE", "URGENT"}
	CareUnits      = []string{"MICU", "SICU", "CCU", "CSRU", "TSICU"}
	Insurances     = []string{"Medicare", "Private", "Medicaid", "Government", "Self Pay"}
)

// UnknownEthnicities are the ETHNICITY values that record no ethnicity; Z = 0 for them
// unless Config.DropUnknownEthnicity removes them.
var UnknownEthnicities = []string{"UNKNOWN/NOT SPECIFIED", "UNABLE TO OBTAIN", "PATIENT DECLINED TO ANSWER"}

// IsWhite is the nuisance Z: ETHNICITY recorded as white ("WHITE" or "WHITE - ...").
func IsWhite(ethnicity string) bool { return strings.HasPrefix(strings.TrimSpace(ethnicity), "WHITE") }

func isUnknownEthnicity(e string) bool {
	for _, u := range UnknownEthnicities {
		if strings.TrimSpace(e) == u {
			return true
		}
	}
	return false
}

func snake(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "_"))
}

// FeatureNames returns the cohort's feature columns in order: age, male, the one-hot
// admission type, first care unit and insurance, then four aggregates per variable.
func FeatureNames() []string {
	names := []string{"age", "male"}
	for _, g := range []struct {
		prefix string
		values []string
	}{{"admission", AdmissionTypes}, {"careunit", CareUnits}, {"insurance", Insurances}} {
		for _, v := range g.values {
			names = append(names, g.prefix+"_"+snake(v))
		}
		names = append(names, g.prefix+"_other")
	}
	for _, v := range variables {
		for _, a := range Aggregates {
			names = append(names, v.Name+"_"+a)
		}
	}
	return names
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
