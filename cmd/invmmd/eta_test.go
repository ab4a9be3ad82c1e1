package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// Every step of the project's main job, quick and paper-size, has a recorded time, so that
// invmmd all's estimate covers the whole job (the toy experiment of the tests has none).
func TestEveryMainStepHasATime(t *testing.T) {
	for _, quick := range []bool{true, false} {
		e := newETA(experiments.Studies().MainJob(quick), quick)
		for i, d := range e.expected {
			if d <= 0 {
				t.Errorf("main job (quick %v) step %s has no recorded time", quick, e.names[i])
			}
		}
	}
}

// The estimate of the time left is the remaining steps' recorded times, scaled by the
// pace of the steps finished so far; steps without a record are counted apart.
func TestETA(t *testing.T) {
	times := map[string]experiments.Step{
		"a": {Name: "a", Quick: 10 * time.Second, Full: time.Hour},
		"b": {Name: "b", Quick: 20 * time.Second, Full: 2 * time.Hour},
		"c": {Name: "c", Quick: 30 * time.Second},
		"x": {Name: "x"}, "y": {Name: "y"},
	}
	for _, c := range []struct {
		name    string
		steps   []string
		quick   bool
		took    []time.Duration
		left    time.Duration
		unknown int
		pace    float64
	}{
		{"before any step", []string{"a", "b", "c"}, true, nil, 60 * time.Second, 0, 1},
		{"on pace", []string{"a", "b", "c"}, true, []time.Duration{10 * time.Second}, 50 * time.Second, 0, 1},
		{"twice as slow", []string{"a", "b", "c"}, true, []time.Duration{20 * time.Second}, 100 * time.Second, 0, 2},
		{"half as slow over two steps", []string{"a", "b", "c"}, true, []time.Duration{5 * time.Second, 10 * time.Second}, 15 * time.Second, 0, 0.5},
		{"all done", []string{"a", "b"}, true, []time.Duration{10 * time.Second, 20 * time.Second}, 0, 0, 1},
		{"paper size, c unrecorded", []string{"a", "b", "c"}, false, []time.Duration{90 * time.Minute}, 3 * time.Hour, 1, 1.5},
		{"an unknown step finished does not move the pace", []string{"x", "a"}, true, []time.Duration{time.Hour}, 10 * time.Second, 0, 1},
		{"only unknown steps left", []string{"a", "x", "y"}, true, []time.Duration{10 * time.Second}, 0, 2, 1},
	} {
		var steps []experiments.Step
		for _, n := range c.steps {
			steps = append(steps, times[n])
		}
		e := newETA(steps, c.quick)
		for _, d := range c.took {
			e.finish(d)
		}
		left, unknown := e.left()
		if left != c.left || unknown != c.unknown || e.pace() != c.pace {
			t.Errorf("%s: left %v with %d unknown at pace %g, want %v with %d at %g", c.name, left, unknown, e.pace(), c.left, c.unknown, c.pace)
		}
	}
}

// The plan lists every step with its recorded time and the total; each progress line says
// the step, the time elapsed and the estimate of the time left.
func TestETALines(t *testing.T) {
	e := newETA([]experiments.Step{{Name: "sim", Quick: 40 * time.Second}, {Name: "variance", Quick: 100 * time.Second}, {Name: "new"}}, true)
	var b strings.Builder
	e.plan(&b, true)
	want := "invmmd all: 3 steps of the quick main job, about 2 min in all (" + experiments.StepTimesSource + "), plus 1 step without a recorded time:\n" +
		"  1. sim       about 40s\n" +
		"  2. variance  about 1m40s\n" +
		"  3. new       no recorded time\n"
	if b.String() != want {
		t.Errorf("plan:\n%s\nwant\n%s", b.String(), want)
	}
	var elapsed time.Duration
	for _, c := range []struct {
		took time.Duration
		want string
	}{
		{80 * time.Second, "invmmd all: step 1 of 3, sim, done in 1m20s; 1m20s elapsed, about 3 min left (the recorded times × 2.0, this run's pace so far), plus 1 step without a recorded time\n"},
		{200 * time.Second, "invmmd all: step 2 of 3, variance, done in 3m20s; 4m40s elapsed; 1 step left without a recorded time\n"},
		{time.Second, "invmmd all: step 3 of 3, new, done in 1s; 4m41s elapsed, every step done\n"},
	} {
		b.Reset()
		e.finish(c.took)
		elapsed += c.took
		e.progress(&b, e.names[e.done-1], c.took, elapsed)
		if b.String() != c.want {
			t.Errorf("progress:\n%s\nwant\n%s", b.String(), c.want)
		}
	}
}

func TestRoughly(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{46 * time.Second, "46s"}, {119 * time.Second, "1m59s"}, {321 * time.Second, "5 min"},
		{212*time.Minute + 30*time.Second, "3 h 30 min"}, {2*time.Hour + 5*time.Minute, "2 h"}, {150 * time.Minute, "2 h 30 min"},
	} {
		if got := roughly(c.d); got != c.want {
			t.Errorf("roughly(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestStepTimesMatchTheManual checks the recorded paper-size times against the table of
// docs/sweeps.md ("How long the main job takes"), which the README's total sums: the same
// seconds for every step, so that invmmd all's estimate and the documents give one record.
func TestStepTimesMatchTheManual(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "sweeps.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end := strings.Index(doc, "<!-- main job times -->"), strings.Index(doc, "<!-- /main job times -->")
	if start < 0 || end < start {
		t.Fatal("docs/sweeps.md has no main job times table")
	}
	// The table's first cell names the step's command; a step is named by its results' name.
	names := map[string]string{"`sim`": "sim", "`sim -paper-split`": "sim_mf075", "`tmnist`": "tmnist",
		"`clinical`": "clinical", "`variance`": "variance", "`simcont`": "simcont"}
	full := map[string]time.Duration{}
	for _, st := range experiments.Studies().MainJob(false) {
		full[st.Name] = st.Full
	}
	secs := regexp.MustCompile(`([0-9][0-9,]*) s\b`)
	seen := 0
	for _, l := range strings.Split(doc[start:end], "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		if len(cells) < 2 {
			continue
		}
		name, ok := names[strings.TrimSpace(cells[0])]
		if !ok {
			continue
		}
		m := secs.FindStringSubmatch(cells[1])
		if m == nil {
			t.Errorf("docs/sweeps.md: no seconds for %s", name)
			continue
		}
		v, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if got := full[name]; got != time.Duration(v)*time.Second {
			t.Errorf("%s: its study records %v, docs/sweeps.md %d s", name, got, v)
		}
		seen++
	}
	if seen != len(names) {
		t.Errorf("docs/sweeps.md lists %d of the main job's %d steps", seen, len(names))
	}
}
