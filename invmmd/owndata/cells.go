package owndata

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// The observed (Y, Z) cells of a split: the majority baseline, the counts Fit reports, and
// the check that each split can serve the penalty and the estimates.

// Majority returns the accuracy of always predicting the most common label of s: for a
// binary label max(P(Y = 1), 1 − P(Y = 1)), for K classes the largest class's share.
func Majority(s *dataset.Set) float64 {
	n := make([]int, s.NumClasses())
	for _, y := range s.Y {
		n[int(y)]++
	}
	return float64(slices.Max(n)) / float64(s.Len())
}

// ObservedCells counts the rows of s with Z observed in each (Y, Z) cell of a binary Z,
// indexed [y][z].
func ObservedCells(s *dataset.Set) [2][2]int {
	c := classCells(s)
	return [2][2]int{c[0], c[1]}
}

// classCells counts the rows of s with Z observed in each (Y, Z) cell of a binary Z, for
// each of the label's K classes (ObservedCells for any K), indexed [y][z].
func classCells(s *dataset.Set) [][2]int {
	c := make([][2]int, s.NumClasses())
	for i := range s.Y {
		if s.Delta[i] == 1 {
			c[int(s.Y[i])][int(s.Z[i])]++
		}
	}
	return c
}

// checkSplitCells checks that each split has an observed row in each (Y, Z) cell: the
// training split must (the penalty within Y = y compares Z = 0 with Z = 1 there, and G and
// m learn from them), and a validation or test split without one gets a warning (the
// validation objective or the held-out estimate within that Y has nothing to compare).
// The whole file's cells are checked when it is read; a split can still miss one.
//
// names are the label's classes when it has K > 2 (nil for a binary label): the messages
// then name each class, and every class needs its cells as each Y does.
func checkSplitCells(cfg Config, sp dataset.Splits, names []string) ([]string, error) {
	var warn []string
	class := func(y int) string {
		if len(names) > 2 {
			return names[y]
		}
		return strconv.Itoa(y)
	}
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		split := []string{"training", "validation", "test"}[k]
		if s.Nuisance.Kind != dataset.BinaryZ {
			// A nuisance of another kind has no (Y, Z) cells; each Y stratum needs two rows
			// with Z observed for its U-statistics.
			obs := make([]int, s.NumClasses())
			for i, d := range s.Delta {
				if d == 1 {
					obs[int(s.Y[i])]++
				}
			}
			for y, c := range obs {
				if c >= 2 {
					continue
				}
				what := fmt.Sprintf("the %s split (%d rows) has %d row(s) with %s = %s and Z observed", split, s.Len(), c, cfg.Y, class(y))
				if k == 0 {
					return nil, fmt.Errorf("%s: %s: the penalty within that stratum needs at least 2; %s", cfg.Data, what, cfg.splitFix())
				}
				warn = append(warn, what+": its estimates within that stratum are empty")
			}
			continue
		}
		cells := classCells(s)
		for y, c := range cells {
			for z := 0; z < 2; z++ {
				if c[z] > 0 {
					continue
				}
				// A binary label's messages give the four cells and name its strata Y = y.
				what := fmt.Sprintf("the %s split (%d rows) has no row with %s = %s and %s = %d observed", split, s.Len(), cfg.Y, class(y), cfg.Z, z)
				within := cfg.Y + " = " + class(y)
				if len(names) <= 2 {
					what += fmt.Sprintf(" (cells Y0Z0=%d Y0Z1=%d Y1Z0=%d Y1Z1=%d)", cells[0][0], cells[0][1], cells[1][0], cells[1][1])
					within = "Y = " + class(y)
				}
				if k == 0 {
					return nil, fmt.Errorf("%s: %s: the penalty within %s has no Z = %d row to compare, and m learns nothing of it; %s", cfg.Data, what, within, z, cfg.splitFix())
				}
				warn = append(warn, fmt.Sprintf("%s: the %s within %s has nothing to compare; %s", what, []string{"", "validation objective's penalty", "held-out MMD²"}[k], within, cfg.splitFix()))
			}
		}
	}
	return warn, nil
}

