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
)

// Methods lists every method in table order.
var Methods = []Method{None, Obs, Full, DR, DRPlus, Reg, IP, IPPlus}

var methodNames = [...]string{"none", "obs", "full", "dr", "dr+", "reg", "ip", "ip+"}

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

// ParseMethods parses a comma-separated list of method names; "all" means Methods.
func ParseMethods(s string) ([]Method, error) {
	if strings.TrimSpace(strings.ToLower(s)) == "all" {
		return append([]Method(nil), Methods...), nil
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

// Penalised reports whether the method adds an MMD penalty (every method but None).
func (m Method) Penalised() bool { return m != None }

// NeedsG reports whether the method reads the learned missingness model G.
func (m Method) NeedsG() bool { return m == IP || m == DR }

// NeedsTrueG reports whether the method reads the true missingness probability.
func (m Method) NeedsTrueG() bool { return m == IPPlus || m == DRPlus }

// NeedsM reports whether the method reads the nuisance regression m.
func (m Method) NeedsM() bool { return m == Reg || m == DR || m == DRPlus }

// UsesMissingZ reports whether the method reads Z on rows where it is missing (only Full,
// which is the ground truth and exists because the missingness is simulated).
func (m Method) UsesMissingZ() bool { return m == Full }
