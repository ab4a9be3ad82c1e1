// Package method is the one table of the penalty methods of Goldstein et al., "Learning
// Invariant Representations with Missing Data" (CLeaR 2022), and of this project's
// extensions: each method's name, its estimator family (which case of the estimators'
// pair weights it takes), the nuisance models it reads, its colour in every figure, what
// its invariance test assumes and whether that test holds its size with fitted nuisances,
// and its help text. Every layer reads it (the estimators, training, the result files,
// the figures, the command line), so a method is defined here once.
//
// Adding an estimator: a row of the table below (and its constant), the case of its
// Family in the estimators' pair weights (factorsFor in package invmmd) when the family
// is new, and its case in the brute-force reference test there.
package method

import (
	"fmt"
	"image/color"
	"strings"
)

// Method names an estimator of the full-data MMD penalty, or "none" for no penalty.
type Method int

// The methods of the paper's tables, in the order the tables list them, then the
// extensions.
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
	// pseudo-outcome f = ΔZ̃/G − (Δ − G)/G·m of eq. (3), with pair weight f_b,i f_b',j.
	// It is unbiased for the numerators when G or m is right, like DR, and its estimate is
	// bounded below by an h-independent −O(1/n) term where DR's can fall by O(1) (see
	// package invmmd).
	DRPO
	DRPOPlus // DRPO with the true G
)

// Family is the case of the estimators' pair weights a method takes: the methods of one
// family share a formula and differ only in which G they read (learned or true).
type Family int

// The estimator families (package invmmd's factorsFor has one case each).
const (
	FamilyNone Family = iota // no penalty
	FamilyFull               // ψ(Z_i)·ψ(Z_j) over all rows (eq. (6))
	FamilyObs                // the same over the Δ = 1 rows only
	FamilyIP                 // inverse probability weights ΔZ̃/G (eq. (7))
	FamilyReg                // regression: m(W) in place of Z (eq. (8))
	FamilyDR                 // the paper's doubly robust pair weight (eq. (9))
	FamilyDRPO               // the product of doubly robust pseudo-outcomes (eq. (3))
)

var familyNames = [...]string{"none", "full", "obs", "ip", "reg", "dr", "dr-po"}

