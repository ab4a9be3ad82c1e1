package tabular

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read, once for every column and once for the first
// column by name. Read must never panic; when it accepts the input, every selected column
// must have one value per row, Missing must count the missing rows, a numeric column must
// hold only finite numbers or NaN for missing, a categorical one only codes into Levels,
// and every row must have a line number past the header's. The seed corpus (a valid file,
// the package's test file and broken ones) runs under plain go test.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		good,
		"a,y,z\n1,0,1\n2,1,0\n",
		"a,y,z\n1,0,1\n2,1\n",           // ragged row
		"a,y,z\n",                       // header only
		"",                              // empty
		"a,a\n1,2\n",                    // duplicate column
		"a,,z\n1,2,3\n",                 // empty column name
		"a,y\n\"1\"x,0\n",               // stray quote
		"a,y\n1,Inf\n",                  // infinite value
		"a,y\n1,NA\n2,?\n3,null\n",      // missing tokens
		"\xEF\xBB\xBF\"a\r\nb\",y\n",    // BOM, quoted header with a line break, no rows
		"a\n1e400\n",                    // overflows to +Inf
		"a\nx\n1\n2\n",                  // numeric after a string
		"a,y\r1,no\r2,yes\r",            // CR alone ends the lines
		"\xFF\xFEa\x00,\x00y\x00\n\x00", // UTF-16 little-endian
		"\xFE\xFF\x00a\x00,\x00y\x00\n", // UTF-16 big-endian
		"\x1F\x8B\x08\x00\x00\x00",      // gzip
		"a,y\n1,caf\xe9\n",              // Latin-1
		"a,y\n1,b\x00\n",                // NUL
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Read(bytes.NewReader(data), "fuzz.csv", nil)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		checkTable(t, tab)
		if len(tab.Header) > 0 {
			one, err := Read(bytes.NewReader(data), "fuzz.csv", tab.Header[:1])
			if err != nil {
				t.Fatalf("all columns read, the first alone not: %v", err)
			}
			checkTable(t, one)
		}
	})
}

// checkTable checks the invariants FuzzRead states for an accepted table.
func checkTable(t *testing.T, tab *Table) {
	t.Helper()
	if tab.Len() == 0 {
		t.Fatalf("accepted a table with no rows")
	}
	for i, l := range tab.Lines {
		if l < 2 || i > 0 && l <= tab.Lines[i-1] {
			t.Fatalf("row %d at line %d (lines %v)", i, l, tab.Lines)
		}
	}
	for _, c := range tab.Columns {
		if c.Len() != tab.Len() {
			t.Fatalf("column %q has %d values for %d rows", c.Name, c.Len(), tab.Len())
		}
		missing := 0
		for i := range c.Len() {
			if c.IsMissing(i) {
				missing++
				if c.Value(i) != "" {
					t.Fatalf("column %q row %d: missing, but Value %q", c.Name, i, c.Value(i))
				}
				continue
			}
			if c.Numeric && math.IsInf(c.Num[i], 0) {
				t.Fatalf("column %q row %d: numeric value %v", c.Name, i, c.Num[i])
			}
			if !c.Numeric && (c.Codes[i] < 0 || int(c.Codes[i]) >= len(c.Levels)) {
				t.Fatalf("column %q row %d: code %d of %d levels", c.Name, i, c.Codes[i], len(c.Levels))
			}
		}
		if missing != c.Missing {
			t.Fatalf("column %q: %d missing rows, Missing says %d", c.Name, missing, c.Missing)
		}
	}
}
