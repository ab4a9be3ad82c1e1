package figures

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// SymLog is a symmetric logarithmic axis scale: linear within ±Linear, logarithmic beyond,
// on both sides of 0. It shows values that span decades (a train MMD of 2.4 next to ones of
// 0.006) without hiding zeros and negative estimates, which a log axis cannot show.
type SymLog struct {
	Linear float64
	// LinearDecades is the width of each half of the linear part, 0 to Linear, in decades of
	// the logarithmic part (0: one decade): below 1 the linear part takes less of the axis.
	LinearDecades float64
}

// half is the width of each half of the linear part in the scale's coordinates.
func (s SymLog) half() float64 {
	if s.LinearDecades > 0 {
		return s.LinearDecades
	}
	return 1
}

// forward maps v to the scale's linear coordinate: v/Linear·half() inside ±Linear, and one
// unit per decade beyond.
func (s SymLog) forward(v float64) float64 {
	a := math.Abs(v) / s.Linear
	if a <= 1 {
		return v / s.Linear * s.half()
	}
	return math.Copysign(s.half()+math.Log10(a), v)
}

// fit makes ax a SymLog axis holding [lo, hi] with pad (a fraction of the span in the
// scale's coordinates) on each side, ticked by SymLogTicks.
func (s SymLog) fit(ax *plot.Axis, lo, hi, pad float64) {
	flo, fhi := s.forward(lo), s.forward(hi)
	d := pad * (fhi - flo)
	ax.Min, ax.Max = s.inverse(flo-d), s.inverse(fhi+d)
	ax.Scale = s
	ax.Tick.Marker = SymLogTicks{Linear: s.Linear}
}

// Normalize implements plot.Normalizer.
func (s SymLog) Normalize(min, max, x float64) float64 {
	lo, hi := s.forward(min), s.forward(max)
	return (s.forward(x) - lo) / (hi - lo)
}

// SymLogTicks labels a SymLog axis at 0, ±Linear/2, ±Linear and 1, 2 and 5 times each
// decade beyond, with unlabelled ticks at the other multiples (3–9) of each decade, so that
// a value between two labels can be read. Sparse labels only 0, ±Linear/2 and the powers of
// ten, for a short axis over many decades, whose labels would otherwise touch.
type SymLogTicks struct {
	Linear float64
	Sparse bool
}

// Ticks implements plot.Ticker.
func (t SymLogTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	add := func(v float64, label bool) {
		if v < lo || v > hi {
			return
		}
		tk := plot.Tick{Value: v}
		if label {
			tk.Label = plotFormat(v, max(0, -int(math.Floor(math.Log10(math.Abs(v)+1e-300)))))
			if v == 0 {
				tk.Label = "0"
			}
		}
		ticks = append(ticks, tk)
	}
	add(0, true)
	for _, sign := range []float64{-1, 1} {
		add(sign*t.Linear/2, true)
	}
	top := math.Max(math.Abs(lo), math.Abs(hi))
	for d := t.Linear; d <= top*10; d *= 10 {
		for _, sign := range []float64{-1, 1} {
			for k := 1.0; k <= 9; k++ {
				add(sign*k*d, k == 1 || (!t.Sparse && (k == 2 || k == 5)))
			}
		}
	}
	return ticks
}

func plotFormat(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// inverse is the inverse of forward.
func (s SymLog) inverse(f float64) float64 {
	if h := s.half(); math.Abs(f) <= h {
		return f / h * s.Linear
	}
	return math.Copysign(s.Linear*math.Pow(10, math.Abs(f)-s.half()), f)
}

// roundTicks labels a linear axis at multiples of a round step (1, 2 or 5 times a power of
// ten) chosen to give fewer than most labels (10 when most is 0), with an unlabelled tick
// halfway between.
type roundTicks struct{ most int }

// Ticks implements plot.Ticker.
func (t roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	most := 10.0
	if t.most > 0 {
		most = float64(t.most)
	}
	step := math.Pow(10, math.Floor(math.Log10(hi-lo)))
	for _, m := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10} {
		if (hi-lo)/(step*m) < most {
			step *= m
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi+1e-12; k++ {
		v := k / 2 * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // not "-0.0"
		}
		t := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			t.Label = plotFormat(v, prec)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
