package mimic

import (
	"math"
	"testing"
)

// TestScoreGCS checks the GCS of one stay against gcs_first_day.sql's rules worked out by
// hand, one rule per case. Events are (hour, component, value); NaN is a row without value.
func TestScoreGCS(t *testing.T) {
	type ev struct {
		h     float64
		c     int
		value float64
	}
	nan := math.NaN()
	const m, v, e = gcsMotor, gcsVerbal, gcsEyes
	for _, tc := range []struct {
		name   string
		events []ev
		want   gcsScore
	}{
		{"one full row", []ev{{1, m, 5}, {1, v, 4}, {1, e, 3}}, gcsScore{min: 12, motor: 5, verbal: 4, eyes: 3, ok: true}},
		{"missing components score normal", []ev{{1, e, 2}}, gcsScore{min: 6 + 5 + 2, motor: nan, verbal: nan, eyes: 2, ok: true}},
		{"previous row within 6 h carried forward", []ev{{1, m, 3}, {1, v, 2}, {6.9, e, 1}},
			gcsScore{min: 3 + 2 + 1, motor: 3, verbal: 2, eyes: 1, ok: true}},
		{"previous row 6 h or more before is not", []ev{{1, m, 3}, {1, v, 2}, {7, e, 1}},
			gcsScore{min: 3 + 2 + 4, motor: 3, verbal: 2, eyes: nan, ok: true}},
		{"only the immediately previous row counts", []ev{{1, m, 1}, {2, e, 1}, {3, v, 1}}, // 10, 7, 6 + 1 + 1 (not 3)
			gcsScore{min: 1 + 5 + 1, motor: 1, verbal: nan, eyes: 1, ok: true}},
		{"largest value at one time", []ev{{1, v, 1}, {1, v, 3}, {1, m, 6}, {1, e, 4}},
			gcsScore{min: 13, motor: 6, verbal: 3, eyes: 4, ok: true}},
		{"intubated scores 15", []ev{{1, v, 0}, {1, m, 1}, {1, e, 1}},
			gcsScore{min: 15, motor: 1, verbal: 0, eyes: 1, endotrach: 1, ok: true}},
		{"no verbal after intubation scores 15", []ev{{1, v, 0}, {2, m, 1}, {2, e, 1}}, // 15, 15 (not 1 + 0 + 1)
			gcsScore{min: 15, motor: nan, verbal: 0, eyes: nan, endotrach: 1, ok: true}},
		{"after extubation nothing is carried", []ev{{1, v, 0}, {1, m, 1}, {2, v, 2}},
			gcsScore{min: 6 + 2 + 4, motor: 1, verbal: 2, eyes: nan, ok: true}},
		{"a value-less row is a chart time", []ev{{1, m, 2}, {1, v, 2}, {1, e, 2}, {2, v, nan}, {3, e, 3}},
			gcsScore{min: 6, motor: 2, verbal: 2, eyes: 2, ok: true}},
		{"tie: the earlier row", []ev{{1, m, 4}, {1, v, 2}, {1, e, 1}, {9, m, 4}, {9, v, 1}, {9, e, 2}},
			gcsScore{min: 7, motor: 4, verbal: 2, eyes: 1, ok: true}},
		{"no range check", []ev{{1, e, 0}}, gcsScore{min: 6 + 5 + 0, motor: nan, verbal: nan, eyes: 0, ok: true}},
		{"out of time order", []ev{{3, e, 1}, {1, m, 2}, {1, v, 2}}, gcsScore{min: 2 + 2 + 1, motor: 2, verbal: 2, eyes: 1, ok: true}},
		{"no row", nil, gcsScore{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The stay of interest is 1 of 3; stays 0 and 2 have rows that must not mix in.
			evs := []gcsEvent{{sec: 3600, stay: 0, component: gcsMotor, value: 1}, {sec: 7200, stay: 2, component: gcsEyes, value: 1}}
			for _, x := range tc.events {
				evs = append(evs, gcsEvent{sec: int32(x.h * 3600), stay: 1, component: int8(x.c), value: float32(x.value)})
			}
			got := scoreGCS(evs, 3)[1]
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if got.ok != tc.want.ok || !same(got.min, tc.want.min) || !same(got.motor, tc.want.motor) || !same(got.verbal, tc.want.verbal) ||
				!same(got.eyes, tc.want.eyes) || got.endotrach != tc.want.endotrach {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
