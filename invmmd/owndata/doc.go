// Package owndata is the workflow for a researcher's own table, as a library: the steps
// that the commands invmmd fit, invmmd predict, invmmd estimate and invmmd test run,
// which those commands only parse flags for and print.
//
// A CSV with a label Y (binary, or of K > 2 classes: h then has K class logits and every
// stratum is a class), a nuisance Z left empty where it was not recorded, and feature
// columns is read and encoded (package tabular), split, and used to fit the
// auxiliary models G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y); h is then trained with
// each method that works without the true Z or the true G, and evaluated on the test
// split: accuracy, AUC, the held-out MMD² of h by dr and ip with their jackknife standard
// errors and unreliable strata, and the p-values of the tests of h ⊥ Z | Y on the test
// split by their pseudo-outcomes (Fit). Estimate gives each estimator's MMD² of a column of
// model outputs (or of several columns, one representation), and Test the p-value of each
// method's test of h ⊥ Z | Y for such outputs (invmmd test; several columns by the cross
// route), with G and m fitted on one half of the rows when no column gives them. Every
// default lives in DefaultConfig and DefaultEstimateConfig, and the commands' flag
// defaults are read from them.
//
// Each trained h is saved in a folder (SaveModel) that LoadModel reads back and checks
// before any prediction: the format version, the architecture, the encoder of the
// features, and the name and shape of every network variable, so that weights which do
// not belong to the described network are refused with an error instead of a panic or
// silently wrong probabilities.
package owndata
