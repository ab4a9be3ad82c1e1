package tabular

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
)

// batchRows is the number of rows readRows hands over at a time.
const batchRows = 4096

// rowBatch is a batch of data rows read ahead by readRows: each row's cells of the table's
// columns, in order, and its file line; after is the bytes read through the batch; err,
// when not nil, ends the file after the batch's rows (io.EOF is not passed on).
type rowBatch struct {
	cells []string
	lines []int32
	after int64
	err   error
}

// readRows reads the data rows of cr, batchRows at a time, onto the channel it returns:
// each row's cells of the fields idx. It closes the channel after the last row or a
// batch with an error, or when done is closed.
func readRows(cr *csv.Reader, idx []int, file string, fields int, done <-chan struct{}) <-chan rowBatch {
	out := make(chan rowBatch, 4)
	go func() {
		defer close(out)
		for eof := false; !eof; {
			b := rowBatch{cells: make([]string, 0, batchRows*len(idx))}
			for len(b.lines) < batchRows && b.err == nil && !eof {
				rec, err := cr.Read()
				var pe *csv.ParseError
				line := 0
				if err == nil {
					line, _ = cr.FieldPos(0)
				}
				switch {
				case errors.Is(err, io.EOF):
					eof = true
				case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount):
					b.err = fmt.Errorf("%s:%d: %d fields, the header has %d", file, pe.StartLine, len(rec), fields)
				case err != nil:
					b.err = fmt.Errorf("%s: %w", file, err)
				case line > math.MaxInt32:
					b.err = fmt.Errorf("%s:%d: more than %d lines", file, line, math.MaxInt32)
				default:
					b.lines = append(b.lines, int32(line))
					for _, k := range idx {
						b.cells = append(b.cells, rec[k])
					}
				}
			}
			b.after = cr.InputOffset()
			select {
			case out <- b:
			case <-done:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	return out
}

// grow gives the table's slices room for n rows in all.
func (t *Table) grow(n int) {
	t.Lines = withRoom(t.Lines, n)
	for _, c := range t.Columns {
		c.Num = withRoom(c.Num, n)
		if !c.tooMany {
			c.Codes = withRoom(c.Codes, n)
		}
	}
}

// withRoom returns s in a slice of capacity n (at least len(s)), allocated by make, which
// leaves a large slice's fresh memory to the system's zero pages where slices.Grow would
// clear it first.
func withRoom[T any](s []T, n int) []T {
	out := make([]T, len(s), max(n, len(s)))
	copy(out, s)
	return out
}
