// Package invmmd estimates the maximum mean discrepancy (MMD) penalty of Goldstein et al.,
// "Learning Invariant Representations with Missing Data" (CLeaR 2022), when the nuisance Z
// is missing for some rows.
//
// # Notation
//
// X features, Y binary label, Z binary nuisance, Δ = 1 when Z is observed, Z̃ = ΔZ.
// G = E[Δ | X, Y] is the missingness model and m = E[Z | X, Y] the nuisance regression.
// h is the model's output, a logit or a representation of any width d (Rep), and k the
// Gaussian kernel k(h, h') = exp(−‖h − h'‖²/(2σ²)) on h values. Z_1 = Z, Z_0 = 1 − Z,
// m_1 = m, m_0 = 1 − m, and N(b, b') = P(Z = b) P(Z' = b').
//
// # Estimators
//
// The penalty is, per stratum of Y (eq. (4)), the MMD between p(h | Z = 1) and
// p(h | Z = 0) (eq. (5)):
//
//	MMD² = T₁₁/N(1,1) + T₀₀/N(0,0) − 2 T₁₀/N(1,0),
//	T_bb' = 1/(n(n−1)) Σ_{i≠j} w_ij^{bb'} k(h_i, h_j)   (a U-statistic, diagonal left out).
//
// The methods differ only in the pair weight w and in the estimator of E[Z] used for the
// normalisers N(b,b'):
//
//	Full   Z_b,i Z_b',j                                    mean of Z            (eq. (6))
//	Obs    the same on the Δ = 1 rows only                  observed mean of Z
//	IP     Δ_iΔ_j Z̃_b,i Z̃_b',j / (G_i G_j)                 mean of ΔZ̃/G         (eq. (7); appendix E)
//	Reg    m_b,i m_b',j                                    mean of m            (eq. (8))
//	DR     IP − (Δ_iΔ_j − G_iG_j)/(G_iG_j) m_b,i m_b',j    mean of ΔZ̃/G − (Δ−G)/G m   (eqs. (9), (3))
//
// IPPlus and DRPlus are IP and DR given the true G. Every pair weight is a short signed sum
// of products a_i c_j of per-row factors (the function factorsFor holds them all), so one
// kernel pass per batch, Σ_{i≠j} a_i c_j k_ij for every pair of factor columns, serves every
// estimator and every (b, b'). A Design holds those factor columns and, per method, the
// coefficients that turn the kernel sums into the penalty.
//
// Following appendix B.1 of the paper, a batch's first quarter of rows estimates the
// normalisers and the other three quarters the main terms (Options.MainFraction).
//
// The package offers the estimators three ways: Estimate and MeanZ in plain float64 Go (the
// reference, for tests and evaluation), and PenaltyGraph, a differentiable GoMLX graph
// function for training.
//
// # Representations
//
// Nothing in the estimators depends on h beyond the kernel, so every method, estimand and
// nuisance kind applies to a representation h ∈ ℝ^{n×d} as to a logit: Estimate and
// Design.Evaluate take a Rep (a logit is ScalarRep), and MedianBandwidth gives
// the median heuristic on Euclidean distances. The kernel sums cost O(n²·(d + P)) exactly;
// the Fourier expansion of scalar outputs (FourierSums, FourierPenaltyGraph) has no regular
// counterpart in d dimensions, and random Fourier features (RFFSums, RFFPenaltyGraph) take
// its place, at O(n·D·(d + P)) with a random error of order 1/√D. InvarianceTest tests
// H₀: h ⊥ Z | Y for a representation by the cross route.
package invmmd
