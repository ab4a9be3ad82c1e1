package tabular

import (
	"strings"
	"testing"
)

// TestOneClassSaysTheClass: a label column with one value says the label has one class,
// naming that value as written in the file (not the 0/1 it was read as), and that there is
// nothing to compare.
func TestOneClassSaysTheClass(t *testing.T) {
	for _, tc := range []struct {
		name, csv, yPos string
		classes         bool // read with Classes (K classes) rather than as a binary label
		want            string
	}{
		{"-y-positive high, only high", "y,z\nhigh,1\nhigh,0\nhigh,1\n", "high", false, `column "y" (Y) has one class ("high" on every row): nothing to compare`},
		{"numeric, only 1", "y,z\n1,1\n1,0\n", "", false, `column "y" (Y) has one class ("1" on every row): nothing to compare`},
		{"numeric, only 0", "y,z\n0,1\n0,0\n", "", false, `column "y" (Y) has one class ("0" on every row): nothing to compare`},
		{"missing Z, only 1.0", "y,z\n1.0,\n1,0\n", "", false, `has one class ("1" on every row)`},
		{"K classes, only a", "y,z\na,1\na,0\n", "", true, `column "y" (Y) has one class ("a" on every row): nothing to compare`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Read(strings.NewReader(tc.csv), "one.csv", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.classes {
				_, _, err = tab.Classes("y", "Y")
			} else {
				_, _, _, err = tab.LabelsAndNuisance("y", tc.yPos, "z", "")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "only the value") {
				t.Errorf("error %v\nwant one containing %q", err, tc.want)
			}
		})
	}
}
