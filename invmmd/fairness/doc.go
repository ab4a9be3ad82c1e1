// Package fairness audits a model's decisions for equalized odds when the sensitive
// attribute Z is missing on some rows.
//
// Equalized odds (Hardt, Price and Srebro 2016) asks that P(Ŷ = 1 | Y = y, Z = a) be the
// same for every group a, for y = 1 (true-positive rates) and y = 0 (false-positive rates):
// the decision Ŷ independent of Z given Y, the condition h ⊥ Z | Y that Goldstein et al.,
// "Learning Invariant Representations with Missing Data" (CLeaR 2022), estimate and enforce
// with Z partly missing. The metrics and their names are Fairlearn's (MetricFrame, v0.9):
// count, selection_rate, true_positive_rate, false_positive_rate, false_negative_rate,
// true_negative_rate and accuracy by group; difference and ratio between groups and to the
// overall value; demographic_parity_difference, equal_opportunity_difference and
// equalized_odds_difference (the larger of the true- and false-positive rates' differences).
//
// Each metric is estimated four ways (Estimator). With Δ the indicator that Z is observed,
// W = (X, Y) the features and the label, G(W) = P(Δ = 1 | W) and m_a(W) = P(Z = a | W, Δ = 1),
// a group's share of a row is a pseudo-outcome φ_a:
//
//	complete_case  φ_a = Δ·1{Z = a}                        (what Fairlearn computes after dropping the blank rows)
//	ip             φ_a = Δ·1{Z = a}/G
//	reg            φ_a = m_a
//	dr             φ_a = m_a + Δ/G·(1{Z = a} − m_a)         (AIPW, doubly robust)
//
// and a rate over a stratum s (every row, Y = 1, Y = 0) is the ratio Σ s·v·φ_a / Σ s·φ_a with
// v the decision (or 1{Ŷ = Y} for accuracy). Under missingness at random given W (Δ ⊥ Z | W)
// and positivity (G > 0), E[1{Z = a} | W] = E[φ_a | W] when G or m is right for ip, reg and
// dr, and since Ŷ is a function of X, E[s·v·1{Z = a}] = E[s·v·φ_a]: the ratio estimates the
// complete data's rate. This is the paper's AIPW construction (its eq. (7) for the MMD's
// pseudo-outcomes) applied to a group indicator.
//
// Intervals are Wald intervals from the ratio's influence function
// s·φ_a·(v − θ_a)/E[s·φ_a]; with G and m cross-fitted, dr's needs no correction for the fit
// (its error is a product of G's and m's errors). Differences between groups use the
// difference of the influence functions on the same rows; the worst-case aggregates
// (between_groups, to_overall, equalized_odds_difference) take simultaneous intervals over
// every contrast (a max-|t| critical value), which remain valid for a maximum of contrasts
// where a plain interval is not. Sensitivity bounds (Sensitivity) show how far a conclusion
// carries when missingness depends on Z itself.
package fairness
