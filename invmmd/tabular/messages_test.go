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

// TestMissingLogitNamesTheClassColumns: a column "logit" asked of a file with columns
// logit_CLASS (predict's output for a model of K classes) says to name them all,
// listing those present; other missing columns give no such hint.
func TestMissingLogitNamesTheClassColumns(t *testing.T) {
	for _, tc := range []struct {
		name, header, col, setting string
		want, lack                 string
	}{
		{"three classes", "y,z,p_a,logit_a,p_b,logit_b,p_c,logit_c,class", "logit", "-outputs", `no column named "logit" (-outputs); the columns are y, z, p_a, logit_a, p_b, logit_b, p_c, logit_c, class: a model of 3 classes writes logit_a,logit_b,logit_c: name them all, comma-separated (-outputs logit_a,logit_b,logit_c)`, ""},
		{"no setting", "y,logit_0,logit_1", "logit", "", `a model of 2 classes writes logit_0,logit_1: name them all, comma-separated (logit_0,logit_1)`, ""},
		{"no logit columns", "y,z,h", "logit", "-outputs", `no column named "logit" (-outputs); the columns are y, z, h`, "a model of"},
		{"one logit_ column", "y,z,logit_a", "logit", "-outputs", `no column named "logit"`, "a model of"},
		{"another name", "y,z,logit_a,logit_b", "score", "-outputs", `no column named "score"`, "a model of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := (&ColumnError{File: "s.csv", Name: tc.col, Setting: tc.setting, Header: strings.Split(tc.header, ",")}).Error()
			if !strings.Contains(msg, tc.want) || tc.lack != "" && strings.Contains(msg, tc.lack) {
				t.Errorf("%q\nwant one containing %q and not %q", msg, tc.want, tc.lack)
			}
		})
	}
}
