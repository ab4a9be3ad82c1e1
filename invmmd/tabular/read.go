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
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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

// missingTokens are the cell values read as missing, whatever the column's type, in lower
// case: a cell is missing when its lower-case form is one of them (NA, na, N/A, NaN, nan,
// NULL, null, ?, or empty), so that no spelling of a marker is read as a level of a text
// column while another spelling is missing.
var missingTokens = map[string]bool{"": true, "na": true, "n/a": true, "nan": true, "null": true, "?": true}

// IsMissingToken reports whether the cell text v (already trimmed) marks a missing value.
func IsMissingToken(v string) bool {
	if len(v) > 4 {
		return false
	}
	return missingTokens[strings.ToLower(v)]
}

// MaxMagnitude bounds the magnitude of a continuous nuisance's numbers and of model
// outputs h: beyond ±1e150 the squares that fit m's normal or take a kernel's bandwidth
// overflow float64. A feature may hold any finite number (its standardisation is scaled).
const MaxMagnitude = 1e150

// Column is one column of a Table: numeric (Num) or categorical (Codes into Levels). Its
// type is decided once, from every cell of the file, by decide (see Read).
type Column struct {
	Name    string
	Numeric bool      // every present value parsed as a finite number
	Num     []float64 // numeric columns: the values, NaN where missing
	Codes   []int32   // categorical columns: index into Levels, −1 where missing
	Levels  []string  // categorical columns: distinct values in order of first appearance
	Missing int       // rows where the value is missing
	// missText holds, once a missing cell was written other than empty, the index + 1 into
	// tokens of each row's missing-value marker (0: present, or an empty cell), so that
	// messages quote the cell as written (Raw); nil while every missing cell is empty.
	missText []uint8
	tokens   []string
	index    int // field index in the file
	levels   map[string]int32
	tooMany  bool // more than MaxLevels distinct values seen (their codes are dropped)
	// parsed and unparsed count the present cells that parse as numbers and those that
	// do not; firstText is the first that does not, firstInf the first infinite number,
	// firstHuge the first beyond the range of float64 (1e400).
	parsed, unparsed               int
	firstText, firstInf, firstHuge cell
	rows                           int // cells added
}

// cell is a value and its file line, kept for messages.
type cell struct {
	line  int
	value string
}

// ColumnError reports a column asked for that the file's header lacks. Callers that know
// which setting named the column fill in Setting (its name for the user, e.g. "Y", or a
// command line's "-y").
type ColumnError struct {
	File, Name, Setting string
	Header              []string
}

func (e *ColumnError) Error() string {
	by := ""
	if e.Setting != "" {
		by = " (" + e.Setting + ")"
	}
	msg := fmt.Sprintf("%s: no column named %q%s; the columns are %s", e.File, e.Name, by, strings.Join(e.Header, ", "))
	if e.Name == "logit" { // predict's output for a model of K classes has logit_CLASS columns
		var logits []string
		for _, h := range e.Header {
			if strings.HasPrefix(h, "logit_") {
				logits = append(logits, h)
			}
		}
		if len(logits) >= 2 {
			list, named := strings.Join(logits, ","), strings.Join(logits, ",")
			if e.Setting != "" {
				named = e.Setting + " " + list
			}
			return msg + fmt.Sprintf(": a model of %d classes writes %s: name them all, comma-separated (%s)", len(logits), list, named)
		}
	}
	if len(e.Header) == 1 {
		for _, sep := range []struct{ char, name string }{{"\t", "tab"}, {";", "semicolon"}, {"|", "bar"}} {
			if strings.Contains(e.Header[0], sep.char) {
				return msg + fmt.Sprintf(": the header is one column holding %ss, so the file looks %s-separated; this reads comma-separated values: convert it (e.g. with a spreadsheet, or tr for a file without quoted %ss)", sep.name, sep.name, sep.name)
			}
		}
	}
	return msg
}

// Names says how messages name the settings that chose a table's columns: a setting's key
// (the Go field of owndata's configurations: "Y", "YPositive", "Z", "ZPositive", "ZKind",
// "X", "Split", "H", "G", "M") → the caller's name for it (the command line's "-y"). A
// key without an entry is named by the key itself, so a library caller reads the names of
// the fields it set, and a command the flags its user typed.
type Names map[string]string

// Of returns the name of the setting key.
func (n Names) Of(key string) string {
	if v, ok := n[key]; ok {
		return v
	}
	return key
}

