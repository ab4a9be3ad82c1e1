package tabular

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingMarkersInAnyCase: every spelling of a missing-value marker is missing (na was
// read as a level of a text Z while NA was missing), and messages quote the marker as the
// file wrote it (a NaN cell of h was reported as value "").
func TestMissingMarkersInAnyCase(t *testing.T) {
	tab := readString(t, "z,h\na,1\nb,2\nna,3\nNa,NaN\nN/A,nan\nnull,Nan\n?,4\n")
	z := tab.Column("z")
	if z.Numeric || len(z.Levels) != 2 || z.Missing != 5 {
		t.Errorf("z: levels %q, %d missing; want a, b and 5 missing", z.Levels, z.Missing)
	}
	h := tab.Column("h")
	if !h.Numeric || h.Missing != 3 {
		t.Errorf("h: numeric %v, %d missing; want numeric with 3 missing (NaN, nan, Nan)", h.Numeric, h.Missing)
	}
	for i, want := range []string{"a", "b", "na", "Na", "N/A", "null", "?"} {
		if got := z.Raw(i); got != want {
			t.Errorf("z row %d: Raw %q, want %q", i, got, want)
		}
	}
	if _, err := tab.Numbers("h", "H"); err == nil || !strings.Contains(err.Error(), `t.csv:5: column "h" (H): value "NaN" is missing`) {
		t.Errorf("a NaN cell of h: %v", err)
	}
	for _, v := range []string{"", "NA", "n/a", "NULL", "?", "nAn"} {
		if !IsMissingToken(v) {
			t.Errorf("IsMissingToken(%q) = false", v)
		}
	}
	for _, v := range []string{"none", "0", "nana", "N", "-"} {
		if IsMissingToken(v) {
			t.Errorf("IsMissingToken(%q) = true", v)
		}
	}
}

// TestOutOfRangeNumbers: a number beyond float64 (1e400) is out of range, not "not a
// number"; a model output or a continuous Z beyond ±MaxMagnitude is refused by its cell.
func TestOutOfRangeNumbers(t *testing.T) {
	_, err := Read(strings.NewReader("x,y\n1,0\n1e400,1\n2,0\n"), "t.csv", nil)
	if err == nil || !strings.Contains(err.Error(), `t.csv:3: column "x": value "1e400" is out of range`) || strings.Contains(err.Error(), "not a number") {
		t.Errorf("1e400: %v", err)
	}
	tab := readString(t, "h,y,z\n1,0,1e300\n2,1,0.5\n3,0,2\n4,1,\n")
	if _, err := tab.Numbers("z", "H"); err == nil || !strings.Contains(err.Error(), `t.csv:2: column "z" (H): value "1e+300" is beyond ±1e+150`) {
		t.Errorf("h of 1e300: %v", err)
	}
	if _, _, err := tab.Nuisance([]string{"z"}, 2, ""); err == nil || !strings.Contains(err.Error(), `t.csv:2: column "z" (Z): value "1e+300" is beyond`) {
		t.Errorf("a continuous Z of 1e300: %v", err)
	}
}

// TestNamesNameTheSettings: messages name each setting as Names says (the command line's
// flags), and by its key without Names.
func TestNamesNameTheSettings(t *testing.T) {
	tab := readString(t, "y,z\nyes,1\nno,0\n")
	_, err := tab.Binary("y", "", "Y")
	if err == nil || !strings.Contains(err.Error(), `column "y" (Y)`) || !strings.Contains(err.Error(), "name the positive one with YPositive") {
		t.Errorf("without Names: %v", err)
	}
	tab.Names = Names{"Y": "-y", "YPositive": "-y-positive"}
	_, err = tab.Binary("y", "", "Y")
	if err == nil || !strings.Contains(err.Error(), `column "y" (-y)`) || !strings.Contains(err.Error(), "name the positive one with -y-positive") {
		t.Errorf("with Names: %v", err)
	}
}

// TestParseColumns refuses a column listed twice (-z z,z was accepted) and an empty name.
func TestParseColumns(t *testing.T) {
	for in, want := range map[string]string{"z,z": `column "z" listed twice`, "a,,b": "column 2 of 3 is empty", "a,": "column 2 of 2 is empty", "": "no column named"} {
		if _, err := ParseColumns(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseColumns(%q): %v, want %q", in, err, want)
		}
	}
	if got, err := ParseColumns(" a, b "); err != nil || strings.Join(got, "|") != "a|b" {
		t.Errorf("ParseColumns(\" a, b \") = %q, %v", got, err)
	}
}

// TestTabSeparatedHint: a tab-separated file reads as one column; asking for a column says
// that the file looks tab-separated.
func TestTabSeparatedHint(t *testing.T) {
	_, err := Read(strings.NewReader("x\ty\tz\n1\t0\t1\n"), "t.tsv", []string{"y"})
	var ce *ColumnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "the file looks tab-separated") {
		t.Errorf("a TSV: %v", err)
	}
	if _, err := Read(strings.NewReader("x,y\n1,0\n"), "t.csv", []string{"w"}); err == nil || strings.Contains(err.Error(), "separated") {
		t.Errorf("a CSV without the column: %v", err)
	}
}

