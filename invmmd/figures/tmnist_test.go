package figures

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// gridSet returns a set of 4×4 one-channel images: row i has every pixel equal to
// value(i), label y(i) and nuisance z(i), and Z observed on even rows.
func gridSet(name string, n int, y, z func(int) float64, value func(int) float32) *dataset.Set {
	s := &dataset.Set{Name: name, Shape: []int{4, 4, 1}}
	for i := range n {
		for range 16 {
			s.X = append(s.X, value(i))
		}
		s.Y = append(s.Y, y(i))
		s.Z = append(s.Z, z(i))
		s.Delta = append(s.Delta, float64(1-i%2))
	}
	return s
}

func TestCellStrip(t *testing.T) {
	// Rows cycle through the cells (0,0), (0,1), (1,0), (1,1); pixel value i/20.
	s := gridSet("train", 20, func(i int) float64 { return float64(i % 4 / 2) }, func(i int) float64 { return float64(i % 2) },
		func(i int) float32 { return float32(i) / 20 })
	img, n, err := cellStrip(s, 1, 0, 3) // rows 2, 6, 10
	if err != nil {
		t.Fatal(err)
	}
	tile := 4 * gridScale
	gap := gapPixels(tile)
	if n != 3 || img.Bounds().Dx() != 3*tile+2*gap || img.Bounds().Dy() != tile {
		t.Fatalf("strip of %d images, %v; want 3 images, %d×%d", n, img.Bounds(), 3*tile+2*gap, tile)
	}
	for k, row := range []int{2, 6, 10} {
		want := uint8(float64(row)/20*255 + 0.5)
		if got := img.(*image.Gray).GrayAt(k*(tile+gap)+tile/2, tile/2).Y; got != want {
			t.Fatalf("tile %d: grey %d, want %d (row %d)", k, got, want, row)
		}
	}
	if gap > 0 {
		if got := img.(*image.Gray).GrayAt(tile, 0).Y; got != 255 {
			t.Fatalf("gap pixel is %d, want white", got)
		}
	}
	// A cell with fewer rows than asked gives what there is; an empty cell gives nothing.
	if _, n, _ := cellStrip(s, 1, 0, 100); n != 5 {
		t.Fatalf("cell (1,0) of 20 cycling rows: %d images, want 5", n)
	}
	one := gridSet("one", 1, func(int) float64 { return 0 }, func(int) float64 { return 0 }, func(int) float32 { return 0 })
	if img, n, err := cellStrip(one, 1, 1, 4); img != nil || n != 0 || err != nil {
		t.Fatalf("empty cell: %v, %d, %v; want nil, 0, nil", img, n, err)
	}
}

func TestTMNISTGridRenders(t *testing.T) {
	grey := func(int) float32 { return 128.0 / 255 }
	cyc := func(i int) float64 { return float64(i % 2) }
	train := gridSet("train", 16, cyc, func(i int) float64 { return float64(i / 2 % 2) }, grey)
	test := gridSet("test", 8, cyc, cyc, grey) // cells (0,1) and (1,0) empty
	p, w, h, err := TMNISTGrid([]*dataset.Set{train, test}, 4, [2]string{"grass", "brick"}, "some labels are flipped")
	if err != nil {
		t.Fatal(err)
	}
	if w <= 0 || h <= 0 || w < h {
		t.Fatalf("size %v × %v, want a wide figure", w, h)
	}
	b, err := PNG(p, w, h)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The strips are uniform grey 128: count those pixels. Train shows 4 cells of 4
	// images, test 2 cells of 4: 24 tiles of about (0.42 in · 96 dpi)² pixels each.
	count := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if c := color.GrayModel.Convert(img.At(x, y)).(color.Gray); c.Y == 128 {
				count++
			}
		}
	}
	if min := 24 * 30 * 30; count < min {
		t.Fatalf("%d grey pixels in the rendered grid, want at least %d (24 tiles)", count, min)
	}
}

func TestTMNISTGridErrors(t *testing.T) {
	ok := func() *dataset.Set {
		return gridSet("s", 4, func(i int) float64 { return float64(i % 2) }, func(int) float64 { return 0 }, func(int) float32 { return 0.5 })
	}
	flat := ok()
	flat.Shape = []int{16}
	badY := ok()
	badY.Y[2] = 2
	badPixel := ok()
	badPixel.X[20] = 1.5
	for _, c := range []struct {
		name    string
		sets    []*dataset.Set
		perCell int
		want    string
	}{
		{"no sets", nil, 4, "at least one set"},
		{"no images per cell", []*dataset.Set{ok()}, 0, "one image per cell"},
		{"empty set", []*dataset.Set{{Name: "e", Shape: []int{4, 4, 1}}}, 4, "empty set"},
		{"not images", []*dataset.Set{flat}, 4, "feature shape [16]"},
		{"label 2", []*dataset.Set{badY}, 4, "row 2: Y = 2"},
		{"pixel 1.5", []*dataset.Set{badPixel}, 4, "row 1: pixel value 1.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := TMNISTGrid(c.sets, c.perCell, [2]string{}, "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
