package tabular

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const good = "\xEF\xBB\xBFage,sex,\"y\",z\r\n" +
	"31,\"F\",yes,1\r\n" +
	"45,M,no,\r\n" +
	"\"27\",F,no,0\r\n" +
	"52,\"M, retired\",yes,NA\r\n" +
	"60,M,yes,0\r\n" +
	"38,F,no,1\r\n"

func TestReadAcceptsBOMCRLFQuotes(t *testing.T) {
	tab, err := Read(strings.NewReader(good), "good.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 6 || tab.Header[0] != "age" || tab.Header[2] != "y" {
		t.Fatalf("rows %d, header %q", tab.Len(), tab.Header)
	}
	age, sex, z := tab.Column("age"), tab.Column("sex"), tab.Column("z")
	if !age.Numeric || age.Num[2] != 27 || sex.Numeric || sex.Value(3) != "M, retired" || z.Missing != 2 || !z.Numeric {
		t.Errorf("age %+v sex %+v z %+v", age, sex, z)
	}
	if tab.Lines[0] != 2 || tab.Lines[5] != 7 {
		t.Errorf("lines %v, want 2..7", tab.Lines)
	}
	y, zz, delta, err := tab.LabelsAndNuisance("y", "yes", "z", "")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(y) != "[1 0 0 1 1 0]" || !math.IsNaN(zz[1]) || fmt.Sprint(delta) != "[1 0 1 0 1 1]" {
		t.Errorf("y %v z %v Δ %v", y, zz, delta)
	}
}

