// Package clinical builds the clinical experiment's data (experiment 3 of the paper): the
// shifted split that both clinical sources share, and the public stand-in that runs without
// credentials, NMES1988.
//
// The paper predicts long ICU stays in MIMIC-III with Z = "recorded as white", splits the
// data so that train and validation hold mostly rows with Y ≠ Z and the test set mostly rows
// with Y = Z, and hides Z for non-male patients with probability 0.8. Assemble does that
// split, the gender-driven missingness, imputation and standardisation for any Table, so the
// MIMIC-III cohort builder (package mimic, which imports this one) and LoadNMES produce
// their dataset.Splits in exactly the same way.
//
// NMES1988 is a stand-in, not a replica: 4,406 US Medicare patients aged 66 and over from a
// 1987–88 survey, with Y = more physician office visits than the median and Z = African
// American. It has the structure of the paper's task (a health-care-use label, a race
// nuisance, gender-driven missingness, a shifted split) but not its population, features or
// size; its numbers are not comparable with the paper's MIMIC-III table.
package clinical
