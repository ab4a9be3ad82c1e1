package tmnist

import (
	"math"
	"testing"
)

// TestEmbossHandComputed checks Emboss.Apply against a 2×3 image worked by hand from
// make_mnistplus.py's formula (azimuth 45°, elevation 18°, depth 2):
//
//	a = [[0, 100, 200], [50, 50, 50]]
//	numpy.gradient: along rows (grad_x) [[50, −50, −150], [50, −50, −150]];
//	                along columns (grad_y) [[100, 100, 100], [0, 0, 0]]
//	× depth/100 = 0.02: gx = [[1, −1, −3], …], gy = [[2, 2, 2], [0, 0, 0]]
//	light (dx, dy, dz) = (cos 18°·cos 45°, cos 18°·sin 45°, sin 18°) = (0.672499, 0.672499, 0.309017)
//	(0,0): (0.672499·1 + 0.672499·2 + 0.309017)/√6  = 0.949795 → 255·… = 242.2 → 242
//	(0,1): (−0.672499 + 1.344998 + 0.309017)/√6     = 0.400702 → 102.2 → 102
//	(0,2): (−2.017497 + 1.344998 + 0.309017)/√14    < 0        → 0
//	(1,0): (0.672499 + 0.309017)/√2                 = 0.694035 → 177.0 → 176 (truncated)
//	(1,1), (1,2): gx < 0, gy = 0: negative           → 0
func TestEmbossHandComputed(t *testing.T) {
	a := []float64{0, 100, 200, 50, 50, 50}
	want := []float64{242, 102, 0, 176, 0, 0}
	out := make([]float32, len(a))
	DefaultEmboss().Apply(out, a, 3, 2)
	for k := range want {
		if got := float64(out[k]) * 255; math.Abs(got-want[k]) > 1e-3 {
			t.Errorf("pixel %d: %.3f/255, want %v/255", k, got, want[k])
		}
	}
	// A flat image gets ⌊255·sin 18°⌋ = 78 everywhere.
	flat := make([]float64, 16)
	for k := range flat {
		flat[k] = 137
	}
	fo := make([]float32, 16)
	DefaultEmboss().Apply(fo, flat, 4, 4)
	for k, v := range fo {
		if math.Abs(float64(v)*255-78) > 1e-3 {
			t.Fatalf("flat pixel %d: %v/255, want 78/255", k, float64(v)*255)
		}
	}
}

// TestFuseThreshold checks the replacement rule: the digit's ink d = pixel/255 replaces
// the texture where d > 0.1 (pixel 26 and above: 25/255 = 0.098, 26/255 = 0.102), and the
// texture shows through elsewhere.
func TestFuseThreshold(t *testing.T) {
	tex := &Texture{Name: "flat", W: Side + 2, H: Side + 2, Pix: make([]float64, (Side+2)*(Side+2))}
	for k := range tex.Pix {
		tex.Pix[k] = 0.4
	}
	tex.Pix[1*tex.W+2] = 0.9 // the window at (1, 1) shows it at image pixel (x 1, y 0)
	digit := make([]uint8, Side*Side)
	digit[0], digit[1], digit[2], digit[3] = 25, 26, 255, 0
	out := make([]float64, Side*Side)
	fuse(out, digit, tex, 1, 1, DefaultMaskThreshold)
	want := []float64{0.4 * 255, 26, 255, 0.4 * 255}
	for k, w := range want {
		if math.Abs(out[k]-w) > 1e-9 {
			t.Errorf("pixel %d (ink %d): %v, want %v", k, digit[k], out[k], w)
		}
	}
	// Pixel (x 1, y 0) has ink 26 > 25.5: the digit hides the texture's 0.9 there.
	if out[1] != 26 {
		t.Errorf("pixel 1: %v, want the digit's 26 over the texture's 0.9·255", out[1])
	}
	if math.Abs(out[5]-0.4*255) > 1e-9 {
		t.Errorf("pixel 5: %v, want the texture's 0.4·255", out[5])
	}
}
