package tmnist

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func pngBytes(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLoadTextureValid(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	for i := range g.Pix {
		g.Pix[i] = uint8(51 * i) // 0, 51, …, 255
	}
	g16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	g16.SetGray16(1, 0, color.Gray16{Y: 65535})
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		img  image.Image
		want []float64
	}{
		{"gray8", g, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{"gray16", g16, []float64{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tex, err := LoadTexture(writeFile(t, dir, c.name+".png", pngBytes(t, c.img)))
			if err != nil {
				t.Fatal(err)
			}
			if tex.W*tex.H != len(c.want) {
				t.Fatalf("size %d×%d, want %d pixels", tex.W, tex.H, len(c.want))
			}
			for i, w := range c.want {
				if math.Abs(tex.Pix[i]-w) > 1e-12 {
					t.Fatalf("pixel %d = %v, want %v", i, tex.Pix[i], w)
				}
			}
		})
	}
}

func TestLoadTextureMalformed(t *testing.T) {
	dir := t.TempDir()
	gray := image.NewGray(image.Rect(0, 0, 8, 8))
	gray.Pix[3] = 200
	good := pngBytes(t, gray)
	rgb := image.NewRGBA(image.Rect(0, 0, 4, 4))
	rgb.Pix[0] = 9
	flat := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range flat.Pix {
		flat.Pix[i] = 77
	}
	for k, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "not a valid PNG"},
		{"not a PNG", []byte("P5 8 8 255\n"), "not a valid PNG"},
		{"truncated", good[:len(good)/2], "not a valid PNG"},
		{"colour", pngBytes(t, rgb), "want a greyscale PNG"},
		{"constant", pngBytes(t, flat), "every pixel is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, string(rune('a'+k))+".png", c.file)
			_, err := LoadTexture(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want it to name %s and contain %q", err, p, c.want)
			}
		})
	}
	p := filepath.Join(dir, "missing.png")
	if _, err := LoadTexture(p); err == nil || !strings.Contains(err.Error(), "scripts/data/textures.sh") {
		t.Fatalf("missing texture: error %v, want it to name scripts/data/textures.sh", err)
	}
}

func TestDownsampleAndStretch(t *testing.T) {
	// A 5×4 texture: value = x + 10y. Downsampling by 2 keeps 2×2 blocks, dropping the
	// last column; each block's mean is its centre's value.
	tex := &Texture{Name: "ramp", W: 5, H: 4, Pix: make([]float64, 20)}
	for y := 0; y < 4; y++ {
		for x := 0; x < 5; x++ {
			tex.Pix[y*5+x] = float64(x + 10*y)
		}
	}
	d, err := tex.Downsample(2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{5.5, 7.5, 25.5, 27.5}
	if d.W != 2 || d.H != 2 {
		t.Fatalf("downsampled to %d×%d, want 2×2", d.W, d.H)
	}
	for i := range want {
		if d.Pix[i] != want[i] {
			t.Fatalf("downsampled pixel %d = %v, want %v", i, d.Pix[i], want[i])
		}
	}
	if _, err := tex.Downsample(6); err == nil {
		t.Fatal("downsampling a 5×4 texture by 6: no error")
	}
	s, err := d.Stretch(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{0, 2.0 / 22, 20.0 / 22, 1} {
		if math.Abs(s.Pix[i]-w) > 1e-12 {
			t.Fatalf("stretched pixel %d = %v, want %v", i, s.Pix[i], w)
		}
	}
}
