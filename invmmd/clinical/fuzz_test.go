package clinical

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestReadFLChainStrayQuote: a data line with a stray quote must be an error naming the file
// and the line, not a panic (the CSV reader's record has no fields after a parse error, so
// asking for a field's position there would panic).
func TestReadFLChainStrayQuote(t *testing.T) {
	in := flchainHead + flchainRow + `97,"F"x,1997,5.7,4.86,10,1.7,0,85,1,"Circulatory"` + "\n"
	_, err := readFLChain(strings.NewReader(in), "f.csv", DefaultGroupMinAge)
	if err == nil || !strings.Contains(err.Error(), "f.csv") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("error %v, want one naming f.csv and line 3", err)
	}
}

// FuzzReadFLChain feeds arbitrary bytes to the flchain reader. It must never panic; an
// error must name the file; a table it accepts must pass Table.Validate with features
// finite or NaN (creatinine only) and bounded, and Group equal to age ≥ 65 (feature 0).
func FuzzReadFLChain(f *testing.F) {
	for _, s := range []string{
		flchainHead + flchainRow,
		"\ufeff" + flchainHead + flchainRow + flchainRowNoCr,
		flchainHead,
		"",
		`"age","sex"` + "\n1,F\n",
		flchainHead + strings.Replace(flchainRow, `"F"`, `"X"`, 1),
		flchainHead + strings.Replace(flchainRow, "97,", "-1,", 1),
		flchainHead + strings.Replace(flchainRow, "5.7", "1e200", 1),
		flchainHead + strings.Replace(flchainRow, "5.7", "NaN", 1),
		flchainHead + strings.Replace(flchainRow, `,"Circulatory"`, "", 1),
		flchainHead + strings.Replace(flchainRow, `"F"`, `"F"x`, 1),
	} {
		f.Add([]byte(s))
	}
	crCol := 5
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := readFLChain(bytes.NewReader(data), "fuzz.csv", DefaultGroupMinAge)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if err := tab.Validate(); err != nil {
			t.Fatalf("accepted a table that does not validate: %v", err)
		}
		d := tab.Dim()
		for i := range tab.Len() {
			for j, v := range tab.X[i*d : (i+1)*d] {
				if (math.IsNaN(v) && j != crCol) || math.Abs(v) > maxNumeric {
					t.Fatalf("row %d column %s = %v", i, tab.Names[j], v)
				}
			}
			if tab.Group[i] != (tab.X[i*d] >= DefaultGroupMinAge) {
				t.Fatalf("row %d: group %v, age %v", i, tab.Group[i], tab.X[i*d])
			}
		}
	})
}
