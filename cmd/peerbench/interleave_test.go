package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestInterleaved checks that a row's repetitions alternate between the Go side and the
// peer, that a failing peer stops only the peer's side, and the paired ratio.
func TestInterleaved(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failAfter int // peer calls that succeed before it fails; -1: never fails
		order     string
		peerReps  int
	}{
		{"alternate", -1, "GPGPGP", 3},
		{"peer fails on its second call", 1, "GPGPG", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			goRep := 0
			r := row{key: "x", goRun: func(reps int) (timings, string, error) {
				if reps != 1 {
					t.Fatalf("goRun(%d): want one repetition per call", reps)
				}
				goRep++
				log.WriteString("G")
				return timings{wall: []float64{float64(2 * goRep)}, cpu: []float64{1}}, "note", nil
			}}
			calls := 0
			g, p, note, peerFail, err := interleaved(r, 3, io.Discard, "", func() (timings, error) {
				log.WriteString("P")
				calls++
				if tc.failAfter >= 0 && calls > tc.failAfter {
					return timings{}, errors.New("boom")
				}
				return timings{wall: []float64{1}, cpu: []float64{1}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if log.String() != tc.order {
				t.Errorf("order %q, want %q", log.String(), tc.order)
			}
			if len(g.wall) != 3 || len(p.wall) != tc.peerReps || note != "note" {
				t.Errorf("got %d Go and %d peer repetitions, note %q; want 3, %d, \"note\"", len(g.wall), len(p.wall), note, tc.peerReps)
			}
			if (peerFail != nil) != (tc.failAfter >= 0) {
				t.Errorf("peer failure %v, want one: %v", peerFail, tc.failAfter >= 0)
			}
		})
	}
	if got := pairedRatio([]float64{2, 4, 6}, []float64{1, 1, 3}); got != 2 {
		t.Errorf("pairedRatio = %v, want the median of 2, 4, 2 = 2", got)
	}
}
