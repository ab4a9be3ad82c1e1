package mimic

import (
	"fmt"
	"slices"
	"strings"
	"unique"
)

// The small tables, read whole: PATIENTS and ADMISSIONS into maps, then ICUSTAYS, whose
// stays go through the cohort's exclusions in order (see the package doc) and become the
// extraction's stays.

// readPatients reads each patient's date of birth and gender from PATIENTS.
func (x *extraction) readPatients() error {
	t, err := x.open("PATIENTS", []string{"SUBJECT_ID", "GENDER", "DOB"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cGen, cDob := t.column("SUBJECT_ID"), t.column("GENDER"), t.column("DOB")
	x.patients = map[int]patient{}
	return t.each(func(rec []string, line int) error {
		sub, err := t.intField(rec, line, cSub, "SUBJECT_ID")
		if err != nil {
			return err
		}
		dob, err := parseTimestamp(rec[cDob])
		if err != nil {
			return t.malformed(line, "column DOB: %v", err)
		}
		g := strings.TrimSpace(rec[cGen])
		if g != "M" && g != "F" {
			return t.malformed(line, "column GENDER: %q, want M or F", rec[cGen])
		}
		if _, dup := x.patients[sub]; dup {
			return t.malformed(line, "SUBJECT_ID %d appears twice", sub)
		}
		x.patients[sub] = patient{dob: dob, male: g == "M"}
		return nil
	})
}

// readAdmissions reads each admission's type, insurance, ethnicity and whether it has
// chart data from ADMISSIONS.
func (x *extraction) readAdmissions() error {
	t, err := x.open("ADMISSIONS", []string{"SUBJECT_ID", "HADM_ID", "ADMISSION_TYPE", "INSURANCE", "ETHNICITY", "HAS_CHARTEVENTS_DATA"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cHadm, cType, cIns, cEth := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ADMISSION_TYPE"), t.column("INSURANCE"), t.column("ETHNICITY")
	cChart := t.column("HAS_CHARTEVENTS_DATA")
	x.admissions = map[int]admission{}
	in := func(s string) string { return unique.Make(s).Value() } // one copy of each value, not one per row
	return t.each(func(rec []string, line int) error {
		sub, ok1 := atoi(rec[cSub])
		hadm, ok2 := atoi(rec[cHadm])
		if !ok1 || !ok2 {
			return t.malformed(line, "columns SUBJECT_ID, HADM_ID: %q, %q are not integers", rec[cSub], rec[cHadm])
		}
		if _, dup := x.admissions[hadm]; dup {
			return t.malformed(line, "HADM_ID %d appears twice", hadm)
		}
		hasChart := strings.TrimSpace(rec[cChart])
		if hasChart != "0" && hasChart != "1" {
			return t.malformed(line, "column HAS_CHARTEVENTS_DATA: %q, want 0 or 1", rec[cChart])
		}
		x.admissions[hadm] = admission{subject: sub, admType: in(rec[cType]), insurance: in(rec[cIns]), ethnicity: in(rec[cEth]),
			chartData: hasChart == "1"}
		return nil
	})
}

// readICUStays reads ICUSTAYS, applies the cohort's exclusions and counts them, and
// prepares the per-stay aggregates of the event tables.
func (x *extraction) readICUStays() error {
	t, err := x.open("ICUSTAYS", []string{"SUBJECT_ID", "HADM_ID", "ICUSTAY_ID", "FIRST_CAREUNIT", "INTIME", "OUTTIME"})
	if err != nil {
		return err
	}
	cSub, cHadm, cICU, cUnit, cIn, cOut := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ICUSTAY_ID"), t.column("FIRST_CAREUNIT"), t.column("INTIME"), t.column("OUTTIME")
	type cand struct {
		Stay
		in, out int64
	}
	var cands []cand
	excl := map[string]int{}
	const (
		exNoPatient = "no PATIENTS row"
		exNoAdm     = "no ADMISSIONS row"
		exNoChart   = "admission without chart data (HAS_CHARTEVENTS_DATA = 0)"
		exNoTime    = "no INTIME/OUTTIME"
		exYoung     = "younger than MinAge"
		exNotFirst  = "not the patient's first ICU stay"
		exShort     = "shorter than MinLOSDays"
		exUnknown   = "unknown ethnicity (DropUnknownEthnicity)"
	)
	seen := map[int]bool{}
	err = t.each(func(rec []string, line int) error {
		sub, ok1 := atoi(rec[cSub])
		hadm, ok2 := atoi(rec[cHadm])
		icu, ok3 := atoi(rec[cICU])
		if !ok1 || !ok2 || !ok3 {
			return t.malformed(line, "columns SUBJECT_ID, HADM_ID, ICUSTAY_ID: %q, %q, %q are not integers", rec[cSub], rec[cHadm], rec[cICU])
		}
		var times [2]int64 // INTIME, OUTTIME; 0 when empty
		for k, c := range [2]int{cIn, cOut} {
			var err error
			if rec[c] != "" {
				if times[k], err = parseTimestamp(rec[c]); err != nil {
					return t.malformed(line, "column %s: %v", [2]string{"INTIME", "OUTTIME"}[k], err)
				}
			}
		}
		if seen[icu] {
			return t.malformed(line, "ICUSTAY_ID %d appears twice", icu)
		}
		in, out := times[0], times[1]
		seen[icu] = true
		x.rep.ICUStays++
		p, okP := x.patients[sub]
		a, okA := x.admissions[hadm]
		switch {
		case !okP:
			excl[exNoPatient]++
			return nil
		case !okA:
			excl[exNoAdm]++
			return nil
		case !a.chartData:
			excl[exNoChart]++
			return nil
		case rec[cIn] == "" || rec[cOut] == "":
			excl[exNoTime]++
			return nil
		}
		age := float64(in-p.dob) / (365.2425 * 86400)
		if age < x.cfg.MinAge {
			excl[exYoung]++
			return nil
		}
		if age > 89 {
			age = x.cfg.AgeCap
		}
		cands = append(cands, cand{Stay: Stay{SubjectID: sub, HadmID: hadm, ICUStayID: icu, InTime: toTime(in), OutTime: toTime(out),
			LOSDays: float64(out-in) / 86400, Age: age, Male: p.male, Ethnicity: a.ethnicity, AdmissionType: a.admType,
			FirstCareUnit: strings.Clone(rec[cUnit]), Insurance: a.insurance}, in: in, out: out})
		return nil
	})
	x.addFile(t)
	if err != nil {
		return err
	}
	if !x.cfg.AllStays {
		first := map[int]int{} // subject → index of the earliest candidate
		for i, c := range cands {
			if j, ok := first[c.SubjectID]; !ok || c.in < cands[j].in || (c.in == cands[j].in && c.ICUStayID < cands[j].ICUStayID) {
				first[c.SubjectID] = i
			}
		}
		kept := cands[:0]
		for i, c := range cands {
			if first[c.SubjectID] == i {
				kept = append(kept, c)
			} else {
				excl[exNotFirst]++
			}
		}
		cands = kept
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.ICUStayID - b.ICUStayID })
	for _, c := range cands {
		if c.LOSDays < x.cfg.MinLOSDays {
			excl[exShort]++
			continue
		}
		if x.cfg.DropUnknownEthnicity && isUnknownEthnicity(c.Ethnicity) {
			excl[exUnknown]++
			continue
		}
		x.stays = append(x.stays, c.Stay)
		x.inSec = append(x.inSec, c.in)
	}
	for _, r := range []string{exNoPatient, exNoAdm, exNoChart, exNoTime, exYoung, exNotFirst, exShort, exUnknown} {
		if excl[r] > 0 {
			x.rep.Exclusions = append(x.rep.Exclusions, Exclusion{r, excl[r]})
		}
	}
	if len(x.stays) == 0 {
		return fmt.Errorf("mimic: %s: no ICU stay is left after the exclusions (%v)", x.cfg.Dir, x.rep.Exclusions)
	}
	x.byICU = make(map[int]int, len(x.stays))
	x.bySubject = make(map[int][]int, len(x.stays))
	for i, s := range x.stays {
		x.byICU[s.ICUStayID] = i
		x.bySubject[s.SubjectID] = append(x.bySubject[s.SubjectID], i)
	}
	x.aggs = make([]agg, len(x.stays)*len(variables))
	x.varRep = make([]VariableReport, len(variables))
	for v, vr := range variables {
		x.varRep[v] = VariableReport{Name: vr.Name, Source: vr.Source.String()}
	}
	x.gcsRep = VariableReport{Name: "gcs", Source: Chart.String()}
	return nil
}