// TestRowNumbers: a numeric column of row numbers is recognised (1..n, or rising ids
// with gaps), other integer columns are not.
func TestRowNumbers(t *testing.T) {
	mk := func(f func(i int) float64) *Column {
		v := make([]float64, 40)
		for i := range v {
			v[i] = f(i)
		}
		tab, err := NewTable("t", NumberColumn("c", v))
		if err != nil {
			t.Fatal(err)
		}
		return tab.Column("c")
	}
	for name, tc := range map[string]struct {
		f    func(i int) float64
		want string
	}{
		"1..n":             {func(i int) float64 { return float64(i + 1) }, "the integers 1 to 40, each once"},
		"shuffled 0..n-1":  {func(i int) float64 { return float64((i * 7) % 40) }, "the integers 0 to 39, each once"},
		"rising with gaps": {func(i int) float64 { return float64(1000 + 3*i + i%2) }, "rising with every row"},
		"falling":          {func(i int) float64 { return float64(500 - 5*i) }, "falling with every row"},
		"repeats":          {func(i int) float64 { return float64(i % 30) }, ""},
		"not integers":     {func(i int) float64 { return float64(i) + 0.5 }, ""},
		"scattered":        {func(i int) float64 { return float64((i * 37) % 101) }, ""},
	} {
		if got := mk(tc.f).RowNumbers(); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: RowNumbers %q, want %q", name, got, tc.want)
		}
	}
	short := readString(t, "id,y\n1,0\n2,1\n3,0\n")
	if got := short.Column("id").RowNumbers(); got != "" {
		t.Errorf("3 rows: %q, want none (too few to tell)", got)
	}
}

// TestNewTableReadsAsAFile: a table built in memory is typed, checked and hashed as the same
// table read from a CSV file.
func TestNewTableReadsAsAFile(t *testing.T) {
	mem, err := NewTable("mem", NumberColumn("x", []float64{1.5, math.NaN(), 3}), TextColumn("g", []string{"a", "NA", "b"}), TextColumn("n", []string{"1", "2", ""}))
	if err != nil {
		t.Fatal(err)
	}
	if mem.Column("g").Numeric || !mem.Column("n").Numeric || mem.Column("x").Missing != 1 || mem.Lines[2] != 4 {
		t.Errorf("types or lines: g numeric %v, n numeric %v, x missing %d, lines %v", mem.Column("g").Numeric, mem.Column("n").Numeric, mem.Column("x").Missing, mem.Lines)
	}
	same := readString(t, "x,g,n\n1.5,a,1\nNA,NA,2\n3,b,\n")
	if mem.Digest() != same.Digest() {
		t.Errorf("the same values in memory and in a file hash differently")
	}
	flipped := readString(t, "x,g,n\n1.5,a,1\nNA,NA,2\n3,a,\n")
	if flipped.Digest() == same.Digest() {
		t.Errorf("a changed value keeps the digest")
	}
	for _, tc := range []struct {
		cols []Col
		want string
	}{
		{[]Col{NumberColumn("x", []float64{1, 2}), NumberColumn("y", []float64{1})}, `column "y" has 1 rows, column "x" has 2`},
		{[]Col{NumberColumn("x", []float64{1, math.Inf(1)})}, `mem:3: column "x": value +Inf is infinite`},
		{[]Col{NumberColumn("x", []float64{1}), NumberColumn("x", []float64{2})}, `column name "x" appears twice`},
		{[]Col{{Name: "x"}}, "give its numbers or its text"},
		{nil, "no column"},
	} {
		if _, err := NewTable("mem", tc.cols...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewTable: %v, want %q", err, tc.want)
		}
	}
}

// TestReadRecordsAndContext: ReadRecords gives the cells as written with the lines Read
// gives, and a read stops with the context's error once it is done.
func TestReadRecordsAndContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, []byte("\xEF\xBB\xBFa,b\n 1.50 ,NA\n\"x,y\",2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := ReadRecords(path, []string{"b", "a"}, func(line int, cells []string) error {
		got = append(got, strings.Join(append([]string{string(rune('0' + line))}, cells...), "|"))
		return nil
	})
	if err != nil || strings.Join(got, ";") != "2|NA| 1.50 ;3|2|x,y" {
		t.Errorf("ReadRecords: %q, %v", got, err)
	}
	if err := ReadRecords(path, []string{"c"}, nil); err == nil || !strings.Contains(err.Error(), `no column named "c"`) {
		t.Errorf("a missing column: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFileContext(ctx, path, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
}
