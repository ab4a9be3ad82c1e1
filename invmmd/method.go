package invmmd

import (
	"fmt"
	"strings"
)

// Method names an estimator of the full-data MMD penalty, or "none" for no penalty.
type Method int

// The methods of the paper's tables, in the order the tables list them.
const (
	None   Method = iota // no penalty (λ = 0): maximum likelihood only
	Obs                  // observed-only MMD: the Δ = 1 rows, no reweighting
	Full                 // full-data MMD with the true Z of every row (ground truth)
	DR                   // doubly robust (eq. drmmd) with learned G and m
	DRPlus               // doubly robust with the true G and learned m
	Reg                  // regression (eq. regressionmmd) with learned m
	IP                   // inverse probability (eq. reweightingmmd) with learned G
	IPPlus               // inverse probability with the true G

	// DRPO is this project's extension: a doubly robust estimator built from the
	// pseudo-outcome f = ΔZ̃/G − (Δ − G)/G·m of eq. drestimator, with pair weight
	// f_b,i f_b',j. It is unbiased for the numerators when G or m is right, like DR.
	// Its estimate is not ≥ 0 (the U-statistic leaves out the diagonal i = j), but it is
	// bounded below by an h-independent −O(1/n) term, where DR's can fall by O(1): since
	// f₀ = 1 − f₁, the coefficient matrix M = [[1/N₁₁, −1/N₁₀], [−1/N₁₀, 1/N₀₀]] is positive
	// semi-definite whenever no normaliser is floored, so each stratum's estimate is at
	// least −D_y = −Σ_i φ_iᵀMφ_i / (n_y(n_y − 1)), φ_i = (f₁,i, f₀,i) (adding D_y back gives
	// the V-statistic, which is ≥ 0). With Δ ≡ 1, G ≡ 1, Z = (1, 0, 1, 0), h = (0, 0, 5, 5),
	// σ = 1 the estimate is −1.00 and D = 2 (drpo_bound_test.go).
	DRPO
	DRPOPlus // DRPO with the true G
)

// Methods lists the paper's methods in its tables' order.
var Methods = []Method{None, Obs, Full, DR, DRPlus, Reg, IP, IPPlus}

// Extensions lists the methods this project adds to the paper's.
var Extensions = []Method{DRPO, DRPOPlus}

// AllMethods lists the paper's methods, then the extensions.
var AllMethods = append(append([]Method(nil), Methods...), Extensions...)

var methodNames = [...]string{"none", "obs", "full", "dr", "dr+", "reg", "ip", "ip+", "dr-po", "dr-po+"}

// String returns the method's name as the paper's tables spell it ("dr+", "ip", ...).
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod returns the method named s (case-insensitive; "drplus" and "ipplus" are
// accepted for dr+ and ip+).
func ParseMethod(s string) (Method, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.ReplaceAll(t, "plus", "+")
	for i, n := range methodNames {
		if t == n {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("unknown method %q: want one of %s", s, strings.Join(methodNames[:], ", "))
}

// ParseMethods parses a comma-separated list of method names; "all" means Methods (the
// paper's), "ext" the Extensions.
func ParseMethods(s string) ([]Method, error) {
	switch strings.TrimSpace(strings.ToLower(s)) {
	case "all":
		return append([]Method(nil), Methods...), nil
	case "ext":
		return append([]Method(nil), Extensions...), nil
	}
	var out []Method
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		m, err := ParseMethod(part)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no method named in %q", s)
	}
	return out, nil
}

// Valid reports whether m is one of the defined methods.
func (m Method) Valid() bool { return m >= None && int(m) < len(methodNames) }

// Penalised reports whether the method adds an MMD penalty (every method but None).
func (m Method) Penalised() bool { return m != None }

// NeedsG reports whether the method reads the learned missingness model G.
func (m Method) NeedsG() bool { return m == IP || m == DR || m == DRPO }

// NeedsTrueG reports whether the method reads the true missingness probability.
func (m Method) NeedsTrueG() bool { return m == IPPlus || m == DRPlus || m == DRPOPlus }

// NeedsM reports whether the method reads the nuisance regression m.
func (m Method) NeedsM() bool {
	return m == Reg || m == DR || m == DRPlus || m == DRPO || m == DRPOPlus
}

// UsesMissingZ reports whether the method reads Z on rows where it is missing (only Full,
// which is the ground truth and exists because the missingness is simulated).
func (m Method) UsesMissingZ() bool { return m == Full }
