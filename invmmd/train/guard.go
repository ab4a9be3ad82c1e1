package train

import (
	"fmt"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
)

// noteDropped records the strata of one step's penalty that were flagged unreliable, and
// those of them that were dropped.
func (h *History) noteDropped(rep invmmd.Report) {
	for _, s := range rep.Strata {
		if !s.Unreliable || s.Empty {
			continue
		}
		h.UnreliableStrata++
		if s.Dropped {
			h.DroppedStrata++
		}
		if h.DropReason == "" {
			h.DropReason = fmt.Sprintf("%s: %s", s.Name(), strings.Join(s.Reasons, "; "))
		}
	}
}

// Warning returns a sentence saying how many stratum penalties were unreliable during the
// fit and what was done with them, or "" when none was.
func (h *History) Warning() string {
	switch {
	case h.UnreliableStrata == 0:
		return ""
	case h.DroppedStrata > 0:
		return fmt.Sprintf("%s: %d stratum penalties over %d steps were dropped as unreliable (first: %s)",
			h.Name, h.DroppedStrata, h.Steps, h.DropReason)
	}
	return fmt.Sprintf("%s: %d stratum penalties over %d steps were unreliable and kept in the loss; "+
		DropHint+" (first: %s)", h.Name, h.UnreliableStrata, h.Steps, h.DropReason)
}

// DropHint is what Warning says to do with unreliable strata kept in the loss, in the
// library's terms; a command replaces it with its own flag's.
const DropHint = "set Options.DropUnreliable (invmmd fit does) to leave them out"
