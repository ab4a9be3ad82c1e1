package tmnist

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"slices"
	"strings"
)

// Rendering is how an image is made from a digit and a texture window.
type Rendering int

const (
	// MNISTPlus is the construction of pylearn2's make_mnistplus.py, which the paper
	// adapted: the digit replaces the texture wherever its ink exceeds MaskThreshold, and
	// the fused image is embossed (Emboss), so the digit is a relief in the texture's grey.
	MNISTPlus Rendering = iota
	// Fused is MNISTPlus without the emboss step: the digit's ink replaces the texture where
	// it exceeds MaskThreshold. It is the ablation that shows what the emboss step does.
	Fused
	// Toned is this project's earlier rendering: the texture stretched and toned to
	// Config.Tones (one dark, one light), the digit blended over it as white strokes,
	// x = d + (1 − d)·b. The tone then decides μ_X almost alone, so the missingness hardly
	// depends on the digit within a texture and the observed-rows-only penalty is nearly
	// harmless: the option shows when obs is harmless.
	Toned
)

var renderingNames = [...]string{"mnistplus", "fused", "toned"}

// String names the rendering.
func (r Rendering) String() string {
	if r < 0 || int(r) >= len(renderingNames) {
		return fmt.Sprintf("Rendering(%d)", int(r))
	}
	return renderingNames[r]
}

// ParseRendering returns the rendering named s (as String names it: mnistplus, fused,
// toned).
func ParseRendering(s string) (Rendering, error) {
	if i := slices.Index(renderingNames[:], s); i >= 0 {
		return Rendering(i), nil
	}
	return 0, fmt.Errorf("tmnist: unknown rendering %q, want one of %s", s, strings.Join(renderingNames[:], ", "))
}

// MarshalText writes the rendering's name (in the JSON of a Report's Config).
func (r Rendering) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Emboss is the light of make_mnistplus.py's emboss step: a light source at Azimuth and
// Elevation (degrees) shines on the image read as a height field scaled by Depth/100.
type Emboss struct {
	Azimuth, Elevation, Depth float64
}

// DefaultEmboss returns the script's defaults: azimuth 45°, elevation 18°, depth 2.
func DefaultEmboss() Emboss { return Emboss{Azimuth: 45, Elevation: 18, Depth: 2} }

// DefaultMaskThreshold is the ink level above which make_mnistplus.py lets the digit
// replace the texture.
const DefaultMaskThreshold = 0.1

// Apply embosses a (w×h, row-major, grey levels in [0, 255]) into out as values in [0, 1],
// exactly as make_mnistplus.py's emboss: the gradient is numpy.gradient's (central
// differences inside, one-sided at the borders), its first component taken along the rows
// (the script's grad_x) and its second along the columns (grad_y), both scaled by
// Depth/100; each pixel is 255 times the dot product of (grad_x, grad_y, 1)/‖·‖, with the
// script's signs, and the light direction (cos e·cos a, cos e·sin a, sin e), clipped to
// [0, 255] and truncated to an integer (the script's astype('uint8')), then divided by 255.
// A flat region gets ⌊255·sin e⌋/255 (0.306 at 18°).
func (e Emboss) Apply(out []float32, a []float64, w, h int) {
	ele, azi := e.Elevation*2*math.Pi/360, e.Azimuth*2*math.Pi/360
	gd := math.Cos(ele)
	dx, dy, dz := gd*math.Cos(azi), gd*math.Sin(azi), math.Sin(ele)
	at := func(r, c int) float64 { return a[r*w+c] }
	// grad returns numpy.gradient of the samples f(0..n−1) at k (edge_order 1).
	grad := func(n, k int, f func(int) float64) float64 {
		switch {
		case n < 2:
			return 0
		case k == 0:
			return f(1) - f(0)
		case k == n-1:
			return f(n-1) - f(n-2)
		}
		return (f(k+1) - f(k-1)) / 2
	}
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			gx := grad(h, r, func(i int) float64 { return at(i, c) }) * e.Depth / 100
			gy := grad(w, c, func(j int) float64 { return at(r, j) }) * e.Depth / 100
			l := math.Sqrt(gx*gx + gy*gy + 1)
			v := 255 * (dx*gx/l + dy*gy/l + dz/l)
			v = math.Min(255, math.Max(0, v))
			out[r*w+c] = float32(math.Trunc(v) / 255)
		}
	}
}