// classShares renders the share of s's rows in each class: "0 62%, 1 38%", or by the
// names of a K-class label's classes.
func classShares(s *dataset.Set, classes []string) string {
	k := max(2, s.NumClasses())
	n := make([]int, k)
	for _, y := range s.Y {
		n[int(y)]++
	}
	parts := make([]string, k)
	for c := range n {
		name := strconv.Itoa(c)
		if len(classes) > 2 {
			name = classes[c]
		}
		parts[c] = fmt.Sprintf("%s %.0f%%", name, 100*float64(n[c])/float64(max(1, s.Len())))
	}
	return strings.Join(parts, ", ")
}

// maxLeakLevels is the most distinct values (a missing value counting as one) that a
// feature column may take on the training split for leakWarnings to ask whether its
// values alone separate the label: beyond it, a column of many values (a number per row)
// separates any label trivially and says nothing.
const maxLeakLevels = 20

// leakWarnings names each feature column of d that alone predicts the label exactly on
// the training split: whether it is missing (a missing-value pattern), or its value when
// it takes at most maxLeakLevels distinct values there, determines Y on every training
// row, while Y takes more than one value. Such a column may leak the label (it was
// recorded because of the outcome, or after it): test accuracy and AUC of 1.000 then say
// nothing of the task. y names the label column, x the setting of the features.
func leakWarnings(d *Data, y, x string) []string {
	rows, labels := d.Rows[0], d.Splits.Train.Y
	var out []string
	seen := map[string]bool{}
	for _, f := range d.Encoder.Features {
		if seen[f.Column] {
			continue
		}
		seen[f.Column] = true
		c := d.Table.Column(f.Column)
		if c == nil || !c.Numeric && c.Codes == nil { // a text column of too many levels to code
			continue
		}
		missing := func(i int) bool {
			if c.Numeric {
				return math.IsNaN(c.Num[i])
			}
			return c.Codes[i] < 0
		}
		value := func(i int) string {
			switch {
			case missing(i):
				return "(missing)"
			case c.Numeric:
				return strconv.FormatFloat(c.Num[i], 'g', -1, 64)
			}
			return c.Levels[c.Codes[i]]
		}
		how, why := "by whether it is missing ", separates(rows, labels, func(i int) string {
			if missing(i) {
				return "missing"
			}
			return "present"
		})
		if why == "" {
			how, why = "", separates(rows, labels, value)
		}
		if why != "" {
			out = append(out, fmt.Sprintf("feature column %s alone predicts the label %s exactly on the training split %s(%s): it may leak the label (recorded because of the outcome, or after it), and a test accuracy or AUC of 1.000 would then say nothing; leave it out of %s unless it belongs there",
				f.Column, y, how, why, x))
		}
	}
	return out
}

// separates says how key separates the labels on rows (labels[j] the label of rows[j]):
// "missing → Y=1; present → Y=0" when key takes 2 to maxLeakLevels values, each with a
// single label, and the labels are not all one; "" otherwise.
func separates(rows []int, labels []float64, key func(int) string) string {
	label := map[string]float64{}
	var order []string
	ys := map[float64]bool{}
	for j, i := range rows {
		k := key(i)
		if l, ok := label[k]; ok && l != labels[j] {
			return ""
		} else if !ok {
			label[k] = labels[j]
			order = append(order, k)
			if len(order) > maxLeakLevels {
				return ""
			}
		}
		ys[labels[j]] = true
	}
	if len(order) < 2 || len(ys) < 2 {
		return ""
	}
	parts := make([]string, len(order))
	for n, k := range order {
		parts[n] = fmt.Sprintf("%s → Y=%v", k, label[k])
	}
	return strings.Join(parts, "; ")
}
