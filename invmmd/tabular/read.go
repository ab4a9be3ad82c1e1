// Package tabular reads a researcher's own table from a CSV file and turns it into the
// splits the estimators and the trainer consume: a label Y (binary, or of K > 2 classes),
// a nuisance Z that may be missing (an empty cell, NA, NaN...), and features X, with string
// columns one-hot encoded and numeric ones standardised on the training split.
//
// Reading streams the file record by record (encoding/csv with ReuseRecord) and keeps only
// the columns asked for, as float64 or as small integer codes, so memory grows with the
// rows times the selected columns, not with the file's text. Every error names the file,
// the line and the column.
package tabular

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// MaxLevels is the most distinct values a non-numeric column may have: beyond it the
// column is neither numeric nor a category (e.g. free text or identifiers), and reading
// stops with an error rather than one-hot encode thousands of columns.
const MaxLevels = 1000

// NumericShare is the share of a column's present cells that must parse as numbers for
// the column to be meant numeric: a column where at least this share parses and some
// cells do not is a numeric column with typos, and reading it is an error naming the
// first such cell; below it the column is categorical. The rule looks at shares, not at
// the number of rows or of distinct values, so a file's size does not change it.
const NumericShare = 0.9

// Identifier thresholds: a categorical column with more than IdentifierLevels levels and
// more levels than half its present cells has about one level per row (an identifier, a
// free-text note); Build refuses it as a default feature (Column.Identifier).
const IdentifierLevels = 20

// missingTokens are the cell values read as missing, whatever the column's type.
var missingTokens = map[string]bool{"": true, "NA": true, "N/A": true, "NaN": true, "nan": true, "NAN": true, "null": true, "NULL": true, "?": true}

// Column is one column of a Table: numeric (Num) or categorical (Codes into Levels). Its
// type is decided once, from every cell of the file, by decide (see Read).
type Column struct {
	Name    string
	Numeric bool      // every present value parsed as a finite number
	Num     []float64 // numeric columns: the values, NaN where missing
	Codes   []int32   // categorical columns: index into Levels, −1 where missing
	Levels  []string  // categorical columns: distinct values in order of first appearance
	Missing int       // rows where the value is missing
	index   int       // field index in the file
	levels  map[string]int32
	tooMany bool // more than MaxLevels distinct values seen (their codes are dropped)
	// parsed and unparsed count the present cells that parse as numbers and those that
	// do not; firstText is the first that does not, firstInf the first infinite number.
	parsed, unparsed    int
	firstText, firstInf cell
}

// cell is a value and its file line, kept for messages.
type cell struct {
	line  int
	value string
}

// ColumnError reports a column asked for that the file's header lacks. Callers that know
// which flag named the column fill in Flag.
type ColumnError struct {
	File, Name, Flag string
	Header           []string
}

func (e *ColumnError) Error() string {
	flag := ""
	if e.Flag != "" {
		flag = " (" + e.Flag + ")"
	}
	return fmt.Sprintf("%s: no column named %q%s; the columns are %s", e.File, e.Name, flag, strings.Join(e.Header, ", "))
}

// Table is the selected columns of a CSV file.
type Table struct {
	File    string    // file name, for messages
	Header  []string  // every column name of the file, in order
	Columns []*Column // the selected columns, in the order asked for
	Lines   []int32   // the file line of each row (1-based; the header is line 1)
}

// Len returns the number of data rows.
func (t *Table) Len() int { return len(t.Lines) }

// Column returns the selected column named name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Pos names row i's place in the file for messages: "FILE:LINE".
func (t *Table) Pos(i int) string { return fmt.Sprintf("%s:%d", t.File, t.Lines[i]) }

// Value returns row i of column c as the file wrote it ("" when missing).
func (c *Column) Value(i int) string {
	if c.Numeric {
		if math.IsNaN(c.Num[i]) {
			return ""
		}
		return strconv.FormatFloat(c.Num[i], 'g', -1, 64)
	}
	if c.Codes[i] < 0 {
		return ""
	}
	return c.Levels[c.Codes[i]]
}

// IsMissing reports whether row i of column c is missing.
func (c *Column) IsMissing(i int) bool {
	if c.Numeric {
		return math.IsNaN(c.Num[i])
	}
	return c.Codes[i] < 0
}

// ReadFile reads the named columns of a CSV file (all columns when names is empty).
func ReadFile(path string, names []string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tabular: %w", err)
	}
	defer f.Close()
	return Read(f, path, names)
}

