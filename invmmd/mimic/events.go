package mimic

import (
	"math"
	"strconv"
	"strings"
)

// The event tables, streamed: LABEVENTS and CHARTEVENTS rows of a used ITEMID inside a
// cohort stay's window are range-checked and aggregated per stay and variable; GCS rows
// are buffered for scoreGCS.

// rules maps the ITEMIDs of one source to their variable and range.
func rules(src Source) map[int]itemRule {
	m := map[int]itemRule{}
	for v, vr := range variables {
		if vr.Source != src {
			continue
		}
		for _, it := range vr.Items {
			m[it.ID] = itemRule{variable: v, Item: it}
		}
	}
	return m
}

// record adds value v of rule r to stay s, after the range check and unit conversion.
func (x *extraction) record(s int, r itemRule, v float64) {
	if !r.valid(v) {
		x.varRep[r.variable].OutOfRange++
		return
	}
	if r.Fahrenheit {
		v = (v - 32) / 1.8
	}
	x.varRep[r.variable].Values++
	x.aggs[s*len(variables)+r.variable].add(v)
}

// Outcomes of reading an event row's time and value.
const (
	eventOK        = iota
	eventNoValue   // VALUENUM empty: a text-only observation, skipped and counted
	eventMalformed // recorded as malformed
)

// eventValue parses CHARTTIME and VALUENUM of an event row of a used ITEMID. A malformed
// row is recorded; err is set only when that takes the file past its malformed limit.
func eventValue(t *tableFile, line int, when, val string) (sec int64, v float64, status int, err error) {
	sec, perr := parseTimestamp(when)
	if perr != nil {
		return 0, 0, eventMalformed, t.malformed(line, "column CHARTTIME: %v", perr)
	}
	if val == "" {
		return sec, 0, eventNoValue, nil
	}
	v, ok := parseFloat(val)
	if !ok {
		return 0, 0, eventMalformed, t.malformed(line, "column VALUENUM: %q is not a number", val)
	}
	return sec, v, eventOK, nil
}

// parseFloat parses a finite decimal number.
func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// readLabs streams LABEVENTS into the stays' lab aggregates: rows joined on SUBJECT_ID and,
// unless Config.LabsBySubject, HADM_ID, inside LabWindow.
func (x *extraction) readLabs() error {
	t, err := x.open("LABEVENTS", []string{"SUBJECT_ID", "HADM_ID", "ITEMID", "CHARTTIME", "VALUENUM"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cHadm, cItem, cTime, cVal := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ITEMID"), t.column("CHARTTIME"), t.column("VALUENUM")
	rs := rules(Lab)
	lead, span := int64(x.cfg.LabLeadHours*3600), int64(x.cfg.FirstDayHours*3600)
	return t.each(func(rec []string, line int) error {
		item, err := t.intField(rec, line, cItem, "ITEMID")
		if err != nil {
			return err
		}
		r, used := rs[item]
		if !used {
			return nil
		}
		sub, err := t.intField(rec, line, cSub, "SUBJECT_ID")
		if err != nil {
			return err
		}
		stays := x.bySubject[sub]
		if len(stays) == 0 {
			return nil
		}
		hadm := 0 // none: an empty HADM_ID matches no stay's admission
		if rec[cHadm] != "" {
			if hadm, err = t.intField(rec, line, cHadm, "HADM_ID"); err != nil {
				return err
			}
		}
		sec, v, status, err := eventValue(t, line, rec[cTime], rec[cVal])
		if err != nil || status == eventMalformed {
			return err
		}
		for _, s := range stays {
			if in := x.inSec[s]; LabWindow.contains(sec, in, lead, span) {
				if hadm != x.stays[s].HadmID && !x.cfg.LabsBySubject {
					x.rep.LabOtherAdmission++
					continue
				}
				if status == eventNoValue {
					x.rep.NoValue++
					continue
				}
				x.record(s, r, v)
			}
		}
		return nil
	})
}

// readCharts streams CHARTEVENTS into the stays' vital-sign aggregates and GCS rows:
// rows joined on ICUSTAY_ID, ERROR = 1 rows left out, inside each variable's window.
func (x *extraction) readCharts() error {
	t, err := x.open("CHARTEVENTS", []string{"ICUSTAY_ID", "ITEMID", "CHARTTIME", "VALUE", "VALUENUM"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cICU, cItem, cTime, cVal, cErr := t.column("ICUSTAY_ID"), t.column("ITEMID"), t.column("CHARTTIME"), t.column("VALUENUM"), t.column("ERROR")
	cText := t.column("VALUE")
	rs, gs := rules(Chart), gcsRules()
	span := int64(x.cfg.FirstDayHours * 3600)
	return t.each(func(rec []string, line int) error {
		item, err := t.intField(rec, line, cItem, "ITEMID")
		if err != nil {
			return err
		}
		r, used := rs[item]
		g, isGCS := gs[item]
		if !used && !isGCS {
			return nil
		}
		if rec[cICU] == "" {
			x.rep.ChartNoStay++
			return nil
		}
		icu, err := t.intField(rec, line, cICU, "ICUSTAY_ID")
		if err != nil {
			return err
		}
		s, in := x.byICU[icu]
		if !in {
			return nil
		}
		if cErr >= 0 && strings.TrimSpace(rec[cErr]) == "1" {
			x.rep.ChartErrors++
			return nil
		}
		sec, v, status, err := eventValue(t, line, rec[cTime], rec[cVal])
		if err != nil {
			return err
		}
		switch {
		case isGCS:
			if status != eventMalformed && GCSWindow.contains(sec, x.inSec[s], 0, span) {
				x.addGCS(s, sec, g, rec[cText], v, status)
			}
		case status == eventMalformed || !variables[r.variable].Window.contains(sec, x.inSec[s], 0, span):
		case status == eventNoValue:
			x.rep.NoValue++
		default:
			x.record(s, r, v)
		}
		return nil
	})
}

// addGCS buffers a GCS row of stay s inside its window: an intubated patient's verbal row
// scores 0; a row without VALUENUM is kept with no value (gcs_first_day.sql keeps it as a
// chart time of the stay).
func (x *extraction) addGCS(s int, sec int64, g gcsRule, text string, v float64, status int) {
	switch {
	case g.intubated != "" && strings.TrimSpace(text) == g.intubated:
		v = 0
	case status == eventNoValue:
		x.rep.NoValue++
		v = math.NaN()
	}
	if !math.IsNaN(v) {
		x.gcsRep.Values++
	}
	x.gcsEvents = append(x.gcsEvents, gcsEvent{sec: int32(sec - x.inSec[s]), stay: int32(s), component: int8(g.component), value: float32(v)})
}
