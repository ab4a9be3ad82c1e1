package tmnist

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Side is the side of an MNIST image in pixels.
const Side = 28

// RequireDataEnv names the environment variable that turns a missing data set from a
// skipped test into a failed one (CI sets INVMMD_REQUIRE_DATA=1 after fetching the data).
const RequireDataEnv = "INVMMD_REQUIRE_DATA"

// DataDirEnv names the environment variable that overrides where the project's data
// folder is (default: the data/ folder at the root of the repository holding the working
// directory).
const DataDirEnv = "INVMMD_DATA_DIR"

// Tone is the grey range [Lo, Hi] that a texture's stretched values are mapped to.
type Tone struct {
	Lo, Hi float64
}

// Config sets how the textured-MNIST splits are made. DefaultConfig gives the values
// used in the experiments; every field is recorded in the Report.
type Config struct {
	// DataDir is the project's data folder: MNIST is read from DataDir/raw/mnist/ (fetched
	// by scripts/data/mnist.sh) and the textures from DataDir/textures/.
	DataDir string
	// Seed seeds everything random: the split, label flips, textures, crops and Δ.
	Seed uint64
	// FlipProb is the probability that the label is the other digit (paper: 0.25).
	FlipProb float64
	// PTrainAgree is P(Z = Y) in train and validation: Z ~ B(0.9Y + 0.1(1−Y)) (paper: 0.9).
	PTrainAgree float64
	// PTestAgree is P(Z = Y) in test (paper: 0.1, the correlation reversed).
	PTestAgree float64
	// ValFraction is the share of MNIST's training 0/1 images held out for validation.
	ValFraction float64
	// MaxTrain caps the MNIST training 0/1 images used for train plus validation (a random
	// subset; 0 = all 12,665). MaxTest caps the test images (0 = all 2,115). For quick runs.
	MaxTrain, MaxTest int
	// Textures are the texture files under DataDir/textures/ for Z = 0 and Z = 1.
	Textures [2]string
	// Rendering is how an image is made: MNISTPlus (make_mnistplus.py, the default),
	// Fused (the same without the emboss step) or Toned (the earlier toned blend).
	Rendering Rendering
	// MaskThreshold is the ink level above which the digit replaces the texture
	// (MNISTPlus and Fused; the script's 0.1).
	MaskThreshold float64
	// Emboss is the light of the emboss step (MNISTPlus; the script's 45°, 18°, depth 2).
	Emboss Emboss
	// Tones are the grey ranges the textures of Z = 0 and Z = 1 are rendered in (Toned
	// only): one dark, one light, so that the missingness rule μ_X < DarkThreshold tracks Z.
	Tones [2]Tone
	// Downsample is how many texture pixels one image pixel averages over, per side (the
	// script's DOWN_SAMPLE, 1: the texture at full resolution).
	Downsample int
	// StretchQuantile is the lower quantile of a texture that is mapped to its tone's Lo
	// (and 1 − it to Hi), after downsampling (Toned only).
	StretchQuantile float64
	// DarkThreshold is the mean pixel value below which an image counts as dark in the
	// missingness rule Q = 1[Y=1]·1[μ_X < DarkThreshold] (paper: 0.3).
	DarkThreshold float64
	// PObsElse is P(Δ = 1) where Q = 0 (paper: 0.2); where Q = 1 Z is always observed.
	PObsElse float64
}

// DefaultConfig returns the experiment's settings: the paper's probabilities, 1/6 of the
// training images for validation (10,554 train and 2,111 validation rows: the validation
// set is then the size of the test set, 2,115, and the ratio is MNIST's own 50,000 : 10,000),
// the make_mnistplus rendering (MNISTPlus: the digit's ink replaces the texture, then the
// emboss with the script's defaults) with brick for Z = 0 and grass for Z = 1, and the data
// folder found by DataDir. (Tones is used by the Toned rendering only.)
func DefaultConfig() Config {
	return Config{
		DataDir:         DataDir(),
		Seed:            1,
		FlipProb:        0.25,
		PTrainAgree:     0.9,
		PTestAgree:      0.1,
		ValFraction:     1.0 / 6,
		Textures:        [2]string{"brick.png", "grass.png"},
		Rendering:       MNISTPlus,
		MaskThreshold:   DefaultMaskThreshold,
		Emboss:          DefaultEmboss(),
		Tones:           [2]Tone{{Lo: 0, Hi: 0.25}, {Lo: 0.4, Hi: 0.7}},
		Downsample:      1,
		StretchQuantile: 0.01,
		DarkThreshold:   0.3,
		PObsElse:        0.2,
	}
}

