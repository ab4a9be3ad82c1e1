// Package progress reports the progress of long loops (training epochs, experiment runs)
// on a terminal as a redrawn bar, and elsewhere (logs, notebooks, CI) as occasional lines.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar for a loop of known length. A nil *Bar is valid and silent, so
// callers can pass nil for quiet mode.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int
	done     int
	start    time.Time
	terminal bool
	lastLine time.Time
	status   string
}

// New returns a bar writing to w, or nil (silent) when w is nil.
func New(w io.Writer, total int, label string) *Bar {
	if w == nil {
		return nil
	}
	b := &Bar{w: w, label: label, total: max(total, 1), start: time.Now()}
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		b.terminal = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return b
}

// Add advances the bar by n steps and sets the status shown after it.
func (b *Bar) Add(n int, status string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.status = status
	if b.terminal {
		b.draw("\r")
		return
	}
	// Elsewhere: a line at most every 5 seconds, and at the end.
	if b.done >= b.total || time.Since(b.lastLine) > 5*time.Second {
		b.draw("")
		fmt.Fprintln(b.w)
		b.lastLine = time.Now()
	}
}

// Finish ends the bar's line on a terminal.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.terminal {
		b.draw("\r")
		fmt.Fprintln(b.w)
	}
}

func (b *Bar) draw(prefix string) {
	const width = 24
	frac := float64(b.done) / float64(b.total)
	fill := min(int(frac*width), width)
	el := time.Since(b.start).Round(100 * time.Millisecond)
	eta := ""
	if b.done > 0 && b.done < b.total {
		rem := time.Duration(float64(time.Since(b.start)) / frac * (1 - frac)).Round(time.Second)
		eta = fmt.Sprintf(" eta %s", rem)
	}
	fmt.Fprintf(b.w, "%s%s [%s%s] %d/%d %s%s %s\x1b[K", prefix, b.label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), b.done, b.total, el, eta, b.status)
}