// Table is the selected columns of a CSV file, or of columns built in memory (NewTable).
type Table struct {
	File    string    // file name, for messages
	Header  []string  // every column name of the file, in order
	Columns []*Column // the selected columns, in the order asked for
	Lines   []int32   // the file line of each row (1-based; the header is line 1)
	// Names names the settings in messages (see Names); nil names them by their keys.
	Names Names
}

// name returns the name of the setting key in messages.
func (t *Table) name(key string) string { return t.Names.Of(key) }

// Len returns the number of data rows.
func (t *Table) Len() int { return len(t.Lines) }

// Column returns the selected column named name, or nil.
func (t *Table) Column(name string) *Column {
	if i := slices.IndexFunc(t.Columns, func(c *Column) bool { return c.Name == name }); i >= 0 {
		return t.Columns[i]
	}
	return nil
}

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

// Raw returns row i of column c as the file wrote it: Value for a present cell, and for a
// missing one the marker it held ("NA", "NaN", ...; "" for an empty cell).
func (c *Column) Raw(i int) string {
	if !c.IsMissing(i) {
		return c.Value(i)
	}
	if i < len(c.missText) && c.missText[i] > 0 {
		return c.tokens[c.missText[i]-1]
	}
	return ""
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
	return ReadFileContext(context.Background(), path, names)
}

// ReadFileContext is ReadFile that stops once ctx is done, with an error wrapping ctx's,
// within one buffer of the file (64 KiB).
func ReadFileContext(ctx context.Context, path string, names []string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return read(ctxReader{ctx, f}, path, names, size)
}

// toUTF8 says what to do with a file that is not UTF-8 text with LF or CRLF line ends.
const toUTF8 = "convert it to a UTF-8 CSV file with LF or CRLF line ends (e.g. save as \"CSV UTF-8\", or iconv -t UTF-8)"

// checkEncoding refuses, from its first bytes, a file that is not UTF-8 text: one with a
// UTF-16 byte-order mark (FF FE, FE FF) or gzip-compressed (1F 8B), which would otherwise
// be read as one garbled column name after another.
func checkEncoding(br *bufio.Reader, file string) error {
	head, _ := br.Peek(2)
	switch {
	case bytes.Equal(head, []byte{0xFF, 0xFE}), bytes.Equal(head, []byte{0xFE, 0xFF}):
		return fmt.Errorf("%s: UTF-16 text (byte-order mark %X %X), not UTF-8: %s", file, head[0], head[1], toUTF8)
	case bytes.Equal(head, []byte{0x1F, 0x8B}):
		return fmt.Errorf("%s: a gzip-compressed file, not a CSV file: decompress it first (gunzip %s)", file, file)
	}
	return nil
}

// checkText refuses a cell (at line of file, in column col; "" for the header) holding a
// NUL byte or bytes that are not UTF-8 (Latin-1, Windows-1252), which would otherwise
// become levels of their own.
func checkText(v, file string, line int, col string) error {
	nul := strings.IndexByte(v, 0) >= 0
	if !nul && utf8.ValidString(v) {
		return nil
	}
	where := fmt.Sprintf("%s:%d:", file, line)
	if col != "" {
		where += fmt.Sprintf(" column %q:", col)
	}
	if nul {
		return fmt.Errorf("%s a NUL byte: not UTF-8 text (UTF-16 without a byte-order mark, or a binary file?): %s", where, toUTF8)
	}
	bad := v
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		if r == utf8.RuneError && n == 1 {
			bad = v[i:]
			break
		}
		i += n
	}
	return fmt.Errorf("%s byte %#02x in %q is not UTF-8 (Latin-1 or Windows-1252 text?): %s", where, bad[0], v, toUTF8)
}

// skipBOM returns br past a UTF-8 byte-order mark.
func skipBOM(br *bufio.Reader) *bufio.Reader {
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	return br
}

// ctxReader reads from r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Read reads the named columns (all when names is empty) of CSV data from r; file names
// the source in messages. The first record is the header. A UTF-8 byte-order mark, CRLF
// line ends and quoted fields are accepted. Cells that are empty, NA, N/A, NaN, null or ?
// are missing, in any case. A column's type is decided from all its cells (Column.decide):
// numeric when every present value parses as a number (an infinite one, or one beyond
// float64's range, is an error), an error naming the cell when a few values of an
// otherwise numeric column do not parse (NumericShare), and categorical otherwise (at
// most MaxLevels distinct values, Levels in order of first appearance).
func Read(r io.Reader, file string, names []string) (*Table, error) {
	return read(r, file, names, 0)
}

