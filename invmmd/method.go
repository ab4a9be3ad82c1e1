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
	DR                   // doubly robust (eq. (9)) with learned G and m
	DRPlus               // doubly robust with the true G and learned m
	Reg                  // regression (eq. (8)) with learned m
	IP                   // inverse probability (eq. (7)) with learned G
	IPPlus               // inverse probability with the true G

	// DRPO is this project's extension: a doubly robust estimator built from the
	// pseudo-outcome f = ΔZ̃/G − (Δ − G)/G·m of eq. (3), with pair weight
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

// methodInfo is one row of the method table: everything the package and its users know
// about a method apart from its estimator's formulas.
type methodInfo struct {
	method       Method
	name         string // as the paper's tables spell it, and as -methods takes it
	paper        bool   // in the paper's tables (false: this project's extension)
	needsG       bool   // reads the learned missingness model Ĝ
	needsTrueG   bool   // reads the true missingness probability G
	needsM       bool   // reads the learned nuisance regression m̂
	usesMissingZ bool   // reads Z where it is missing (Full only: the simulated ground truth)
	about        string // one line for help texts
}

// methodTable lists every method, in Method order: the paper's in its tables' order, then
// the extensions. String, ParseMethod, the Needs predicates, Methods, Extensions,
// AllMethods and MethodHelp all read it.
var methodTable = [...]methodInfo{
	{None, "none", true, false, false, false, false, "no penalty (λ = 0): maximum likelihood only"},
	{Obs, "obs", true, false, false, false, false, "observed-only MMD: the rows with Z observed, no reweighting"},
	{Full, "full", true, false, false, false, true, "full-data MMD with the true Z of every row (the ground truth; needs Z everywhere)"},
	{DR, "dr", true, true, false, true, false, "doubly robust, with learned G and m"},
	{DRPlus, "dr+", true, false, true, true, false, "doubly robust, with the true G and learned m"},
	{Reg, "reg", true, false, false, true, false, "regression: Z replaced by learned m"},
	{IP, "ip", true, true, false, false, false, "inverse probability weighting by learned G"},
	{IPPlus, "ip+", true, false, true, false, false, "inverse probability weighting by the true G"},
	{DRPO, "dr-po", false, true, false, true, false, "doubly robust from the pseudo-outcome, with learned G and m"},
	{DRPOPlus, "dr-po+", false, false, true, true, false, "dr-po with the true G and learned m"},
}

// info returns m's row of the method table; m must be Valid.
func (m Method) info() methodInfo { return methodTable[m] }

// methodsWhere lists the methods whose row satisfies keep, in table order.
func methodsWhere(keep func(methodInfo) bool) []Method {
	var out []Method
	for _, r := range methodTable {
		if keep(r) {
			out = append(out, r.method)
		}
	}
	return out
}

// Methods lists the paper's methods in its tables' order.
var Methods = methodsWhere(func(r methodInfo) bool { return r.paper })

// Extensions lists the methods this project adds to the paper's.
var Extensions = methodsWhere(func(r methodInfo) bool { return !r.paper })

// AllMethods lists the paper's methods, then the extensions.
var AllMethods = methodsWhere(func(methodInfo) bool { return true })

// methodNames returns every method's name in table order.
func methodNames() []string {
	out := make([]string, len(methodTable))
	for i, r := range methodTable {
		out[i] = r.name
	}
	return out
}

// String returns the method's name as the paper's tables spell it ("dr+", "ip", ...).
func (m Method) String() string {
	if !m.Valid() {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return m.info().name
}

// Describe returns one line saying what the method estimates and from what, for help
// texts; "" for an invalid method.
func (m Method) Describe() string {
	if !m.Valid() {
		return ""
	}
	return m.info().about
}

// InPaper reports whether the method is one of the paper's (not one of the Extensions).
func (m Method) InPaper() bool { return m.Valid() && m.info().paper }

// MethodHelp returns a help text listing every method, one per line: its name and its
// description, an extension marked as such. Command-line help can read it, so that the
// list never drifts from the table.
func MethodHelp() string {
	var b strings.Builder
	width := 0
	for _, r := range methodTable {
		width = max(width, len(r.name))
	}
	for _, r := range methodTable {
		ext := ""
		if !r.paper {
			ext = " (this project's extension)"
		}
		fmt.Fprintf(&b, "  %-*s  %s%s\n", width, r.name, r.about, ext)
	}
	return b.String()
}

// ParseMethod returns the method named s (case-insensitive; "drplus" and "ipplus" are
// accepted for dr+ and ip+).
func ParseMethod(s string) (Method, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.ReplaceAll(t, "plus", "+")
	for _, r := range methodTable {
		if t == r.name {
			return r.method, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q: want one of %s", s, strings.Join(methodNames(), ", "))
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
func (m Method) Valid() bool { return m >= None && int(m) < len(methodTable) }

// Penalised reports whether the method adds an MMD penalty (every method but None).
func (m Method) Penalised() bool { return m != None }

// NeedsG reports whether the method reads the learned missingness model G.
func (m Method) NeedsG() bool { return m.Valid() && m.info().needsG }

// NeedsTrueG reports whether the method reads the true missingness probability.
func (m Method) NeedsTrueG() bool { return m.Valid() && m.info().needsTrueG }

// NeedsM reports whether the method reads the nuisance regression m.
func (m Method) NeedsM() bool { return m.Valid() && m.info().needsM }

// UsesMissingZ reports whether the method reads Z on rows where it is missing (only Full,
// which is the ground truth and exists because the missingness is simulated).
func (m Method) UsesMissingZ() bool { return m.Valid() && m.info().usesMissingZ }
