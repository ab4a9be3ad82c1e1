// Package clinical builds the clinical experiment's data (experiment 3 of the paper): the
// shifted split that both clinical sources share, and the public stand-in that runs without
// credentials, the serum free light chain study (flchain).
//
// The paper predicts long ICU stays in MIMIC-III with Z = "recorded as white", splits the
// data so that train and validation hold mostly rows with Y ≠ Z and the test set mostly rows
// with Y = Z, and hides Z for non-male patients with probability 0.8. Assemble does that
// split, the group-driven missingness (a Table's Group: male in MIMIC-III), imputation and
// standardisation for any Table, so the MIMIC-III cohort builder (package mimic, which
// imports this one) and LoadFLChain produce their dataset.Splits in exactly the same way.
//
// flchain is a stand-in, not a replica: 7,874 residents of Olmsted County, Minnesota, aged 50
// or over, whose stored blood samples were assayed for serum free light chains (R package
// survival), with Y = died during follow-up and Z = male, observed for every patient aged 65
// or over and with probability 0.2 for younger ones. It has the structure of the paper's task
// (a clinical outcome, a demographic nuisance, missingness driven by another demographic
// column, a shifted split) but not its population, features or size; its numbers are not
// comparable with the paper's MIMIC-III table, only its differences between methods are.
package clinical
