package tmnist

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"slices"
)

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