// TonedConfig returns DefaultConfig with the earlier Toned rendering: grass toned dark for
// Z = 0, brick toned light for Z = 1, textures averaged over 4×4 blocks.
func TonedConfig() Config {
	c := DefaultConfig()
	c.Rendering, c.Downsample, c.Textures = Toned, 4, [2]string{"grass.png", "brick.png"}
	return c
}

// DataDir returns the project's data folder: $INVMMD_DATA_DIR when set, else the data/
// folder beside the go.mod of module github.com/invmmd/invmmd found by walking up from the
// working directory (so tests, commands and notebooks find it from any sub-folder), else
// "data".
func DataDir() string {
	if v := os.Getenv(DataDirEnv); v != "" {
		return v
	}
	dir, err := os.Getwd()
	if err != nil {
		return "data"
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/invmmd/invmmd\n")) {
			return filepath.Join(dir, "data")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "data"
		}
		dir = parent
	}
}

// Validate checks that the configuration describes a well-defined data set.
func (c Config) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"FlipProb", c.FlipProb}, {"PTrainAgree", c.PTrainAgree}, {"PTestAgree", c.PTestAgree},
		{"DarkThreshold", c.DarkThreshold}, {"PObsElse", c.PObsElse}} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("tmnist: config %s = %v, want a value in [0, 1]", p.name, p.v)
		}
	}
	if !(c.ValFraction > 0 && c.ValFraction < 1) {
		return fmt.Errorf("tmnist: config ValFraction = %v, want a value in (0, 1)", c.ValFraction)
	}
	if c.MaxTrain < 0 || c.MaxTest < 0 {
		return fmt.Errorf("tmnist: config MaxTrain = %d, MaxTest = %d, want 0 (all) or a positive cap", c.MaxTrain, c.MaxTest)
	}
	for z, tone := range c.Tones {
		if !(tone.Lo >= 0 && tone.Lo <= tone.Hi && tone.Hi <= 1) {
			return fmt.Errorf("tmnist: config Tones[%d] = [%v, %v], want 0 ≤ Lo ≤ Hi ≤ 1", z, tone.Lo, tone.Hi)
		}
		if c.Textures[z] == "" {
			return fmt.Errorf("tmnist: config Textures[%d] is empty, want a PNG file name under %s", z, filepath.Join(c.DataDir, "textures"))
		}
	}
	if c.Rendering < MNISTPlus || c.Rendering > Toned {
		return fmt.Errorf("tmnist: config Rendering = %d, want MNISTPlus, Fused or Toned", int(c.Rendering))
	}
	if !(c.MaskThreshold >= 0 && c.MaskThreshold < 1) {
		return fmt.Errorf("tmnist: config MaskThreshold = %v, want a value in [0, 1)", c.MaskThreshold)
	}
	if e := c.Emboss; c.Rendering == MNISTPlus && !(e.Depth > 0 && e.Elevation > 0 && e.Elevation <= 90 && !math.IsInf(e.Azimuth, 0) && !math.IsNaN(e.Azimuth)) {
		return fmt.Errorf("tmnist: config Emboss = %+v, want depth > 0, elevation in (0°, 90°] and a finite azimuth", e)
	}
	if c.Downsample < 1 {
		return fmt.Errorf("tmnist: config Downsample = %d, want at least 1", c.Downsample)
	}
	if !(c.StretchQuantile >= 0 && c.StretchQuantile < 0.5) {
		return fmt.Errorf("tmnist: config StretchQuantile = %v, want a value in [0, 0.5)", c.StretchQuantile)
	}
	return nil
}

// MNIST file names, as in the npm package and on Yann LeCun's page (".gz" also accepted).
var mnistFiles = struct{ trainImages, trainLabels, testImages, testLabels string }{
	"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
}

// MNISTDir is the folder that holds the fetched MNIST files for a data folder.
func MNISTDir(dataDir string) string { return filepath.Join(dataDir, "raw", "mnist") }

// mnistPath returns the path of an MNIST file, raw or with ".gz", or an error that says
// how to fetch MNIST.
func mnistPath(dataDir, name string) (string, error) {
	p := filepath.Join(MNISTDir(dataDir), name)
	for _, c := range []string{p, p + ".gz"} {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("tmnist: MNIST file %s (or %s.gz) not found; fetch MNIST with scripts/data/mnist.sh (run from the repository root)", p, name)
}

// Available returns nil when the files Build reads exist, and otherwise the error that
// names the missing file and the command that fetches it. Tests use it to skip (or, with
// INVMMD_REQUIRE_DATA=1, fail) when the data is absent.
func Available(cfg Config) error {
	for _, n := range []string{mnistFiles.trainImages, mnistFiles.trainLabels, mnistFiles.testImages, mnistFiles.testLabels} {
		if _, err := mnistPath(cfg.DataDir, n); err != nil {
			return err
		}
	}
	for _, t := range cfg.Textures {
		p := filepath.Join(cfg.DataDir, "textures", t)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("tmnist: texture %s not found; the textures are committed under data/textures/, restore them with scripts/data/textures.sh", p)
		}
	}
	return nil
}

