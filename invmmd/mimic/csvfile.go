package mimic

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileReport records what reading one table file found.
type FileReport struct {
	Table     string // "CHARTEVENTS", ...
	Path      string
	Bytes     int64         // size on disk (compressed size for .gz)
	Rows      int           // data rows read, malformed ones included
	Malformed int           // rows skipped as malformed
	Issues    []string      // the first malformed rows, as "FILE:LINE: reason"
	Elapsed   time.Duration // time spent reading the file
}

// maxIssues is how many malformed rows per file a report lists; all are counted.
const maxIssues = 20

// locateTable finds TABLE.csv or TABLE.csv.gz in dir (the plain file wins when both exist:
// it is the one a user decompressed). Names are matched case-insensitively, since some
// MIMIC-III copies use lower-case file names.
func locateTable(dir, table string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("mimic: reading the MIMIC-III folder: %w", err)
	}
	var gz string
	for _, e := range entries {
		switch strings.ToUpper(e.Name()) {
		case table + ".CSV":
			return filepath.Join(dir, e.Name()), nil
		case table + ".CSV.GZ":
			gz = filepath.Join(dir, e.Name())
		}
	}
	if gz == "" {
		return "", fmt.Errorf("mimic: %s has no %s.csv.gz or %s.csv (the MIMIC-III v1.4 CSV files from PhysioNet are expected)", dir, table, table)
	}
	return gz, nil
}

// countingReader counts the bytes read from the file, for progress on compressed input.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// tableFile streams one MIMIC-III CSV file row by row: gzip when the name ends in .gz,
// columns looked up by header name, malformed rows counted and skipped up to a limit.
type tableFile struct {
	rep      *FileReport
	name     string // base name, for messages
	f        *os.File
	cnt      *countingReader
	gz       *gzip.Reader
	cr       *csv.Reader
	col      map[string]int
	limit    int // malformed rows tolerated; more is an error
	start    time.Time
	progress *progress
}

// openTable opens dir's file of table and checks its header has the columns need.
func openTable(dir, table string, need []string, limit int, prog *progress) (*tableFile, error) {
	path, err := locateTable(dir, table)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mimic: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mimic: %w", err)
	}
	t := &tableFile{rep: &FileReport{Table: table, Path: path, Bytes: st.Size()}, name: filepath.Base(path),
		f: f, cnt: &countingReader{r: f}, limit: limit, start: time.Now(), progress: prog}
	var r io.Reader = bufio.NewReaderSize(t.cnt, 1<<20)
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		if t.gz, err = gzip.NewReader(r); err != nil {
			f.Close()
			return nil, fmt.Errorf("mimic: %s: not a gzip file: %w", path, err)
		}
		r = bufio.NewReaderSize(t.gz, 1<<20)
	}
	t.cr = csv.NewReader(r)
	t.cr.ReuseRecord = true
	header, err := t.cr.Read()
	if err != nil {
		t.Close()
		if err == io.EOF {
			return nil, fmt.Errorf("mimic: %s: empty file, want a header line", path)
		}
		return nil, fmt.Errorf("mimic: %s: reading the header: %w", path, err)
	}
	t.col = make(map[string]int, len(header))
	for j, h := range header {
		t.col[strings.ToUpper(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = j
	}
	for _, c := range need {
		if _, ok := t.col[c]; !ok {
			t.Close()
			return nil, fmt.Errorf("mimic: %s: header has no column %s (header: %s)", path, c, strings.Join(header, ","))
		}
	}
	t.cr.FieldsPerRecord = len(header)
	if prog != nil {
		prog.begin(t.name, st.Size())
	}
	return t, nil
}

// column returns the index of a header column (checked by openTable, or -1 if optional and absent).
func (t *tableFile) column(name string) int {
	if j, ok := t.col[name]; ok {
		return j
	}
	return -1
}

// next returns the next well-formed row and its line number, io.EOF at the end. Rows the
// CSV parser rejects (wrong field count, stray quotes) are recorded and skipped. The
// returned slice is reused by the following call.
func (t *tableFile) next() ([]string, int, error) {
	for {
		rec, err := t.cr.Read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				t.rep.Rows++
				msg := pe.Err.Error()
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					msg = fmt.Sprintf("%d fields, header has %d", len(rec), t.cr.FieldsPerRecord)
				}
				if err := t.malformed(pe.StartLine, "%s", msg); err != nil {
					return nil, 0, err
				}
				continue
			}
			return nil, 0, fmt.Errorf("mimic: %s: %w", t.rep.Path, err)
		}
		t.rep.Rows++
		if t.progress != nil && t.rep.Rows&0xfff == 0 {
			t.progress.update(t.cnt.n, t.rep.Rows)
		}
		line, _ := t.cr.FieldPos(0)
		return rec, line, nil
	}
}

