package tmnist

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// requireData skips the test when the data Build reads is missing, unless
// INVMMD_REQUIRE_DATA=1, in which case the test fails (CI sets it after fetching). Under
// -short it always skips: make test-short runs no test that needs fetched data.
func requireData(t *testing.T, cfg Config) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short runs no test that reads MNIST")
	}
	if err := Available(cfg); err != nil {
		if os.Getenv(RequireDataEnv) == "1" {
			t.Fatalf("%s=1 and the data is missing: %v", RequireDataEnv, err)
		}
		t.Skipf("data missing (set %s=1 to fail instead): %v", RequireDataEnv, err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"default", func(*Config) {}, ""},
		{"flip", func(c *Config) { c.FlipProb = 1.5 }, "FlipProb = 1.5"},
		{"agree NaN", func(c *Config) { c.PTrainAgree = math.NaN() }, "PTrainAgree = NaN"},
		{"val 0", func(c *Config) { c.ValFraction = 0 }, "ValFraction = 0"},
		{"negative cap", func(c *Config) { c.MaxTest = -1 }, "MaxTest = -1"},
		{"tone order", func(c *Config) { c.Tones[1] = Tone{Lo: 0.8, Hi: 0.2} }, "Tones[1] = [0.8, 0.2]"},
		{"no texture", func(c *Config) { c.Textures[0] = "" }, "Textures[0] is empty"},
		{"downsample", func(c *Config) { c.Downsample = 0 }, "Downsample = 0"},
		{"quantile", func(c *Config) { c.StretchQuantile = 0.5 }, "StretchQuantile = 0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.modify(&cfg)
			err := cfg.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// fakeMNIST writes small IDX files in MNIST's layout under dataDir/raw/mnist: nTrain and
// nTest images whose labels cycle through 0–9, each image a bar whose width depends on
// the label, so that the pipeline can be tested without the real data.
func fakeMNIST(t *testing.T, dataDir string, nTrain, nTest int, gz bool) {
	t.Helper()
	dir := MNISTDir(dataDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(imagesName, labelsName string, n int) {
		pix := make([]byte, n*Side*Side)
		labels := make([]byte, n)
		for i := range n {
			labels[i] = byte(i % 10)
			for y := 4; y < 24; y++ {
				for x := 12; x < 14+2*int(labels[i]); x++ {
					pix[i*Side*Side+y*Side+x] = 255
				}
			}
		}
		img, lab := idxBytes([]int{n, Side, Side}, pix), idxBytes([]int{n}, labels)
		if gz {
			img, lab, imagesName, labelsName = gzipBytes(t, img), gzipBytes(t, lab), imagesName+".gz", labelsName+".gz"
		}
		writeFile(t, dir, imagesName, img)
		writeFile(t, dir, labelsName, lab)
	}
	write(mnistFiles.trainImages, mnistFiles.trainLabels, nTrain)
	write(mnistFiles.testImages, mnistFiles.testLabels, nTest)
}

// withTextures copies the committed textures into dataDir/textures.
func withTextures(t *testing.T, dataDir string) {
	t.Helper()
	src := filepath.Join(DataDir(), "textures")
	if err := os.MkdirAll(filepath.Join(dataDir, "textures"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range DefaultConfig().Textures {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatalf("the committed textures are needed (restore with scripts/data/textures.sh): %v", err)
		}
		writeFile(t, filepath.Join(dataDir, "textures"), name, b)
	}
}

// checkRows recomputes μ_X, Q, G from each row's image and label and checks the set's
// columns against them, and that pixels lie in [0, 1].
func checkRows(t *testing.T, s *dataset.Set, cfg Config) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Shape, []int{Side, Side, 1}) {
		t.Fatalf("%s: shape %v, want [28 28 1]", s.Name, s.Shape)
	}
	for i := range s.Len() {
		mu := 0.0
		for k, v := range s.Row(i) {
			if v < 0 || v > 1 {
				t.Fatalf("%s row %d pixel %d = %v, want a value in [0, 1]", s.Name, i, k, v)
			}
			mu += float64(v)
		}
		mu /= Side * Side
		q := 0.0
		if s.Y[i] == 1 && mu < cfg.DarkThreshold {
			q = 1
		}
		if g := q + cfg.PObsElse*(1-q); s.GTrue[i] != g {
			t.Fatalf("%s row %d: Y=%v μ_X=%.4f GTrue=%v, want %v", s.Name, i, s.Y[i], mu, s.GTrue[i], g)
		}
		if q == 1 && s.Delta[i] != 1 {
			t.Fatalf("%s row %d: Q=1 but Δ=0", s.Name, i)
		}
	}
}

func TestBuildSynthetic(t *testing.T) {
	for _, gz := range []bool{false, true} {
		dir := t.TempDir()
		fakeMNIST(t, dir, 300, 100, gz)
		withTextures(t, dir)
		cfg := DefaultConfig()
		cfg.DataDir = dir
		sp, rep, err := Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Labels cycle 0–9: 60 of 300 training and 20 of 100 test images are 0 or 1.
		if rep.MNISTTrain01 != 60 || rep.MNISTTest01 != 20 {
			t.Fatalf("kept %d training and %d test images of 0/1, want 60 and 20", rep.MNISTTrain01, rep.MNISTTest01)
		}
		if sp.Train.Len() != 50 || sp.Val.Len() != 10 || sp.Test.Len() != 20 {
			t.Fatalf("split sizes %d/%d/%d, want 50/10/20", sp.Train.Len(), sp.Val.Len(), sp.Test.Len())
		}
		for _, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
			checkRows(t, s, cfg)
		}
		if len(rep.Splits) != 3 || rep.Splits[2].Name != "test" || rep.Splits[2].Summary.N != 20 {
			t.Fatalf("report does not list the test split of 20 rows: %+v", rep.Splits)
		}
		// notebook 02 prints the report: a line per split, not the struct's fields
		if s := rep.String(); !strings.HasPrefix(s, "textured MNIST (seed") || strings.Count(s, "\n") != 4 || !strings.Contains(s, "test  n=20") {
			t.Fatalf("report's text:\n%s", s)
		}
	}
}

func TestBuildReproducible(t *testing.T) {
	dir := t.TempDir()
	fakeMNIST(t, dir, 200, 100, false)
	withTextures(t, dir)
	cfg := DefaultConfig()
	cfg.DataDir = dir
	a, _, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed++
	c, _, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y *dataset.Set) bool {
		return slices.Equal(x.X, y.X) && slices.Equal(x.Y, y.Y) && slices.Equal(x.Z, y.Z) && slices.Equal(x.Delta, y.Delta)
	}
	for _, p := range [][2]*dataset.Set{{a.Train, b.Train}, {a.Val, b.Val}, {a.Test, b.Test}} {
		if !same(p[0], p[1]) {
			t.Fatalf("%s: two builds with the same seed differ", p[0].Name)
		}
	}
	if same(a.Train, c.Train) || same(a.Test, c.Test) {
		t.Fatal("builds with seeds 1 and 2 give the same rows")
	}
}