// digits holds the 0 and 1 images of one MNIST part.
type digits struct {
	pix   [][]uint8 // each Side×Side
	digit []int     // 0 or 1
}

// loadDigits reads one part of MNIST (images and labels) and keeps the digits 0 and 1.
func loadDigits(dataDir, imagesName, labelsName string) (digits, []string, error) {
	ip, err := mnistPath(dataDir, imagesName)
	if err != nil {
		return digits{}, nil, err
	}
	lp, err := mnistPath(dataDir, labelsName)
	if err != nil {
		return digits{}, nil, err
	}
	im, err := ReadIDXImages(ip)
	if err != nil {
		return digits{}, nil, err
	}
	if im.Rows != Side || im.Cols != Side {
		return digits{}, nil, fmt.Errorf("tmnist: %s: images are %d×%d, want %d×%d", ip, im.Rows, im.Cols, Side, Side)
	}
	labels, err := ReadIDXLabels(lp)
	if err != nil {
		return digits{}, nil, err
	}
	if len(labels) != im.N {
		return digits{}, nil, fmt.Errorf("tmnist: %s holds %d labels but %s holds %d images", lp, len(labels), ip, im.N)
	}
	var d digits
	for i, l := range labels {
		if l <= 1 {
			d.pix = append(d.pix, im.Image(i))
			d.digit = append(d.digit, int(l))
		}
	}
	if len(d.digit) == 0 {
		return digits{}, nil, fmt.Errorf("tmnist: %s holds no digits 0 or 1", lp)
	}
	return d, []string{ip, lp}, nil
}

// Random streams, one per use, so that changing one split's size leaves the others' draws.
const (
	streamSplit = iota + 1
	streamTrain
	streamVal
	streamTest
)

// Build reads MNIST and the textures and returns the train, validation and test splits of
// textured MNIST with the Report of their statistics. The same Config gives the same
// splits, bit for bit.
func Build(cfg Config) (dataset.Splits, Report, error) {
	if err := cfg.Validate(); err != nil {
		return dataset.Splits{}, Report{}, err
	}
	if err := Available(cfg); err != nil {
		return dataset.Splits{}, Report{}, err
	}
	rep := Report{Config: cfg}
	train, src, err := loadDigits(cfg.DataDir, mnistFiles.trainImages, mnistFiles.trainLabels)
	if err != nil {
		return dataset.Splits{}, Report{}, err
	}
	rep.Sources = append(rep.Sources, src...)
	test, src, err := loadDigits(cfg.DataDir, mnistFiles.testImages, mnistFiles.testLabels)
	if err != nil {
		return dataset.Splits{}, Report{}, err
	}
	rep.Sources = append(rep.Sources, src...)
	rep.MNISTTrain01, rep.MNISTTest01 = len(train.digit), len(test.digit)

	var tex [2]*Texture
	for z, name := range cfg.Textures {
		p := filepath.Join(cfg.DataDir, "textures", name)
		if tex[z], err = prepareTexture(p, cfg.Downsample, cfg.StretchQuantile, cfg.Rendering == Toned); err != nil {
			return dataset.Splits{}, Report{}, err
		}
		rep.Sources = append(rep.Sources, p)
	}

	// Split MNIST's training 0/1 images into train and validation at random.
	rng := rand.New(rand.NewPCG(cfg.Seed, streamSplit))
	pool := rng.Perm(len(train.digit))
	if cfg.MaxTrain > 0 && cfg.MaxTrain < len(pool) {
		pool = pool[:cfg.MaxTrain]
	}
	nVal := int(math.Round(cfg.ValFraction * float64(len(pool))))
	if nVal < 1 || nVal >= len(pool) {
		return dataset.Splits{}, Report{}, fmt.Errorf("tmnist: %d training images with ValFraction %v leave an empty split", len(pool), cfg.ValFraction)
	}
	testIdx := rng.Perm(len(test.digit))
	if cfg.MaxTest > 0 && cfg.MaxTest < len(testIdx) {
		testIdx = testIdx[:cfg.MaxTest]
	}

	var sp dataset.Splits
	rep.Splits = make([]SplitStats, 3)
	sp.Train, rep.Splits[0] = compose("train", train, pool[nVal:], tex, cfg, cfg.PTrainAgree, streamTrain)
	sp.Val, rep.Splits[1] = compose("val", train, pool[:nVal], tex, cfg, cfg.PTrainAgree, streamVal)
	sp.Test, rep.Splits[2] = compose("test", test, testIdx, tex, cfg, cfg.PTestAgree, streamTest)
	if err := sp.Validate(); err != nil {
		return dataset.Splits{}, Report{}, fmt.Errorf("tmnist: built an invalid split: %w", err)
	}
	return sp, rep, nil
}

