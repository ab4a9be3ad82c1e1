// Package owndata is the workflow for a researcher's own table, as a library: the steps
// that the commands invmmd fit, invmmd predict, invmmd estimate and invmmd test run,
// which those commands only parse flags for and print.
//
// A table with a label Y (binary, or of K > 2 classes: h then has K class logits and every
// stratum is a class), a nuisance Z left empty where it was not recorded, and feature
// columns is read and encoded (package tabular), split, and used to fit the auxiliary
// models G = P(Δ = 1 | X, Y) and m = E[ψ(Z) | X, Y]; h is then trained with each method
// that works without the true Z or the true G, and evaluated on the test split: accuracy,
// AUC, the held-out MMD² of h by dr and ip with their jackknife standard errors and
// unreliable strata, and the p-values of the tests of h ⊥ Z | Y on the test split by their
// pseudo-outcomes. Estimate gives each estimator's MMD² of a column of model outputs (or of
// several columns, one representation), and Test the p-value of each method's test of
// h ⊥ Z | Y for such outputs, with G and m cross-fitted (crossfit.go) when no column
// gives them. Every default lives in DefaultConfig, DefaultEstimateConfig and
// DefaultTestConfig, and the commands' flag defaults are read from them; the estimates and
// tests take the kernel's σ by the median heuristic on h by default, everywhere.
//
// Every entry point takes a context and stops within moments once it is done (Ctrl-C in
// the commands), with an error wrapping the context's: a fit keeps every run finished by
// then. Each reads a CSV file (Fit, Estimate, Test) or takes a table held in memory
// (FitTable, EstimateTable, TestTable, with tabular.NewTable), which the file's entry
// points wrap: a study that simulates a table hundreds of times runs exactly what the
// command runs on a file.
//
// A fit is planned, then run: Prepare checks every setting, locks and checks the output
// folder and reads, encodes and splits the table before anything is fitted, so that every
// refusal comes before any work; Plan.Execute fits G and m, then trains h run by run and
// tells each Observer of each finished run. The output folder is one observer (persistence
// reads a run's results, it is no part of it); it records a content hash of the data, so
// that results of other data are never taken for this data's.
//
// A setting refused is a *FieldError naming its configuration field (Field); messages
// and warnings name settings by Names, which the command line sets to its flags. Estimates
// that cannot be (an MMD² beyond ±MaxMMD2, a probability far outside [0, 1]) are flagged
// unreliable and shown as IMPOSSIBLE, not as numbers.
//
// Each trained h is saved in a folder that LoadModel reads back and checks before any
// prediction: the format version, the architecture, the encoder of the features, and the
// name and shape of every network variable, so that weights which do not belong to the
// described network are refused with an error instead of a panic or silently wrong
// probabilities.
package owndata