// read is Read of size bytes (0: unknown). Knowing the size, it gives the columns their
// estimated length after the first batch of rows (5% over) instead of growing them by
// copies as rows come, which at 10⁷ rows took a fifth of the reading's time. A goroutine
// splits the file into rows (readRows) while this one parses their cells.
func read(r io.Reader, file string, names []string, size int64) (*Table, error) {
	br := skipBOM(bufio.NewReaderSize(r, 1<<16))
	if err := checkEncoding(br, file); err != nil {
		return nil, err
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
	for _, h := range header {
		if strings.Contains(h, "\r") { // encoding/csv keeps a CR that ends no line
			return nil, fmt.Errorf("%s: lines end with CR alone (an old Mac format), so the whole file reads as one line: %s", file, toUTF8)
		}
		if err := checkText(h, file, 1, ""); err != nil {
			return nil, err
		}
	}
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
	idx := make([]int, len(t.Columns))
	for k, c := range t.Columns {
		idx[k] = c.index
	}
	done := make(chan struct{})
	defer close(done)
	before := int64(0) // bytes read through the rows before the batch
	for b := range readRows(cr, idx, file, len(t.Header), done) {
		if len(t.Lines) == batchRows && size > 0 {
			t.grow(int(float64(size) / float64(before) * batchRows * 1.05))
		}
		before = b.after
		for r, line := range b.lines {
			t.Lines = append(t.Lines, line)
			for k, c := range t.Columns {
				v := b.cells[r*len(idx)+k]
				if err := checkText(v, file, int(line), c.Name); err != nil {
					return nil, err
				}
				c.add(strings.TrimSpace(v), int(line))
			}
		}
		if b.err != nil {
			return nil, b.err
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
	c.rows++
	if IsMissingToken(v) {
		c.Missing++
		c.Num = append(c.Num, math.NaN())
		if !c.tooMany {
			c.Codes = append(c.Codes, -1)
		}
		c.markMissing(v)
		return
	}
	if c.missText != nil {
		c.missText = append(c.missText, 0)
	}
	x, err := strconv.ParseFloat(v, 64)
	overflow := errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0)
	if overflow {
		err = nil // a number beyond float64's range: numeric, and refused by decide
		if c.firstHuge.line == 0 {
			c.firstHuge = cell{line, v}
		}
	}
	switch {
	case err == nil:
		if !overflow && math.IsInf(x, 0) && c.firstInf.line == 0 {
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

// markMissing records the marker v of the missing cell just added (see Column.Raw).
func (c *Column) markMissing(v string) {
	if v == "" {
		if c.missText != nil {
			c.missText = append(c.missText, 0)
		}
		return
	}
	k := slices.Index(c.tokens, v)
	if k < 0 {
		if len(c.tokens) == 255 { // every spelling of ≤ 4 bytes of the markers fits; never reached
			k = 0
		} else {
			c.tokens = append(c.tokens, v)
			k = len(c.tokens) - 1
		}
	}
	if c.missText == nil {
		c.missText = make([]uint8, c.rows-1, c.rows)
	}
	c.missText = append(c.missText, uint8(k+1))
}

// decide settles the column's type from all its cells by the rules Read states, and drops
// the representation it does not use: the one place where a column's type is decided.
// Later code asks a decided column what it is through Numeric, Levels and Identifier.
func (c *Column) decide(file string) error {
	c.levels = nil
	present := c.parsed + c.unparsed
	switch {
	case c.unparsed == 0:
		if c.firstInf.line > 0 && (c.firstHuge.line == 0 || c.firstInf.line < c.firstHuge.line) {
			return fmt.Errorf("%s:%d: column %q: value %q is infinite, want a finite number or an empty cell for missing", file, c.firstInf.line, c.Name, c.firstInf.value)
		}
		if c.firstHuge.line > 0 {
			return fmt.Errorf("%s:%d: column %q: value %q is out of range: a number beyond the largest float64 (about ±1.8e308); rescale the column (e.g. divide it, or take its logarithm)",
				file, c.firstHuge.line, c.Name, c.firstHuge.value)
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
	return slices.Sorted(maps.Keys(set))
}

// Len returns the number of rows of the column.
func (c *Column) Len() int {
	if c.Numeric {
		return len(c.Num)
	}
	return len(c.Codes)
}