// fuse writes into a (grey levels in [0, 255]) the texture window at (ox, oy) with the
// digit's ink d = pixel/255 in place of the texture wherever d > threshold, as
// make_mnistplus.py's blend_arr[mask] = frgd_arr[mask].
func fuse(a []float64, digit []uint8, t *Texture, ox, oy int, threshold float64) {
	for y := 0; y < Side; y++ {
		for x := 0; x < Side; x++ {
			v := t.At(ox+x, oy+y)
			if d := float64(digit[y*Side+x]) / 255; d > threshold {
				v = d
			}
			a[y*Side+x] = 255 * v
		}
	}
}

// Texture is a grey texture image with values in [0, 1], row-major.
type Texture struct {
	Name string // file the texture came from
	W, H int
	Pix  []float64
}

// At returns the value at column x, row y.
func (t *Texture) At(x, y int) float64 { return t.Pix[y*t.W+x] }

// LoadTexture reads a greyscale PNG (8 or 16 bits per pixel) as values in [0, 1]. The
// error names the file and the problem: missing (with the command that restores the
// committed textures), not a PNG or truncated, in colour, or of a single grey level.
func LoadTexture(path string) (*Texture, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("tmnist: texture %s not found; the textures are committed under data/textures/, restore them with scripts/data/textures.sh: %w", path, err)
		}
		return nil, fmt.Errorf("tmnist: %w", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("tmnist: texture %s: not a valid PNG file: %w", path, err)
	}
	b := img.Bounds()
	t := &Texture{Name: path, W: b.Dx(), H: b.Dy(), Pix: make([]float64, b.Dx()*b.Dy())}
	var at func(x, y int) float64 // the grey level in [0, 1]
	switch g := img.(type) {
	case *image.Gray:
		at = func(x, y int) float64 { return float64(g.GrayAt(x, y).Y) / 255 }
	case *image.Gray16:
		at = func(x, y int) float64 { return float64(g.Gray16At(x, y).Y) / 65535 }
	default:
		return nil, fmt.Errorf("tmnist: texture %s: colour model %T, want a greyscale PNG", path, img)
	}
	for y := 0; y < t.H; y++ {
		for x := 0; x < t.W; x++ {
			t.Pix[y*t.W+x] = at(b.Min.X+x, b.Min.Y+y)
		}
	}
	lo, hi := slices.Min(t.Pix), slices.Max(t.Pix)
	if hi <= lo {
		return nil, fmt.Errorf("tmnist: texture %s: every pixel is %v, want a texture with contrast", path, lo)
	}
	return t, nil
}

// Downsample returns the texture averaged over f×f blocks (the last rows and columns that
// do not fill a block are dropped): one image pixel then covers f texture pixels, so a
// 28-pixel image shows a 28·f-pixel window of the texture and its structure (bricks,
// blades of grass) stays visible at MNIST's resolution.
func (t *Texture) Downsample(f int) (*Texture, error) {
	if f < 1 || t.W/f < 1 || t.H/f < 1 {
		return nil, fmt.Errorf("tmnist: texture %s (%d×%d): cannot downsample by %d", t.Name, t.W, t.H, f)
	}
	out := &Texture{Name: t.Name, W: t.W / f, H: t.H / f}
	out.Pix = make([]float64, out.W*out.H)
	inv := 1 / float64(f*f)
	for y := 0; y < out.H; y++ {
		for x := 0; x < out.W; x++ {
			s := 0.0
			for dy := 0; dy < f; dy++ {
				row := t.Pix[(y*f+dy)*t.W+x*f:]
				for dx := 0; dx < f; dx++ {
					s += row[dx]
				}
			}
			out.Pix[y*out.W+x] = s * inv
		}
	}
	return out, nil
}

// Stretch returns the texture mapped affinely so that its q-quantile goes to 0 and its
// (1−q)-quantile to 1, clamped to [0, 1]: every texture then spans the same range before
// it is toned light or dark, whatever the photograph's exposure.
func (t *Texture) Stretch(q float64) (*Texture, error) {
	s := slices.Clone(t.Pix)
	slices.Sort(s)
	lo, hi := s[int(q*float64(len(s)-1))], s[int((1-q)*float64(len(s)-1))]
	if hi <= lo {
		return nil, fmt.Errorf("tmnist: texture %s: quantiles %v and %v coincide, cannot stretch", t.Name, q, 1-q)
	}
	out := &Texture{Name: t.Name, W: t.W, H: t.H, Pix: make([]float64, len(t.Pix))}
	for i, v := range t.Pix {
		out.Pix[i] = min(1, max(0, (v-lo)/(hi-lo)))
	}
	return out, nil
}
