package docscheck

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// seconds matches the first number of seconds in a cell, e.g. "1,335 s" or "about 3,700 s".
var seconds = regexp.MustCompile(`([0-9][0-9,]*) s\b`)

// TestMainJobTimes checks that the README's time for the main job is the sum of the steps'
// times that docs/sweeps.md lists (wall times of the runs' logs, recorded with each study
// in invmmd/experiments, whose agreement with that table cmd/invmmd's
// TestStepTimesMatchTheManual checks), and that the table lists every step of the main job.
func TestMainJobTimes(t *testing.T) {
	block, _, _ := between(t, sweepsMD, "main job times")
	sum, steps := 0.0, 0
	for _, l := range tableLines(block)[2:] {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		m := seconds.FindStringSubmatch(cells[1])
		if m == nil {
			t.Errorf("docs/sweeps.md: a step without seconds: %s", l)
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += v
		steps++
	}
	if steps != 6 {
		t.Errorf("docs/sweeps.md times %d steps, want the main job's six (sim, sim -paper-split, tmnist, clinical, variance, simcont)", steps)
	}
	total := "about " + thousands(int(math.Round(sum/100)*100)) + " s"
	says(t, sweepsMD, "its table of the steps", "Summed, "+total)
	says(t, readme, "docs/sweeps.md's table of the steps", "its steps took "+total)
}