// prepareTexture loads a texture, downsamples it, stretches it when asked (Toned), and
// checks that it is large enough for a crop.
func prepareTexture(path string, downsample int, q float64, stretch bool) (*Texture, error) {
	t, err := LoadTexture(path)
	if err != nil {
		return nil, err
	}
	if t.W < Side*downsample || t.H < Side*downsample {
		return nil, fmt.Errorf("tmnist: texture %s is %d×%d, want at least %d×%d for %d-pixel images downsampled %d×",
			path, t.W, t.H, Side*downsample, Side*downsample, Side, downsample)
	}
	if t, err = t.Downsample(downsample); err != nil {
		return nil, err
	}
	if !stretch {
		return t, nil
	}
	return t.Stretch(q)
}

// compose makes one split from the MNIST images at idx: label, texture, image, μ_X, Q,
// Δ and the true G for each row, in the order of idx.
func compose(name string, src digits, idx []int, tex [2]*Texture, cfg Config, pAgree float64, stream uint64) (*dataset.Set, SplitStats) {
	n := len(idx)
	const d = Side * Side
	s := &dataset.Set{
		Name: name, Shape: []int{Side, Side, 1},
		X: make([]float32, n*d), Y: make([]float64, n), Z: make([]float64, n),
		Delta: make([]float64, n), GTrue: make([]float64, n),
	}
	st := SplitStats{Name: name}
	var darkZ, countZ [2]int
	var darkDZ, countDZ [2][2]int
	var muZ [2]float64
	flipped, q1 := 0, 0
	rng := rand.New(rand.NewPCG(cfg.Seed, stream))
	work := make([]float64, d) // the fused image in grey levels, before the emboss
	for r, i := range idx {
		digit := src.digit[i]
		st.Digits[digit]++
		y := digit
		if rng.Float64() < cfg.FlipProb {
			y = 1 - digit
			flipped++
		}
		// Z ~ B(pAgree·Y + (1−pAgree)(1−Y)).
		z := 0
		if pz := pAgree*float64(y) + (1-pAgree)*float64(1-y); rng.Float64() < pz {
			z = 1
		}
		t := tex[z]
		ox, oy := rng.IntN(t.W-Side+1), rng.IntN(t.H-Side+1)
		mu := cfg.render(s.X[r*d:(r+1)*d], work, src.pix[i], t, ox, oy, z)
		q := 0.0
		if y == 1 && mu < cfg.DarkThreshold {
			q = 1
			q1++
		}
		g := q + cfg.PObsElse*(1-q)
		delta := 0.0
		if rng.Float64() < g {
			delta = 1
		}
		s.Y[r], s.Z[r], s.Delta[r], s.GTrue[r] = float64(y), float64(z), delta, g
		countZ[z]++
		countDZ[digit][z]++
		muZ[z] += mu
		if mu < cfg.DarkThreshold {
			darkZ[z]++
			darkDZ[digit][z]++
		}
	}
	st.Summary = s.Summarize()
	st.Flipped = float64(flipped) / float64(n)
	st.PQ = float64(q1) / float64(n)
	for z := range 2 {
		st.PDark[z], st.MeanMu[z] = math.NaN(), math.NaN()
		if countZ[z] > 0 {
			st.PDark[z] = float64(darkZ[z]) / float64(countZ[z])
			st.MeanMu[z] = muZ[z] / float64(countZ[z])
		}
		for digit := range 2 {
			st.PDarkGivenDigitZ[digit][z] = math.NaN()
			if countDZ[digit][z] > 0 {
				st.PDarkGivenDigitZ[digit][z] = float64(darkDZ[digit][z]) / float64(countDZ[digit][z])
			}
		}
	}
	return s, st
}