func TestBuildBadData(t *testing.T) {
	t.Run("missing MNIST", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.DataDir = t.TempDir()
		_, _, err := Build(cfg)
		if err == nil || !strings.Contains(err.Error(), "scripts/data/mnist.sh") {
			t.Fatalf("error %v, want it to say scripts/data/mnist.sh", err)
		}
	})
	t.Run("missing textures", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.DataDir = t.TempDir()
		fakeMNIST(t, cfg.DataDir, 20, 20, false)
		_, _, err := Build(cfg)
		if err == nil || !strings.Contains(err.Error(), "scripts/data/textures.sh") {
			t.Fatalf("error %v, want it to say scripts/data/textures.sh", err)
		}
	})
	t.Run("labels and images disagree", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.DataDir = t.TempDir()
		fakeMNIST(t, cfg.DataDir, 20, 20, false)
		withTextures(t, cfg.DataDir)
		writeFile(t, MNISTDir(cfg.DataDir), mnistFiles.testLabels, idxBytes([]int{19}, make([]byte, 19)))
		_, _, err := Build(cfg)
		if err == nil || !strings.Contains(err.Error(), "holds 19 labels but") || !strings.Contains(err.Error(), "holds 20 images") {
			t.Fatalf("error %v, want it to report 19 labels for 20 images", err)
		}
	})
	t.Run("images not 28x28", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.DataDir = t.TempDir()
		fakeMNIST(t, cfg.DataDir, 20, 20, false)
		withTextures(t, cfg.DataDir)
		writeFile(t, MNISTDir(cfg.DataDir), mnistFiles.trainImages, idxBytes([]int{20, 14, 14}, make([]byte, 20*14*14)))
		_, _, err := Build(cfg)
		if err == nil || !strings.Contains(err.Error(), "images are 14×14, want 28×28") {
			t.Fatalf("error %v, want it to report the 14×14 images", err)
		}
	})
	t.Run("texture too small", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.DataDir = t.TempDir()
		fakeMNIST(t, cfg.DataDir, 20, 20, false)
		withTextures(t, cfg.DataDir)
		cfg.Downsample = 20 // 560-pixel windows from a 512-pixel texture
		_, _, err := Build(cfg)
		if err == nil || !strings.Contains(err.Error(), "want at least 560×560") {
			t.Fatalf("error %v, want it to say the texture is too small", err)
		}
	})
}

// within reports whether an observed proportion is within 4 binomial standard deviations
// of p for n draws.
func within(got, p float64, n int) bool {
	return math.Abs(got-p) <= 4*math.Sqrt(p*(1-p)/float64(n))
}