// TestBadInput checks that each malformed input gives an error naming the file, the line
// (where there is one), the column and the value.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, csv  string
		y, yPos, z string
		want       []string
	}{
		{"empty file", "", "y", "", "z", []string{"bad.csv: empty file"}},
		{"header only", "a,y,z\n", "y", "", "z", []string{"bad.csv: a header but no data rows"}},
		{"ragged row", "a,y,z\n1,0,1\n2,1\n", "y", "", "z", []string{"bad.csv:3: 2 fields, the header has 3"}},
		{"string labels without -y-positive", "a,y,z\n1,yes,1\n2,no,0\n", "y", "", "z", []string{"bad.csv:2", `column "y" (Y)`, `value "yes"`, "values are no, yes", "YPositive"}},
		{"-y-positive not a value", "a,y,z\n1,yes,1\n2,no,0\n", "y", "ja", "z", []string{`no value "ja"`, "values seen are no, yes"}},
		{"non-binary Z", "a,y,z\n1,0,1\n2,1,2\n3,1,0\n", "y", "", "z", []string{"bad.csv:3", `column "z" (Z)`, `value "2"`}},
		{"three-valued label", "a,y,z\n1,a,1\n2,b,0\n3,c,0\n", "y", "a", "z", []string{`bad.csv:4: column "y" (Y) is not binary: value "c" is a third value; values seen a, b, c`}},
		{"all Z missing", "a,y,z\n1,0,\n2,1,NA\n", "y", "", "z", []string{`column "z" (Z) is missing in all 2 rows`}},
		{"one class", "a,y,z\n1,1,1\n2,1,0\n", "y", "", "z", []string{`has one class ("1" on every row): nothing to compare`}},
		{"empty cell", "a,y,z\n1,0,1\n2,0,1\n3,1,0\n4,1,1\n5,0,\n", "y", "", "z", []string{"no row with y = 0 and z = 0 observed", "Y=0,Z=0: 0"}},
		{"missing label", "a,y,z\n1,0,1\n2,,0\n", "y", "", "z", []string{"bad.csv:3", "the label is missing"}},
		{"no such column", "a,y,z\n1,0,1\n", "y", "", "nuisance", []string{`no column named "nuisance"`, "the columns are a, y, z"}},
		{"Inf feature", "a,y,z\n1,0,1\nInf,1,0\n", "y", "", "z", []string{"bad.csv:3", `column "a"`, `value "Inf" is infinite`}},
		{"duplicate header", "a,a,z\n1,0,1\n", "a", "", "z", []string{`column name "a" appears twice`}},
		{"bare quote", "a,y,z\n1,0,\"1\n", "y", "", "z", []string{"bad.csv", "line 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Read(strings.NewReader(tc.csv), "bad.csv", nil)
			if err == nil {
				_, _, _, err = tab.LabelsAndNuisance(tc.y, tc.yPos, tc.z, "")
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEncoder(t *testing.T) {
	tab, err := Read(strings.NewReader("x,c,y,z\n1,a,0,1\n3,b,1,0\n,a,0,0\n5,c,1,1\n"), "e.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, warn, err := FitEncoder(tab, []string{"x", "c"}, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(enc.Names(), " "); got != "x x=missing c=a c=b" {
		t.Errorf("names %q", got)
	}
	if len(warn) != 1 || !strings.Contains(warn[0], `column "x": 1 missing value(s) replaced by the training mean`) {
		t.Errorf("warnings %q", warn)
	}
	x, warn, err := enc.Encode(tab, []int{0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	// Training x: 1, 3 → mean 2, sd 1. Row 3 has level c, unseen in training.
	want := []float32{-1, 0, 1, 0, 0, 1, 1, 0, 3, 0, 0, 0}
	if fmt.Sprint(x) != fmt.Sprint(want) {
		t.Errorf("encoded %v, want %v", x, want)
	}
	if len(warn) != 1 || !strings.Contains(warn[0], "1 value(s) not seen in training") {
		t.Errorf("warnings %q", warn)
	}
}

func TestBuildSplits(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y,z,part\n")
	for i := 0; i < 200; i++ {
		z := fmt.Sprint((i / 2) % 2)
		if i%5 == 0 {
			z = ""
		}
		part := [...]string{"train", "train", "train", "val", "test"}[i%5]
		fmt.Fprintf(&b, "%d,%d,%s,%s\n", (i*37)%101, i%2, z, part)
	}
	tab, err := Read(strings.NewReader(b.String()), "s.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []Spec{
		{Y: "y", Z: "z", X: []string{"x"}, Split: "part"},
		{Y: "y", Z: "z", X: []string{"x"}, ValFrac: 0.2, TestFrac: 0.2, Seed: 3},
	} {
		d, err := Build(tab, spec)
		if err != nil {
			t.Fatal(err)
		}
		n := [3]int{d.Splits.Train.Len(), d.Splits.Val.Len(), d.Splits.Test.Len()}
		if n != [3]int{120, 40, 40} {
			t.Errorf("%+v: split sizes %v, want [120 40 40]", spec, n)
		}
		if d.Splits.Train.ZKnown() {
			t.Errorf("train Z has no NaN")
		}
		mean := 0.0
		for _, v := range d.Splits.Train.X {
			mean += float64(v)
		}
		if math.Abs(mean/120) > 1e-5 {
			t.Errorf("training feature mean %v, want 0 (standardised on train)", mean/120)
		}
	}
	if _, err := Build(tab, Spec{Y: "y", Z: "z", Split: "x"}); err == nil || !strings.Contains(err.Error(), `s.csv:2: column "x" (Split): value "0"`) {
		t.Errorf("bad split column: %v", err)
	}
	if _, err := Build(tab, Spec{Y: "y", Z: "z", ValFrac: 0.6, TestFrac: 0.5}); err == nil || !strings.Contains(err.Error(), "sum < 1") {
		t.Errorf("bad fractions: %v", err)
	}
}

// TestMillionRowsBoundedMemory writes a 10⁶-row CSV with six columns, reads three of them
// and samples the heap while reading: the peak stays within a small multiple of what the
// three columns retain (8 bytes per value), far below the file's size as Go strings.
func TestMillionRowsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 10⁶-row file")
	}
	const n = 1_000_000
	path := filepath.Join(t.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id,note,x1,x2,y,z")
	for i := 0; i < n; i++ {
		z := fmt.Sprint(i % 2)
		if i%3 == 0 {
			z = ""
		}
		fmt.Fprintf(w, "%d,\"row %d, free text that is not read\",%g,%g,%d,%s\n", i, i, float64(i)*0.001, float64(i%97)/7, (i/2)%2, z)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	tab, err := ReadFile(path, []string{"x1", "y", "z"})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != n || tab.Column("z").Missing != (n+2)/3 {
		t.Fatalf("read %d rows, %d missing z", tab.Len(), tab.Column("z").Missing)
	}
	retained := float64(n * (3*8 + 4)) // three float64 columns and the line numbers
	grown := float64(peak.Load()) - float64(base.HeapAlloc)
	t.Logf("file %.1f MB; retained %.1f MB; peak heap growth while reading %.1f MB", float64(st.Size())/1e6, retained/1e6, grown/1e6)
	if grown > 4*retained {
		t.Errorf("peak heap grew by %.1f MB, more than 4× the %.1f MB the columns need", grown/1e6, retained/1e6)
	}
}

// TestManyDistinctValues checks that a numeric column with more than MaxLevels distinct
// values stays aligned with its rows, and that a text column with as many is refused.
func TestManyDistinctValues(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,id\n")
	n := MaxLevels + 500
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d.5,id%d\n", i, i)
	}
	tab, err := Read(strings.NewReader(b.String()), "many.csv", []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	x := tab.Column("x")
	if len(x.Num) != n {
		t.Fatalf("%d values for %d rows", len(x.Num), n)
	}
	for i, v := range x.Num {
		if v != float64(i)+0.5 {
			t.Fatalf("row %d: x = %v, want %v", i, v, float64(i)+0.5)
		}
	}
	_, err = Read(strings.NewReader(b.String()), "many.csv", []string{"id"})
	if err == nil || !strings.Contains(err.Error(), `many.csv:2: column "id": value "id0"`) || !strings.Contains(err.Error(), "more than 1000 distinct") {
		t.Errorf("text column with %d distinct values: error %v", n, err)
	}
}

// TestNaNFeatureIsMissing checks that a literal NaN (or NA) in a feature column is read as
// a missing value, which the encoder then imputes with a warning, while Inf is an error
// (TestBadInput).
func TestNaNFeatureIsMissing(t *testing.T) {
	tab, err := Read(strings.NewReader("a,y,z\nNaN,0,1\n2,1,0\nNA,0,0\n4,1,1\n"), "n.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := tab.Column("a"); !a.Numeric || a.Missing != 2 || !math.IsNaN(a.Num[0]) || a.Num[1] != 2 {
		t.Fatalf("column a: %+v", a)
	}
	_, warn, err := FitEncoder(tab, []string{"a"}, []int{0, 1, 2, 3})
	if err != nil || len(warn) != 1 || !strings.Contains(warn[0], `column "a": 2 missing value(s) replaced by the training mean`) {
		t.Errorf("warnings %q, error %v", warn, err)
	}
}

// TestColumnTypingIsDecidedFromTheWholeFile: a numeric column with one typo is an error
// naming the file, line, column and value, in a small file and a large one alike (the
// rule does not depend on the file's size); a column of mostly text is categorical.
func TestColumnTypingIsDecidedFromTheWholeFile(t *testing.T) {
	for _, n := range []int{300, 5000} {
		var b strings.Builder
		b.WriteString("x,y\n")
		for i := 0; i < n; i++ {
			v := fmt.Sprintf("%.3f", float64(i)*0.37)
			if i == 3 {
				v = "abc"
			}
			fmt.Fprintf(&b, "%s,%d\n", v, i%2)
		}
		_, err := Read(strings.NewReader(b.String()), "typo.csv", nil)
		if err == nil || !strings.Contains(err.Error(), `typo.csv:5: column "x": value "abc" is not a number`) {
			t.Errorf("%d rows, one typo at line 5: error %v", n, err)
		}
	}
	tab, err := Read(strings.NewReader("c,y\n1,0\nred,1\nblue,0\n2,1\n"), "cat.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Column("c"); c.Numeric || strings.Join(c.Levels, " ") != "1 red blue 2" {
		t.Errorf("mostly-text column: numeric %v, levels %q; want categorical in order of appearance", c.Numeric, c.Levels)
	}
	if _, err := Read(strings.NewReader("c,y\n1,0\nInf,1\n"), "inf.csv", nil); err == nil || !strings.Contains(err.Error(), `inf.csv:3: column "c": value "Inf" is infinite`) {
		t.Errorf("Inf in a numeric column: %v", err)
	}
}

// TestIdentifierColumnRefusedByDefault: a string column with one level per row is refused
// as a default feature, naming it, and encoded when named in -x.
func TestIdentifierColumnRefusedByDefault(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,x,y,z\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "patient-%d,%d,%d,%d\n", i, i%7, i%2, (i/2)%2)
	}
	tab, err := Read(strings.NewReader(b.String()), "ids.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Y: "y", Z: "z", ValFrac: 0.2, TestFrac: 0.2, Seed: 1}
	if _, err := Build(tab, spec); err == nil || !strings.Contains(err.Error(), `column "id" has 300 distinct values in 300 rows`) || !strings.Contains(err.Error(), "X") {
		t.Errorf("identifier under the default -x: %v", err)
	}
	spec.X = []string{"id", "x"}
	if d, err := Build(tab, spec); err != nil || d.Encoder.Dim() < 100 {
		t.Errorf("identifier named in -x: %v", err)
	}
}

// TestFeatureListRefusals: -x naming a column twice, or the split column, is an error.
func TestFeatureListRefusals(t *testing.T) {
	tab, err := Read(strings.NewReader("x,y,z,part\n1,0,1,train\n2,1,0,val\n3,0,0,test\n"), "f.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Y: "y", Z: "z", X: []string{"x", "x"}, Split: "part"}, `column "x" is listed twice in X`},
		{Spec{Y: "y", Z: "z", X: []string{"x", "part"}, Split: "part"}, `column "part" is both a feature (X) and the split column (Split)`},
		{Spec{Y: "y", Z: "z", X: []string{"x", "y"}, Split: "part"}, `column "y" is both a feature (X) and the label (Y)`},
	} {
		if _, err := Build(tab, tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestStandardisationIsNumericallySafe: the spread of a column is right whatever its
// mean's size (a large offset used to cancel every digit of the spread), and values up to
// 1e200 encode to finite inputs.
func TestStandardisationIsNumericallySafe(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name      string
		x         func() float64
		mean, std float64
	}{
		{"1e11 + 1000·N(0,1)", func() float64 { return 1e11 + 1000*rng.NormFloat64() }, 1e11, 1000},
		{"1e9 + N(0,1)", func() float64 { return 1e9 + rng.NormFloat64() }, 1e9, 1},
		{"1e200·N(0,1)", func() float64 { return 1e200 * rng.NormFloat64() }, 0, 1e200},
	} {
		var b strings.Builder
		b.WriteString("x,y,z\n")
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(&b, "%s,%d,%d\n", strconv.FormatFloat(tc.x(), 'g', -1, 64), i%2, (i/2)%2)
		}
		tab, err := Read(strings.NewReader(b.String()), "big.csv", nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]int, tab.Len())
		for i := range rows {
			rows[i] = i
		}
		enc, warn, err := FitEncoder(tab, []string{"x"}, rows)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f := enc.Features[0]
		if len(warn) > 0 || math.Abs(f.Std/tc.std-1) > 0.1 || math.Abs(f.Mean-tc.mean) > 0.2*tc.std {
			t.Errorf("%s: mean %g, sd %g (warnings %q); want mean ≈ %g, sd ≈ %g", tc.name, f.Mean, f.Std, warn, tc.mean, tc.std)
		}
		x, _, err := enc.Encode(tab, rows)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, v := range x {
			if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 6 {
				t.Fatalf("%s: row %d encoded as %v, want a standardised value", tc.name, i, v)
			}
		}
	}
	// A value too far from the training values to encode names its line and column.
	tab, _ := Read(strings.NewReader("x,y,z\n1,0,1\n2,1,0\n1e300,1,1\n"), "far.csv", nil)
	enc, _, _ := FitEncoder(tab, []string{"x"}, []int{0, 1})
	if _, _, err := enc.Encode(tab, []int{0, 1, 2}); err == nil || !strings.Contains(err.Error(), `far.csv:4: column "x": value "1e+300" is too far`) {
		t.Errorf("1e300 against a training sd of 0.5: %v", err)
	}
}

// TestEncodeNamesTheCellThatIsNotANumber: a column the model read as numeric that is
// text in new data is reported at the first cell that does not parse, not at row 1.
func TestEncodeNamesTheCellThatIsNotANumber(t *testing.T) {
	train, _ := Read(strings.NewReader("x,y,z\n1,0,1\n2,1,0\n"), "t.csv", nil)
	enc, _, _ := FitEncoder(train, []string{"x"}, []int{0, 1})
	tab, err := Read(strings.NewReader("x\n1.5\n2.5\nabc\ndef\n"), "new.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := enc.Encode(tab, []int{0, 1, 2, 3}); err == nil || !strings.Contains(err.Error(), `new.csv:4: column "x": value "abc", want a number`) {
		t.Errorf("error %v, want line 4 and abc", err)
	}
}

// TestReadRefusesOtherEncodings: a file that is not UTF-8 text with LF or CRLF line ends
// (CR alone, UTF-16 with either byte-order mark, gzip, Latin-1 bytes, NUL bytes) is an
// error naming the file and what to do, and the line for a cell's bytes, rather than an
// error about something else or new category levels.
func TestReadRefusesOtherEncodings(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	utf16 := func(s string, big bool) string {
		var b []byte
		if big {
			b = []byte{0xFE, 0xFF}
		} else {
			b = []byte{0xFF, 0xFE}
		}
		for _, r := range s {
			if big {
				b = append(b, 0, byte(r))
			} else {
				b = append(b, byte(r), 0)
			}
		}
		return string(b)
	}
	const plain = "x,y,z\n1,no,a\n2,yes,b\n3,no,a\n"
	for _, tc := range []struct {
		name, data string
		want       []string // "" for accepted
	}{
		{"LF", plain, nil},
		{"CRLF", strings.ReplaceAll(plain, "\n", "\r\n"), nil},
		{"CR alone", strings.ReplaceAll(plain, "\n", "\r"), []string{"f.csv: lines end with CR alone", "LF or CRLF"}},
		{"UTF-16 little-endian", utf16(plain, false), []string{"f.csv: UTF-16 text (byte-order mark FF FE)", "UTF-8"}},
		{"UTF-16 big-endian", utf16(plain, true), []string{"f.csv: UTF-16 text (byte-order mark FE FF)", "UTF-8"}},
		{"gzip", gz(plain), []string{"f.csv: a gzip-compressed file", "gunzip f.csv"}},
		{"Latin-1", "x,y,z\n1,no,caf\xe9\n2,yes,b\n", []string{`f.csv:2: column "z": byte 0xe9`, "not UTF-8", "UTF-8 CSV"}},
		{"Latin-1 header", "x,y,z\xe9\n1,no,a\n", []string{"f.csv:1: byte 0xe9", "not UTF-8"}},
		{"NUL", "x,y,z\n1,no,a\n2,yes,b\x00\n", []string{`f.csv:3: column "z": a NUL byte`, "UTF-8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.data), "f.csv", nil)
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
		})
	}
}
