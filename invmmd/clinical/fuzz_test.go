package clinical

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// nmesHead is the header of the NMES1988 CSV that scripts/data/nmes.sh writes.
const nmesHead = `"visits","nvisits","ovisits","novisits","emergency","hospital","health","chronic","adl","region","age","afam","gender","married","school","income","employed","insurance","medicaid"` + "\n"

// nmesRow is the first data line of that file.
const nmesRow = `5,0,0,0,0,1,"average",2,"normal","other",6.9,"yes","male","yes",6,2.881,"yes","yes","no"` + "\n"

// TestReadNMESStrayQuote is the regression test of a crash FuzzReadNMES found: a data line
// with a stray quote made readNMES ask the CSV reader for the line of a record it had not
// returned, which panics. It must be an error naming the file and the line.
func TestReadNMESStrayQuote(t *testing.T) {
	in := nmesHead + nmesRow + `5,0,0,0,0,1,"average"x,2,"normal","other",6.9,"yes","male","yes",6,2.881,"yes","yes","no"` + "\n"
	_, err := readNMES(strings.NewReader(in), "n.csv", DefaultVisitsThreshold)
	if err == nil || !strings.Contains(err.Error(), "n.csv") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("error %v, want one naming n.csv and line 3", err)
	}
}

// FuzzReadNMES feeds arbitrary bytes to the NMES1988 reader. It must never panic, and a
// table it accepts must pass Table.Validate with finite features and, per row, Male equal
// to the gender column (feature 10).
func FuzzReadNMES(f *testing.F) {
	for _, s := range []string{
		nmesHead + nmesRow,
		"\ufeff" + nmesHead + nmesRow + nmesRow,
		nmesHead,
		"",
		`"visits","age"` + "\n1,2\n",
		nmesHead + strings.Replace(nmesRow, `"average"`, `"great"`, 1),
		nmesHead + strings.Replace(nmesRow, "5,", "-1,", 1),
		nmesHead + strings.Replace(nmesRow, "6.9", "1e200", 1),
		nmesHead + strings.Replace(nmesRow, "6.9", "NaN", 1),
		nmesHead + strings.Replace(nmesRow, `"no"`+"\n", "\n", 1),
		nmesHead + strings.Replace(nmesRow, `"average"`, `"average"x`, 1),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := readNMES(bytes.NewReader(data), "fuzz.csv", DefaultVisitsThreshold)
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
				if math.IsNaN(v) || math.Abs(v) > maxNumeric {
					t.Fatalf("row %d column %s = %v", i, tab.Names[j], v)
				}
			}
			if tab.Male[i] != (tab.X[i*d+10] == 1) {
				t.Fatalf("row %d: Male %v, gender feature %v", i, tab.Male[i], tab.X[i*d+10])
			}
		}
	})
}