// TestBuildRealData checks the composition on the real MNIST: split sizes, the paper's
// probabilities, and that the missingness rule tracks the dark texture.
func TestBuildRealData(t *testing.T) {
	cfg := DefaultConfig()
	requireData(t, cfg)
	sp, rep, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep.Splits)
	if rep.MNISTTrain01 != 12665 || rep.MNISTTest01 != 2115 {
		t.Fatalf("MNIST holds %d training and %d test images of 0/1, want 12665 and 2115", rep.MNISTTrain01, rep.MNISTTest01)
	}
	if sp.Train.Len()+sp.Val.Len() != 12665 || sp.Test.Len() != 2115 || sp.Val.Len() != 2111 {
		t.Fatalf("split sizes %d/%d/%d, want 10554/2111/2115", sp.Train.Len(), sp.Val.Len(), sp.Test.Len())
	}
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		checkRows(t, s, cfg)
		st := rep.Splits[k]
		n := s.Len()
		agree := cfg.PTrainAgree
		if s.Name == "test" {
			agree = cfg.PTestAgree
		}
		if !within(st.Flipped, cfg.FlipProb, n) {
			t.Errorf("%s: %.3f of labels flipped, want %.2f", s.Name, st.Flipped, cfg.FlipProb)
		}
		if !within(st.Summary.PAgreeYZ, agree, n) {
			t.Errorf("%s: P(Y=Z) = %.3f, want %.2f", s.Name, st.Summary.PAgreeYZ, agree)
		}
		// After the emboss, μ_X < 0.3 happens on both textures but not always, more often on
		// brick (Z = 0, more edges) than on grass, and, within a texture, more often for a 1
		// than for a 0: the missingness depends on the image within each (Y, Z) cell.
		for z := range 2 {
			if !(st.PDark[z] > 0 && st.PDark[z] < 1) {
				t.Errorf("%s: P(μ_X<0.3|Z=%d) = %.3f, want a value strictly between 0 and 1", s.Name, z, st.PDark[z])
			}
		}
		if st.PDark[0] <= st.PDark[1] {
			t.Errorf("%s: P(μ_X<0.3|Z=0, brick) = %.3f ≤ P(μ_X<0.3|Z=1, grass) = %.3f", s.Name, st.PDark[0], st.PDark[1])
		}
		if s.Name == "train" {
			for z := range 2 {
				p0, p1 := st.PDarkGivenDigitZ[0][z], st.PDarkGivenDigitZ[1][z]
				n0, n1 := float64(st.Digits[0])/2, float64(st.Digits[1])/2 // about half of each digit per texture
				se := math.Sqrt(p0*(1-p0)/n0 + p1*(1-p1)/n1)
				if p1-p0 < 3*se {
					t.Errorf("train, Z=%d: P(μ_X<0.3 | digit 1) − P(μ_X<0.3 | digit 0) = %.3f − %.3f, want above 3 SE (%.3f)", z, p1, p0, 3*se)
				}
			}
		}
		// Where Q = 0, Z is observed with probability PObsElse.
		obs, m := 0, 0
		for i := range n {
			if s.GTrue[i] < 1 {
				m++
				if s.Delta[i] == 1 {
					obs++
				}
			}
		}
		if !within(float64(obs)/float64(m), cfg.PObsElse, m) {
			t.Errorf("%s: Z observed in %d of %d rows with Q=0, want a fraction near %.2f", s.Name, obs, m, cfg.PObsElse)
		}
	}
}

// TestBuildTonedRealData keeps the earlier Toned rendering honest: its dark texture (grass,
// Z = 0) is mostly below the threshold, its light one (brick) never.
func TestBuildTonedRealData(t *testing.T) {
	cfg := TonedConfig()
	requireData(t, cfg)
	cfg.MaxTrain, cfg.MaxTest = 3000, 500
	_, rep, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range rep.Splits {
		if st.PDark[0] < 0.6 || st.PDark[1] > 0.01 {
			t.Errorf("%s: P(μ_X<0.3|Z=0) = %.3f, P(μ_X<0.3|Z=1) = %.3f; want the first above 0.6 and the second near 0",
				st.Name, st.PDark[0], st.PDark[1])
		}
	}
}

// TestParseRendering reads back every rendering's name and rejects others.
func TestParseRendering(t *testing.T) {
	for _, r := range []Rendering{MNISTPlus, Fused, Toned} {
		if got, err := ParseRendering(r.String()); err != nil || got != r {
			t.Errorf("ParseRendering(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := ParseRendering("emboss"); err == nil || !strings.Contains(err.Error(), "mnistplus, fused, toned") {
		t.Errorf("ParseRendering(emboss): %v, want an error listing the renderings", err)
	}
}
