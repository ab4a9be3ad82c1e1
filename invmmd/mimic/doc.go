// Package mimic builds the clinical experiment of the paper (experiment 3) from the
// official MIMIC-III v1.4 CSV files, for users with credentialed PhysioNet access, and
// writes a synthetic fixture in the same schema for the tests.
//
// # Cohort
//
// ICU stays from ICUSTAYS joined to PATIENTS (SUBJECT_ID) and ADMISSIONS (HADM_ID); kept
// when the patient is at least MinAge (18) at INTIME (this removes the neonates), the stay
// has an INTIME and an OUTTIME, it is the patient's first such stay (unless AllStays: no
// patient in two splits), and it lasts at least MinLOSDays (1, the paper). Y = 1 when
// OUTTIME − INTIME exceeds LongStayDays (2.5 days, the paper). Z = 1 when ADMISSIONS.ETHNICITY
// is recorded as white ("WHITE" or "WHITE - ..."); unknown ethnicities count as not white
// unless DropUnknownEthnicity.
//
// # Features (FeatureNames)
//
// Demographics and admission context: age at INTIME in years (MIMIC shifts ages above 89 to
// about 300; those are set to AgeCap = 91.4, the median MIMIC documents for them), male
// (PATIENTS.GENDER = "M"), one-hot ADMISSION_TYPE (EMERGENCY, ELECTIVE, URGENT, other),
// FIRST_CAREUNIT (MICU, SICU, CCU, CSRU, TSICU, other) and INSURANCE (Medicare, Private,
// Medicaid, Government, Self Pay, other). Ethnicity is Z and is not a feature.
//
// First-day vitals from CHARTEVENTS, joined on ICUSTAY_ID, CHARTTIME in [INTIME, INTIME +
// 24 h], rows with ERROR = 1 dropped: heart rate, systolic, diastolic and mean blood
// pressure, respiratory rate, temperature (°F items converted to °C), SpO2 and the three GCS
// components (eye, verbal, motor). First-day labs from LABEVENTS, joined on SUBJECT_ID with
// CHARTTIME in [INTIME − 6 h, INTIME + 24 h] (pre-ICU draws count, as in MIT-LCP
// mimic-code's MIMIC-III first-day labs): anion gap, bicarbonate, bilirubin, BUN, chloride,
// creatinine, glucose, hematocrit, hemoglobin, INR, lactate, platelets, potassium, sodium,
// WBC. The ITEMIDs and plausible ranges (values outside are dropped and counted) follow
// mimic-code's vitals_first_day and labs_first_day; Variables lists them. Each variable
// gives its minimum, maximum and mean over the window and a missing indicator; a stay with
// no usable value gets the indicator 1 and the training split's median for the three
// aggregates (clinical.Assemble), then every column is standardised with the training mean
// and standard deviation.
//
// # Streaming and malformed rows
//
// Files are TABLE.csv or TABLE.csv.gz (gzip read on the fly), columns found by header name
// (case-insensitive, so extra or reordered columns are fine). PATIENTS, ADMISSIONS and
// ICUSTAYS are small and read into maps; LABEVENTS and CHARTEVENTS are streamed row by row
// with encoding/csv, keeping only per-stay running aggregates, so memory is proportional to
// the cohort (TestStreamingMemory: a 293 MiB CHARTEVENTS with a peak heap under 10 MiB).
// A row is malformed when the CSV parser rejects it (wrong field count, stray quote) or a
// column the builder uses for it does not parse (an ID, a timestamp, VALUENUM); it is
// skipped, counted and listed in the report as FILE:LINE: reason. More than MaxMalformed
// (1000) malformed rows in a file, or any with Strict, is an error. An empty VALUENUM is not
// malformed: MIMIC records text observations that way; those rows are counted as NoValue.
package mimic