// malformed records a malformed row at line; past the limit it returns the error that
// stops the build.
func (t *tableFile) malformed(line int, format string, args ...any) error {
	t.rep.Malformed++
	issue := fmt.Sprintf("%s:%d: %s", t.name, line, fmt.Sprintf(format, args...))
	if len(t.rep.Issues) < maxIssues {
		t.rep.Issues = append(t.rep.Issues, issue)
	}
	if t.rep.Malformed > t.limit {
		return fmt.Errorf("mimic: %s: %d malformed rows, more than the %d tolerated (Config.MaxMalformed); the last: %s; first ones: %s",
			t.rep.Path, t.rep.Malformed, t.limit, issue, strings.Join(t.rep.Issues, "; "))
	}
	return nil
}

// errSkip is returned for a malformed row the file tolerates (see malformed): each skips it.
var errSkip = errors.New("mimic: malformed row skipped")

// each calls row on every well-formed row until the end of the file. row returns nil, or
// errSkip, to go on to the next row; any other error stops the file.
func (t *tableFile) each(row func(rec []string, line int) error) error {
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = row(rec, line)
		}
		if err != nil && err != errSkip {
			return err
		}
	}
}

// intField parses column col (named name) of rec as an integer. A malformed value is
// reported with its line (malformed): err is errSkip then, or the error that stops the file
// once it has more malformed rows than tolerated.
func (t *tableFile) intField(rec []string, line, col int, name string) (int, error) {
	v, ok := atoi(rec[col])
	if !ok {
		if err := t.malformed(line, "column %s: %q is not an integer", name, rec[col]); err != nil {
			return 0, err
		}
		return 0, errSkip
	}
	return v, nil
}

// Close closes the file and finishes its report.
func (t *tableFile) Close() {
	t.rep.Elapsed = time.Since(t.start)
	if t.gz != nil {
		t.gz.Close()
	}
	t.f.Close()
	if t.progress != nil {
		t.progress.end(t.rep)
	}
}

// progress prints a periodic line on a writer while a large file streams.
type progress struct {
	w     io.Writer
	every time.Duration
	name  string
	size  int64
	start time.Time
	last  time.Time
}

func (p *progress) begin(name string, size int64) {
	p.name, p.size, p.start, p.last = name, size, time.Now(), time.Now()
}

func (p *progress) update(read int64, rows int) {
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	frac := float64(read) / float64(max(p.size, 1))
	eta := ""
	if frac > 0.01 {
		eta = fmt.Sprintf(", ~%s left", (time.Duration(float64(el)/frac) - el).Round(time.Second))
	}
	fmt.Fprintf(p.w, "mimic: %s: %.0f%% of %s, %d rows, %s%s\n", p.name, 100*frac, humanBytes(p.size), rows, el.Round(time.Second), eta)
}

func (p *progress) end(r *FileReport) {
	fmt.Fprintf(p.w, "mimic: %s: %d rows (%d malformed) in %s\n", p.name, r.Rows, r.Malformed, r.Elapsed.Round(time.Millisecond))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// MIMIC-III writes timestamps as "YYYY-MM-DD HH:MM:SS" (dates shifted into 2100–2200; the
// dates of birth of patients older than 89 shifted a further ~300 years back). The parser
// below reads that form (and a bare "YYYY-MM-DD") into seconds since 1970 without the
// time package's general layout machinery: CHARTEVENTS holds hundreds of millions of them.
// Seconds, not time.Duration, because a time.Duration overflows past 292 years.

// parseTimestamp returns the Unix seconds of "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD" (UTC).
func parseTimestamp(s string) (int64, error) {
	if len(s) != 19 && len(s) != 10 {
		return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
	}
	num := func(i, n int) int {
		v := 0
		for k := i; k < i+n; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := 0, 0, 0
	if s[4] != '-' || s[7] != '-' {
		year = -1
	}
	if len(s) == 19 {
		if s[10] != ' ' && s[10] != 'T' || s[13] != ':' || s[16] != ':' {
			year = -1
		}
		hour, minute, sec = num(11, 2), num(14, 2), num(17, 2)
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, fmt.Errorf("timestamp %q: not a valid YYYY-MM-DD HH:MM:SS", s)
	}
	return daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec), nil
}

// toTime converts Unix seconds to a time.Time in UTC.
func toTime(u int64) time.Time { return time.Unix(u, 0).UTC() }

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian date
// (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