// Read reads the named columns (all when names is empty) of CSV data from r; file names
// the source in messages. The first record is the header. A UTF-8 byte-order mark, CRLF
// line ends and quoted fields are accepted. Cells that are empty, NA, N/A, NaN, null or ?
// are missing. A column's type is decided from all its cells (Column.decide): numeric when
// every present value parses as a number (±Inf in it is an error), an error naming the
// cell when a few values of an otherwise numeric column do not parse (NumericShare), and
// categorical otherwise (at most MaxLevels distinct values).
func Read(r io.Reader, file string, names []string) (*Table, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, want a header line naming the columns", file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	t := &Table{File: file, Header: append([]string(nil), header...)}
	seen := map[string]int{}
	for k, h := range t.Header {
		h = strings.TrimSpace(h)
		t.Header[k] = h
		if h == "" {
			return nil, fmt.Errorf("%s:1: column %d has an empty name", file, k+1)
		}
		if j, dup := seen[h]; dup {
			return nil, fmt.Errorf("%s:1: column name %q appears twice (columns %d and %d)", file, h, j+1, k+1)
		}
		seen[h] = k
	}
	if len(names) == 0 {
		names = t.Header
	}
	for _, n := range names {
		k, ok := seen[n]
		if !ok {
			return nil, &ColumnError{File: file, Name: n, Header: t.Header}
		}
		t.Columns = append(t.Columns, &Column{Name: n, index: k, levels: map[string]int32{}})
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", file, pe.StartLine, len(rec), len(t.Header))
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		t.Lines = append(t.Lines, int32(line))
		for _, c := range t.Columns {
			c.add(strings.TrimSpace(rec[c.index]), line)
		}
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("%s: a header but no data rows", file)
	}
	for _, c := range t.Columns {
		if err := c.decide(file); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// add appends one cell, keeping both the numeric reading and the categorical codes:
// the column's type is decided when the whole file has been read (decide).
func (c *Column) add(v string, line int) {
	if missingTokens[v] {
		c.Missing++
		c.Num = append(c.Num, math.NaN())
		if !c.tooMany {
			c.Codes = append(c.Codes, -1)
		}
		return
	}
	x, err := strconv.ParseFloat(v, 64)
	switch {
	case err == nil:
		if math.IsInf(x, 0) && c.firstInf.line == 0 {
			c.firstInf = cell{line, v}
		}
		c.parsed++
		c.Num = append(c.Num, x)
	default:
		if c.unparsed == 0 {
			c.firstText = cell{line, v}
		}
		c.unparsed++
		c.Num = append(c.Num, math.NaN())
	}
	if c.tooMany {
		return
	}
	code, ok := c.levels[v]
	if !ok {
		if len(c.Levels) == MaxLevels {
			c.tooMany, c.Codes, c.Levels, c.levels = true, nil, nil, nil
			return
		}
		code = int32(len(c.Levels))
		c.levels[v] = code
		c.Levels = append(c.Levels, v)
	}
	c.Codes = append(c.Codes, code)
}

// decide settles the column's type from all its cells and drops the representation it
// does not use. It is the one place where a column's type is decided:
//
//   - numeric when every present cell parses as a number (an infinite one is an error);
//   - an error naming the first cell that does not parse when at least NumericShare of
//     the present cells do (a numeric column with a typo);
//   - an error when the column is not numeric and has more than MaxLevels distinct
//     values (free text or identifiers);
//   - categorical otherwise, with Levels in order of first appearance.
//
// Later code asks a decided column what it is through Numeric, Levels and Identifier.
func (c *Column) decide(file string) error {
	c.levels = nil
	present := c.parsed + c.unparsed
	switch {
	case c.unparsed == 0:
		if c.firstInf.line > 0 {
			return fmt.Errorf("%s:%d: column %q: value %q is infinite, want a finite number or an empty cell for missing", file, c.firstInf.line, c.Name, c.firstInf.value)
		}
		c.Numeric, c.Codes, c.Levels = true, nil, nil
		return nil
	case float64(c.parsed) >= NumericShare*float64(present):
		return fmt.Errorf("%s:%d: column %q: value %q is not a number, but %d of the column's %d values are: a numeric column with %d cell(s) that do not parse; "+
			"fix them, or empty them to mark them missing (a column is read as categorical only when more than %.0f%% of its values are not numbers)",
			file, c.firstText.line, c.Name, c.firstText.value, c.parsed, present, c.unparsed, 100*(1-NumericShare))
	case c.tooMany:
		return fmt.Errorf("%s:%d: column %q: value %q is not a number and the column has more than %d distinct values: "+
			"neither numeric nor a category (an identifier or free text; leave it out of -x)", file, c.firstText.line, c.Name, c.firstText.value, MaxLevels)
	}
	c.Numeric, c.Num = false, nil
	return nil
}

// Identifier reports whether a categorical column has about one level per row: more than
// IdentifierLevels levels, and more levels than half its present cells. Such a column
// (a record number, a name, a free-text note) is no feature unless asked for by name.
func (c *Column) Identifier() bool {
	return !c.Numeric && len(c.Levels) > IdentifierLevels && 2*len(c.Levels) > c.Len()-c.Missing
}

// distinct returns the column's distinct present values, sorted, at most max of them.
func (c *Column) distinct(max int) []string {
	set := map[string]bool{}
	for i := range c.Len() {
		if !c.IsMissing(i) {
			set[c.Value(i)] = true
			if len(set) > max {
				break
			}
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// Len returns the number of rows of the column.
func (c *Column) Len() int {
	if c.Numeric {
		return len(c.Num)
	}
	return len(c.Codes)
}
