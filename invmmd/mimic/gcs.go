package mimic

import (
	"cmp"
	"math"
	"slices"
)

// The Glasgow Coma Scale of the first day, computed as MIT-LCP mimic-code's
// mimic-iii/concepts/firstday/gcs_first_day.sql computes it; the package doc's GCS section
// states the rules, TestScoreGCS pins each.

// GCS components, in the order of their features.
const (
	gcsMotor = iota
	gcsVerbal
	gcsEyes
	gcsComponents
)

// GCSItem is one ITEMID of a GCS component.
type GCSItem struct {
	ID        int
	Component string // "motor", "verbal" or "eyes"
	// Intubated is the VALUE text that marks an intubated patient on a verbal row
	// (scored 0 and flagged); empty for the other components.
	Intubated string
}

// gcsItems are gcs_first_day.sql's ITEMIDs: CareVue 454, 723, 184 and MetaVision 223901,
// 223900, 220739.
var gcsItems = []GCSItem{
	{454, "motor", ""}, {223901, "motor", ""},
	{723, "verbal", "1.0 ET/Trach"}, {223900, "verbal", "No Response-ETT"},
	{184, "eyes", ""}, {220739, "eyes", ""},
}

// GCSItems returns the ITEMIDs the GCS features are computed from (a copy).
func GCSItems() []GCSItem { return slices.Clone(gcsItems) }

// gcsFeatures are the GCS feature columns, the last of FeatureNames: gcs_first_day.sql's
// mingcs, gcsmotor, gcsverbal, gcseyes and endotrachflag, then gcs_missing (1 when the stay
// has no GCS row in the window; the others are then missing and imputed).
var gcsFeatures = []string{"gcs_min", "gcs_motor", "gcs_verbal", "gcs_eyes", "gcs_endotrach", "gcs_missing"}

// gcsRule is how a GCS ITEMID is read.
type gcsRule struct {
	component int
	intubated string
}

func gcsRules() map[int]gcsRule {
	m := map[int]gcsRule{}
	comp := map[string]int{"motor": gcsMotor, "verbal": gcsVerbal, "eyes": gcsEyes}
	for _, it := range gcsItems {
		m[it.ID] = gcsRule{component: comp[it.Component], intubated: it.Intubated}
	}
	return m
}

// gcsEvent is one buffered GCS chart row of a cohort stay inside its window. Only these
// rows are kept (the score needs each stay's rows in time order, which CHARTEVENTS does not
// guarantee), so memory grows with the cohort's first-day GCS charting, not with the file:
// 16 bytes a row.
type gcsEvent struct {
	sec       int32 // seconds after the stay's INTIME
	stay      int32
	component int8
	value     float32 // NaN when VALUENUM is empty
}

// gcsScore is one stay's GCS features.
type gcsScore struct {
	min, motor, verbal, eyes, endotrach float64
	ok                                  bool // the stay has a GCS row
}

// features appends the stay's gcsFeatures values.
func (g gcsScore) features(dst []float64) []float64 {
	if !g.ok {
		nan := math.NaN()
		return append(dst, nan, nan, nan, nan, nan, 1)
	}
	return append(dst, g.min, g.motor, g.verbal, g.eyes, g.endotrach, 0)
}

// coalesce returns the first of vs that is not NaN, or NaN.
func coalesce(vs ...float64) float64 {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}

// scoreGCS sorts the events by stay and time and returns each of n stays' features.
func scoreGCS(events []gcsEvent, n int) []gcsScore {
	slices.SortFunc(events, func(a, b gcsEvent) int { return cmp.Or(cmp.Compare(a.stay, b.stay), cmp.Compare(a.sec, b.sec)) })
	out := make([]gcsScore, n)
	type row struct {
		sec int32
		c   [gcsComponents]float64
	}
	var rows []row
	for i := 0; i < len(events); {
		stay := events[i].stay
		rows = rows[:0]
		for ; i < len(events) && events[i].stay == stay; i++ {
			e := events[i]
			if len(rows) == 0 || rows[len(rows)-1].sec != e.sec {
				rows = append(rows, row{sec: e.sec, c: [gcsComponents]float64{math.NaN(), math.NaN(), math.NaN()}})
			}
			r := &rows[len(rows)-1]
			if v := float64(e.value); !math.IsNaN(v) && (math.IsNaN(r.c[e.component]) || v > r.c[e.component]) {
				r.c[e.component] = v // SQL max: the largest non-null value at this time
			}
		}
		best := gcsScore{}
		for k, b := range rows {
			p := [gcsComponents]float64{math.NaN(), math.NaN(), math.NaN()}
			if k > 0 && rows[k-1].sec > b.sec-6*3600 {
				p = rows[k-1].c
			}
			var total float64
			switch {
			case b.c[gcsVerbal] == 0, math.IsNaN(b.c[gcsVerbal]) && p[gcsVerbal] == 0:
				total = 15 // intubated: scored as before sedation, i.e. normal
			case p[gcsVerbal] == 0: // extubated since the previous row: no carrying forward
				total = coalesce(b.c[gcsMotor], 6) + coalesce(b.c[gcsVerbal], 5) + coalesce(b.c[gcsEyes], 4)
			default:
				total = coalesce(b.c[gcsMotor], p[gcsMotor], 6) + coalesce(b.c[gcsVerbal], p[gcsVerbal], 5) +
					coalesce(b.c[gcsEyes], p[gcsEyes], 4)
			}
			if best.ok && total >= best.min {
				continue
			}
			best = gcsScore{min: total, ok: true,
				motor:  coalesce(b.c[gcsMotor], p[gcsMotor]),
				verbal: coalesce(b.c[gcsVerbal], p[gcsVerbal]),
				eyes:   coalesce(b.c[gcsEyes], p[gcsEyes]),
			}
			if b.c[gcsVerbal] == 0 {
				best.endotrach = 1
			}
		}
		out[stay] = best
	}
	return out
}