// render writes into out the image of the digit over the window at (ox, oy) of texture t
// (that of Z = z) with the configured Rendering, using work as scratch, and returns its
// mean pixel value μ_X.
func (c Config) render(out []float32, work []float64, digit []uint8, t *Texture, ox, oy, z int) float64 {
	switch c.Rendering {
	case Toned:
		return renderToned(out, digit, t, ox, oy, c.Tones[z])
	case Fused:
		fuse(work, digit, t, ox, oy, c.MaskThreshold)
		for k, v := range work {
			out[k] = float32(v / 255)
		}
	default:
		fuse(work, digit, t, ox, oy, c.MaskThreshold)
		c.Emboss.Apply(out, work, Side, Side)
	}
	sum := 0.0
	for _, v := range out {
		sum += float64(v)
	}
	return sum / float64(len(out))
}

// renderToned writes into out the digit over the texture window at (ox, oy), toned to tone:
// x = d + (1 − d)·b with d the digit's ink in [0, 1] and b the toned texture, so the
// digit is white on either texture, as MNIST's digits are white on black. It returns the
// image's mean pixel value μ_X.
func renderToned(out []float32, digit []uint8, t *Texture, ox, oy int, tone Tone) float64 {
	sum := 0.0
	for y := 0; y < Side; y++ {
		for x := 0; x < Side; x++ {
			b := tone.Lo + (tone.Hi-tone.Lo)*t.At(ox+x, oy+y)
			d := float64(digit[y*Side+x]) / 255
			v := float32(d + (1-d)*b)
			out[y*Side+x] = v
			sum += float64(v)
		}
	}
	return sum / (Side * Side)
}

// SplitStats describes one split: what a reader checks before trusting the experiment.
type SplitStats struct {
	Name    string
	Summary dataset.Summary // rows, class and texture balance, P(Z=1|Y), observed fractions
	Digits  [2]int          // rows whose image is a 0 / a 1 (before label flipping)
	Flipped float64         // fraction of labels flipped
	PDark   [2]float64      // P(μ_X < DarkThreshold | Z = z)
	// PDarkGivenDigitZ[d][z] is P(μ_X < DarkThreshold | digit d, Z = z): the digit's ink
	// moves μ_X, so within a texture the missingness also depends on the image.
	PDarkGivenDigitZ [2][2]float64
	MeanMu           [2]float64 // mean of μ_X given Z = z
	PQ               float64    // P(Q = 1), the rows always observed
}

// Report records a Build: its configuration, the files it read and each split's
// statistics.
type Report struct {
	Config                    Config
	Sources                   []string
	MNISTTrain01, MNISTTest01 int // images of 0 and 1 in MNIST's training and test files
	Splits                    []SplitStats
}

// String renders the report as plain text, one line per split (notebook 02 prints it).
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "textured MNIST (seed %d, Z=0 %s, Z=1 %s, %s)\n", r.Config.Seed, r.Config.Textures[0], r.Config.Textures[1], r.Config.describeRendering())
	for _, s := range r.Splits {
		fmt.Fprintf(&b, "%s  digits 0/1=%d/%d  flipped=%.3f  P(μ<%.2g|Z=0)=%.3f  P(μ<%.2g|Z=1)=%.3f  mean μ|Z=%.3f/%.3f  P(μ<%.2g|digit,Z)=%.2f/%.2f/%.2f/%.2f  P(Q=1)=%.3f\n",
			s.Summary, s.Digits[0], s.Digits[1], s.Flipped, r.Config.DarkThreshold, s.PDark[0], r.Config.DarkThreshold, s.PDark[1],
			s.MeanMu[0], s.MeanMu[1], r.Config.DarkThreshold,
			s.PDarkGivenDigitZ[0][0], s.PDarkGivenDigitZ[0][1], s.PDarkGivenDigitZ[1][0], s.PDarkGivenDigitZ[1][1], s.PQ)
	}
	return b.String()
}

// describeRendering says in words how the images were made.
func (c Config) describeRendering() string {
	switch c.Rendering {
	case Toned:
		return fmt.Sprintf("toned rendering (Z=0 [%.2f, %.2f], Z=1 [%.2f, %.2f], white digit blended)", c.Tones[0].Lo, c.Tones[0].Hi, c.Tones[1].Lo, c.Tones[1].Hi)
	case Fused:
		return fmt.Sprintf("digit replaces texture where ink > %.2g, no emboss", c.MaskThreshold)
	}
	return fmt.Sprintf("make_mnistplus (digit replaces texture where ink > %.2g, emboss azimuth %g°, elevation %g°, depth %g)",
		c.MaskThreshold, c.Emboss.Azimuth, c.Emboss.Elevation, c.Emboss.Depth)
}
