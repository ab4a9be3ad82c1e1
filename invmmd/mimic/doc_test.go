package mimic

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
)

// interval renders an item's valid range, e.g. "(0, 300)" or "(0, 10000]".
func interval(it Item) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	hi := g(it.Max) + ")"
	if math.IsInf(it.Max, 1) {
		hi = "∞)"
	} else if it.MaxIncluded {
		hi = g(it.Max) + "]"
	}
	s := "(" + g(it.Min) + ", " + hi
	if it.Fahrenheit {
		s += " °F"
	}
	return s
}

func joinIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// variableTable is the package doc's table of the features, from the items tables in code:
// one row per variable and one for the GCS.
func variableTable() [][]string {
	rows := [][]string{{"variable", "table", "ITEMIDs", "valid values", "window", "vs mimic-code"}}
	cfg := Config{}
	for _, v := range variables {
		var ids []int
		var groups []string // one interval per run of items with the same range
		var groupIDs [][]int
		for _, it := range v.Items {
			ids = append(ids, it.ID)
			iv := interval(it)
			if n := len(groups); n > 0 && groups[n-1] == iv {
				groupIDs[n-1] = append(groupIDs[n-1], it.ID)
				continue
			}
			groups, groupIDs = append(groups, iv), append(groupIDs, []int{it.ID})
		}
		valid := groups[0]
		if len(groups) > 1 {
			parts := make([]string, len(groups))
			for i := range groups {
				parts[i] = joinIDs(groupIDs[i]) + ": " + groups[i]
			}
			valid = strings.Join(parts, "; ")
		}
		window := describeWindow(v.Window, cfg)
		if v.Source == Lab {
			window += ", same HADM_ID"
		}
		rows = append(rows, []string{v.Name + " (" + v.Unit + ")", v.Source.String(), joinIDs(ids), valid, window, comparison(v)})
	}
	var comps []string
	var ett []string
	for _, c := range []string{"motor", "verbal", "eyes"} {
		var ids []int
		for _, it := range gcsItems {
			if it.Component == c {
				ids = append(ids, it.ID)
				if it.Intubated != "" {
					ett = append(ett, fmt.Sprintf("%d %q", it.ID, it.Intubated))
				}
			}
		}
		comps = append(comps, c+" "+joinIDs(ids))
	}
	rows = append(rows, []string{"gcs_* (score)", Chart.String(), strings.Join(comps, "; "),
		"any; verbal VALUE " + strings.Join(ett, ", ") + " → 0", describeWindow(GCSWindow, cfg), "same as " + refGCS + " (+ gcs_missing)"})
	return rows
}

// docBlock renders the table as the package doc's preformatted block.
func docBlock(rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.WriteString("//\t" + strings.TrimRight(l, " ") + "\n")
	}
	return out.String()
}

// markdownTable renders the table for data/README.md.
func markdownTable(rows [][]string) string {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("| --- ", len(r)) + "|\n")
		}
	}
	return b.String()
}

// TestDocTable checks that the feature table of the package doc (doc.go) and of
// data/README.md is the one the items tables in code give, so that neither can drift.
func TestDocTable(t *testing.T) {
	rows := variableTable()
	for _, tc := range []struct {
		file, want string
	}{
		{"doc.go", docBlock(rows)},
		{filepath.Join("..", "..", "data", "README.md"), markdownTable(rows)},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s does not hold the feature table of the code; it should contain:\n%s", tc.file, tc.want)
		}
	}
}

// describeWindow renders the window for cfg (defaults filled in), e.g. "(INTIME, +24 h]".
func describeWindow(w Window, cfg Config) string {
	cfg = cfg.WithDefaults()
	end := fmt.Sprintf("+%g h]", cfg.FirstDayHours)
	switch w {
	case VitalsWindow:
		return "(INTIME, " + end
	case GCSWindow:
		return "[INTIME, " + end
	}
	if cfg.LabLeadHours == 0 {
		return "[INTIME, " + end
	}
	return fmt.Sprintf("[−%g h, %s", cfg.LabLeadHours, end)
}

// comparison says how the variable compares with its mimic-code file: the same rows,
// bounds and window; in parentheses the aggregates that file does not give.
func comparison(v Variable) string {
	if v.Source == Lab {
		return "same as " + v.Ref + " (+ mean, missing)"
	}
	return "same as " + v.Ref + " (+ missing)"
}
