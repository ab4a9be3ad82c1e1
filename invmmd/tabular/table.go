package tabular

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// A table built in memory, a table's content hash, row-number columns, and raw records:
// what a caller needs besides reading a CSV file (Read).

// Col is one column of a table built in memory (NewTable): numbers, NaN where missing, or
// text, with an empty cell or a missing-value marker (NA, NaN, ...) where missing.
type Col struct {
	Name string
	Num  []float64 // a numeric column (nil for a text one)
	Text []string  // a text column, read cell by cell as Read reads a file's cells
}

// NumberColumn returns a numeric column for NewTable: v's values, NaN where missing.
func NumberColumn(name string, v []float64) Col { return Col{Name: name, Num: v} }

// TextColumn returns a text column for NewTable, each cell read as Read reads a file's
// (a column whose cells all parse as numbers is numeric, as in a file).
func TextColumn(name string, v []string) Col { return Col{Name: name, Text: v} }

// NewTable builds a table in memory from columns of equal length, as Read would read a CSV
// file holding them under a header line: name stands for the file in messages, and row i
// is line i+2. A numeric column's values must be finite or NaN (missing); a text
// column's cells are typed as a file's are (Column.decide). The
// columns are copied. It lets a caller run on data it holds, such as a simulation drawn
// hundreds of times, exactly what the commands run on a file.
func NewTable(name string, cols ...Col) (*Table, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s: no column", name)
	}
	n := -1
	t := &Table{File: name}
	for k, c := range cols {
		if c.Name = strings.TrimSpace(c.Name); c.Name == "" {
			return nil, fmt.Errorf("%s: column %d has an empty name", name, k+1)
		}
		if slices.Contains(t.Header, c.Name) {
			return nil, fmt.Errorf("%s: column name %q appears twice", name, c.Name)
		}
		if (c.Num == nil) == (c.Text == nil) {
			return nil, fmt.Errorf("%s: column %q: give its numbers or its text, one of them", name, c.Name)
		}
		rows := max(len(c.Num), len(c.Text))
		if n >= 0 && rows != n {
			return nil, fmt.Errorf("%s: column %q has %d rows, column %q has %d", name, c.Name, rows, t.Header[0], n)
		}
		n = rows
		t.Header = append(t.Header, c.Name)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	if n > math.MaxInt32-2 {
		return nil, fmt.Errorf("%s: %d rows, more than %d", name, n, math.MaxInt32-2)
	}
	t.Lines = make([]int32, n)
	for i := range t.Lines {
		t.Lines[i] = int32(i + 2)
	}
	for k, c := range cols {
		col := &Column{Name: t.Header[k], index: k}
		if c.Num != nil {
			col.Numeric, col.Num = true, slices.Clone(c.Num)
			for i, v := range col.Num {
				switch {
				case math.IsNaN(v):
					col.Missing++
				case math.IsInf(v, 0):
					return nil, fmt.Errorf("%s:%d: column %q: value %v is infinite, want a finite number or NaN for missing", name, i+2, col.Name, v)
				}
			}
		} else {
			col.levels = map[string]int32{}
			for i, v := range c.Text {
				col.add(strings.TrimSpace(v), i+2)
			}
			if err := col.decide(name); err != nil {
				return nil, err
			}
		}
		t.Columns = append(t.Columns, col)
	}
	return t, nil
}

// Digest returns a SHA-256 hash of the table's content: every selected column's name,
// type and values (numbers by their bits, text by their levels), missing cells included.
// Two tables with the same columns and values have the same digest, whatever the file's
// formatting; a table with one value changed has another. invmmd fit records it to tell
// the data of earlier results apart from today's.
func (t *Table) Digest() string {
	h := sha256.New()
	var buf [8]byte
	word := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(buf[:0], v)) }
	text := func(s string) {
		word(uint64(len(s)))
		io.WriteString(h, s)
	}
	word(uint64(t.Len()))
	for _, c := range t.Columns {
		text(c.Name)
		if c.Numeric {
			word(1)
			for _, v := range c.Num {
				if math.IsNaN(v) {
					v = math.NaN() // one bit pattern for every missing cell
				}
				word(math.Float64bits(v))
			}
			continue
		}
		word(2)
		for i := range c.Codes {
			if c.Codes[i] < 0 {
				word(math.MaxUint64)
				continue
			}
			text(c.Levels[c.Codes[i]])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RowNumbers describes a numeric column that holds a row number or record identifier —
// more than IdentifierLevels present values, every one a distinct integer, and either the
// integers from the smallest to the largest with none left out, or rising (or falling)
// with every row — as "the integers 1 to 418, each once"; "" for any other column. Such a
// column carries the file's order, not something about the rows.
func (c *Column) RowNumbers() string {
	if !c.Numeric || c.Len()-c.Missing <= IdentifierLevels {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	rising, falling := true, true
	prev := math.NaN()
	seen := make(map[float64]bool, c.Len())
	for _, v := range c.Num {
		if math.IsNaN(v) {
			continue
		}
		if v != math.Trunc(v) || seen[v] {
			return ""
		}
		seen[v] = true
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if !math.IsNaN(prev) {
			rising, falling = rising && v > prev, falling && v < prev
		}
		prev = v
	}
	n := float64(len(seen))
	switch {
	case hi-lo+1 == n:
		return fmt.Sprintf("the integers %v to %v, each once", lo, hi)
	case rising:
		return fmt.Sprintf("%v distinct integers rising with every row, %v to %v", n, lo, hi)
	case falling:
		return fmt.Sprintf("%v distinct integers falling with every row, %v to %v", n, hi, lo)
	}
	return ""
}

// Header returns the column names of the CSV file at path, as Read reads its header line.
func Header(path string) ([]string, error) {
	f, _, header, err := openCSV(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	return header, nil
}

// openCSV opens the CSV file at path as Read reads it (byte-order mark, quotes, CRLF) and
// reads its header line, each name trimmed; the caller closes the file.
func openCSV(path string) (*os.File, *csv.Reader, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	cr := csv.NewReader(skipBOM(bufio.NewReaderSize(f, 1<<16)))
	header, err := cr.Read()
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	header = slices.Clone(header)
	for k := range header {
		header[k] = strings.TrimSpace(header[k])
	}
	return f, cr, header, nil
}

// ReadRecords streams the CSV file at path record by record, as Read reads it (byte-order
// mark, quotes, CRLF), and calls fn with each data record's file line and the cells of the
// columns cols, as the file wrote them (not trimmed), in the order of cols. A column the
// header lacks is a *ColumnError. It lets a caller copy columns through verbatim next to
// what it computed from a Table read from the same file (whose Lines are the same).
func ReadRecords(path string, cols []string, fn func(line int, cells []string) error) error {
	f, cr, header, err := openCSV(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr.ReuseRecord = true
	idx := make([]int, len(cols))
	for k, c := range cols {
		if idx[k] = slices.Index(header, c); idx[k] < 0 {
			return &ColumnError{File: path, Name: c, Header: header}
		}
	}
	cells := make([]string, len(cols))
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		for k, j := range idx {
			cells[k] = rec[j]
		}
		if err := fn(line, cells); err != nil {
			return err
		}
	}
}
