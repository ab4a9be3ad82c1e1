package train

import (
	"fmt"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
)

// noteDropped records the strata of one step's penalty that were dropped as unreliable.
func (h *History) noteDropped(rep invmmd.Report) {
	for _, s := range rep.Strata {
		if !s.Dropped {
			continue
		}
		h.DroppedStrata++
		if h.DropReason == "" {
			h.DropReason = fmt.Sprintf("Y=%v: %s", s.Y, strings.Join(s.Reasons, "; "))
		}
	}
}

// Warning returns a sentence saying what the guards left out of the penalty during the
// fit, or "" when nothing was dropped.
func (h *History) Warning() string {
	if h.DroppedStrata == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d stratum penalties over %d steps were dropped as unreliable (first: %s)",
		h.Name, h.DroppedStrata, h.Steps, h.DropReason)
}