// String names the family.
func (f Family) String() string {
	if f < 0 || int(f) >= len(familyNames) {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyNames[f]
}

// Info is one row of the method table: everything the project knows about a method apart
// from its estimator's formula (which its Family selects).
type Info struct {
	Method Method
	// Name is the method as the paper's tables spell it and as -methods takes it.
	Name string
	// InPaper: one of the paper's methods (false: this project's extension).
	InPaper bool
	Family  Family
	// NeedsG, NeedsTrueG and NeedsM say which nuisance it reads: the learned missingness
	// model Ĝ, the true G (a simulation's), the learned nuisance regression m̂.
	NeedsG, NeedsTrueG, NeedsM bool
	// UsesMissingZ: it reads Z where Z is missing (full only: the simulated ground truth).
	UsesMissingZ bool
	// Colour is the method's colour in every figure (Okabe & Ito's colour-blind safe hues,
	// with two darker shades and a grey: none grey, full black, the observed-only and
	// reweighting families warm or light, each true-G form a hue of its own).
	Colour color.RGBA
	// TestAssumes says what the method's invariance p-value assumes beyond what every
	// method's does (Z missing at random given X and Y, G > 0, G and m fitted on rows
	// other than those whose pseudo-outcomes are tested); "" for none.
	TestAssumes string
	// TestCaveat says why the method's invariance p-value is not shown valid when G and m
	// are fitted (the calibration study measures each method's size): a p-value with a
	// caveat is marked unreliable, with it, wherever it is printed, and is not in the
	// command line's default list of tests. "" for a method whose size held in the study
	// (dr, dr-po; full on complete data) or that reads the true G (the "+" forms).
	TestCaveat string
	// CaveatIfFitted says that TestCaveat holds only when the nuisance the method reads
	// was fitted by the tool: a given column is taken to be the truth, as the method
	// assumes (ip's G).
	CaveatIfFitted bool
	// SEWithheld says why the method's jackknife standard error is not printed when Z is
	// missing on some row (the estimate itself is); "" for none.
	SEWithheld string
	// Help is one line for help texts.
	Help string
}

// Okabe & Ito (2008) hues and the shades the table uses.
var (
	grey          = color.RGBA{120, 120, 120, 255}
	black         = color.RGBA{0, 0, 0, 255}
	orange        = color.RGBA{230, 159, 0, 255}
	skyBlue       = color.RGBA{86, 180, 233, 255}
	bluishGreen   = color.RGBA{0, 158, 115, 255}
	blue          = color.RGBA{0, 114, 178, 255}
	vermillion    = color.RGBA{213, 94, 0, 255}
	reddishPurple = color.RGBA{204, 121, 167, 255}
	darkYellow    = color.RGBA{160, 145, 0, 255}
	darkGreen     = color.RGBA{0, 92, 67, 255}
)

// table lists every method in Method order: the paper's in its tables' order, then the
// extensions.
var table = [...]Info{
	{Method: None, Name: "none", InPaper: true, Family: FamilyNone, Colour: grey,
		Help: "no penalty (λ = 0): maximum likelihood only"},
	{Method: Obs, Name: "obs", InPaper: true, Family: FamilyObs, Colour: orange,
		TestAssumes: "missingness independent of X given Y (not valid when it depends on X)",
		TestCaveat:  "obs is the naive test: it ignores why Z is missing, and rejects a true H₀ too often when missingness depends on X (see the calibration study)",
		Help:        "observed-only MMD: the rows with Z observed, no reweighting"},
	{Method: Full, Name: "full", InPaper: true, Family: FamilyFull, UsesMissingZ: true, Colour: black,
		TestAssumes: "Z observed on every row",
		Help:        "full-data MMD with the true Z of every row (the ground truth; needs Z everywhere)"},
	{Method: DR, Name: "dr", InPaper: true, Family: FamilyDR, NeedsG: true, NeedsM: true, Colour: vermillion,
		TestAssumes: "Ĝ or m̂ right",
		Help:        "doubly robust, with learned G and m"},
	{Method: DRPlus, Name: "dr+", InPaper: true, Family: FamilyDR, NeedsTrueG: true, NeedsM: true, Colour: reddishPurple,
		TestAssumes: "the true G given",
		Help:        "doubly robust, with the true G and learned m"},
	{Method: Reg, Name: "reg", InPaper: true, Family: FamilyReg, NeedsM: true, Colour: blue,
		TestAssumes: "m̂ right",
		TestCaveat:  "reg's pseudo-outcome m̂(X) is not orthogonal: m̂'s estimation error enters its statistic at first order, and its size was far above α in the calibration study",
		// m̂ stands in for Z where it is missing, and its error does not shrink faster than
		// the estimate's (the calibration study measures reg's SE against its spread).
		SEWithheld: "reg's jackknife treats the fitted m̂ as known and leaves out its error, so it would understate the uncertainty",
		Help:       "regression: Z replaced by learned m"},
	{Method: IP, Name: "ip", InPaper: true, Family: FamilyIP, NeedsG: true, Colour: skyBlue,
		TestAssumes:    "Ĝ right",
		TestCaveat:     "ip's pseudo-outcome ΔZ/Ĝ is not orthogonal: Ĝ's estimation error enters its statistic at first order, and its size drifted above α in the calibration study",
		CaveatIfFitted: true,
		Help:           "inverse probability weighting by learned G"},
	{Method: IPPlus, Name: "ip+", InPaper: true, Family: FamilyIP, NeedsTrueG: true, Colour: darkYellow,
		TestAssumes: "the true G given",
		Help:        "inverse probability weighting by the true G"},
	{Method: DRPO, Name: "dr-po", InPaper: false, Family: FamilyDRPO, NeedsG: true, NeedsM: true, Colour: bluishGreen,
		TestAssumes: "Ĝ or m̂ right",
		Help:        "doubly robust from the pseudo-outcome, with learned G and m"},
	{Method: DRPOPlus, Name: "dr-po+", InPaper: false, Family: FamilyDRPO, NeedsTrueG: true, NeedsM: true, Colour: darkGreen,
		TestAssumes: "the true G given",
		Help:        "dr-po with the true G and learned m"},
}

// where lists the methods whose row satisfies keep, in table order.
func where(keep func(Info) bool) []Method {
	var out []Method
	for _, r := range table {
		if keep(r) {
			out = append(out, r.Method)
		}
	}
	return out
}

// Paper returns the paper's methods in its tables' order (a new slice each call).
func Paper() []Method { return where(func(r Info) bool { return r.InPaper }) }

// Extensions returns the methods this project adds to the paper's.
func Extensions() []Method { return where(func(r Info) bool { return !r.InPaper }) }

// All returns the paper's methods, then the extensions.
func All() []Method { return where(func(Info) bool { return true }) }

// Names returns every method's name in table order.
func Names() []string {
	out := make([]string, len(table))
	for i, r := range table {
		out[i] = r.Name
	}
	return out
}

// Info returns the method's row of the table; the zero Info (Name "") for an invalid
// method.
func (m Method) Info() Info {
	if !m.Valid() {
		return Info{}
	}
	return table[m]
}

// String returns the method's name as the paper's tables spell it ("dr+", "ip", ...).
func (m Method) String() string {
	if !m.Valid() {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return table[m].Name
}

// InPaper reports whether the method is one of the paper's (not one of the Extensions).
func (m Method) InPaper() bool { return m.Info().InPaper }

// Family returns the method's estimator family (FamilyNone for an invalid method).
func (m Method) Family() Family { return m.Info().Family }

// Valid reports whether m is one of the defined methods.
func (m Method) Valid() bool { return m >= None && int(m) < len(table) }

// Penalised reports whether the method adds an MMD penalty (every method but None).
func (m Method) Penalised() bool { return m != None }

// NeedsG reports whether the method reads the learned missingness model G.
func (m Method) NeedsG() bool { return m.Info().NeedsG }

// NeedsTrueG reports whether the method reads the true missingness probability.
func (m Method) NeedsTrueG() bool { return m.Info().NeedsTrueG }

// NeedsM reports whether the method reads the nuisance regression m.
func (m Method) NeedsM() bool { return m.Info().NeedsM }

// UsesMissingZ reports whether the method reads Z on rows where it is missing (only Full,
// which is the ground truth and exists because the missingness is simulated).
func (m Method) UsesMissingZ() bool { return m.Info().UsesMissingZ }

// Colour returns the method's colour in every figure (black for an invalid method).
func (m Method) Colour() color.RGBA {
	if !m.Valid() {
		return black
	}
	return table[m].Colour
}

// Parse returns the method named s (case-insensitive; "drplus" and "ipplus" are accepted
// for dr+ and ip+).
func Parse(s string) (Method, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.ReplaceAll(t, "plus", "+")
	for _, r := range table {
		if t == r.Name {
			return r.Method, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q: want one of %s", s, strings.Join(Names(), ", "))
}

// ParseList parses a comma-separated list of method names; "all" means the paper's
// methods, "ext" the Extensions.
func ParseList(s string) ([]Method, error) {
	switch strings.TrimSpace(strings.ToLower(s)) {
	case "all":
		return Paper(), nil
	case "ext":
		return Extensions(), nil
	}
	var out []Method
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		m, err := Parse(part)
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

// List joins the methods' names with commas, as -methods takes them.
func List(ms []Method) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, ",")
}
