package main

import (
	"fmt"
	"io"
	"time"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// eta estimates how long the main job's remaining steps take: the recorded time of each
// (experiments.Step's Quick and Full), scaled by the pace of this run so far (the time its
// finished steps took over the time recorded for them).
type eta struct {
	names    []string
	expected []time.Duration // 0: no recorded time
	done     int             // steps finished
	tookRec  time.Duration   // wall time of the finished steps that have a recorded time
	recDone  time.Duration   // the recorded time of those
}

// newETA returns the estimate for the steps of the quick or paper-size main job.
func newETA(steps []experiments.Step, quick bool) *eta {
	e := &eta{}
	for _, st := range steps {
		d := st.Full
		if quick {
			d = st.Quick
		}
		e.names, e.expected = append(e.names, st.Name), append(e.expected, d)
	}
	return e
}

// finish records that the next step took d.
func (e *eta) finish(d time.Duration) {
	if e.done >= len(e.names) {
		return
	}
	if rec := e.expected[e.done]; rec > 0 {
		e.tookRec += d
		e.recDone += rec
	}
	e.done++
}

// pace is the ratio of the time the finished steps took to their recorded time (1 before
// any step with a recorded time has finished).
func (e *eta) pace() float64 {
	if e.recDone <= 0 || e.tookRec <= 0 {
		return 1
	}
	return float64(e.tookRec) / float64(e.recDone)
}

// left returns the estimated time of the steps not finished yet, and how many of them
// have no recorded time (and so are not in the estimate).
func (e *eta) left() (time.Duration, int) {
	var sum time.Duration
	unknown := 0
	for _, d := range e.expected[e.done:] {
		if d <= 0 {
			unknown++
			continue
		}
		sum += d
	}
	return time.Duration(float64(sum) * e.pace()), unknown
}

// plan writes, before the first step, the steps with their recorded times and the total.
func (e *eta) plan(w io.Writer, quick bool) {
	size := "paper-size"
	if quick {
		size = "quick"
	}
	total, unknown := e.left()
	fmt.Fprintf(w, "invmmd all: %s of the %s main job, about %s in all (%s)%s:\n",
		plural(len(e.names), "step"), size, roughly(total), experiments.StepTimesSource, unknownNote(unknown))
	width := 0
	for _, n := range e.names {
		width = max(width, len(n))
	}
	for i, n := range e.names {
		rec := "no recorded time"
		if e.expected[i] > 0 {
			rec = "about " + roughly(e.expected[i])
		}
		fmt.Fprintf(w, "  %d. %-*s  %s\n", i+1, width, n, rec)
	}
}

// progress writes, after a step, how long it took, the time elapsed since the job started
// and the estimate of the time left.
func (e *eta) progress(w io.Writer, step string, took, elapsed time.Duration) {
	line := fmt.Sprintf("invmmd all: step %d of %d, %s, done in %s; %s elapsed", e.done, len(e.names), step, took.Round(time.Second), elapsed.Round(time.Second))
	left, unknown := e.left()
	switch {
	case e.done == len(e.names):
		line += ", every step done"
	case left == 0 && unknown > 0:
		line += fmt.Sprintf("; %s left without a recorded time", plural(unknown, "step"))
	default:
		line += ", about " + roughly(left) + " left"
		if p := e.pace(); p < 0.9 || p > 1.1 {
			line += fmt.Sprintf(" (the recorded times × %.1f, this run's pace so far)", p)
		}
		line += unknownNote(unknown)
	}
	fmt.Fprintln(w, line)
}

// unknownNote is ", plus N step(s) without a recorded time" when n > 0.
func unknownNote(n int) string {
	if n == 0 {
		return ""
	}
	return ", plus " + plural(n, "step") + " without a recorded time"
}

// plural writes "1 step" or "3 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// roughly writes an estimate at the precision it deserves: seconds under two minutes,
// whole minutes under two hours, hours and minutes to the quarter hour beyond.
func roughly(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return d.Round(time.Second).String()
	case d < 2*time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	q := d.Round(15 * time.Minute)
	h, m := int(q/time.Hour), int(q%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}
