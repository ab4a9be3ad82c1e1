package figures

import (
	"image/color"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The project's palette: every colour a figure uses is defined here, so that a method has
// one colour in every figure (results, variance, training curves, box plots, histograms)
// and a colour means one thing. The hues are Okabe & Ito's (2008) colour-blind safe set;
// the darker yellow and the greys add the lightness steps ten methods need.
var (
	Black         = color.RGBA{0, 0, 0, 255}
	Orange        = color.RGBA{230, 159, 0, 255}
	SkyBlue       = color.RGBA{86, 180, 233, 255}
	BluishGreen   = color.RGBA{0, 158, 115, 255}
	Blue          = color.RGBA{0, 114, 178, 255}
	Vermillion    = color.RGBA{213, 94, 0, 255}
	ReddishPurple = color.RGBA{204, 121, 167, 255}
	// DarkYellow is the set's yellow (240, 228, 66; too light for marks on white) at lower
	// lightness, which colour-blind readers tell apart as well as anyone.
	DarkYellow = color.RGBA{160, 145, 0, 255}
	Grey       = color.RGBA{120, 120, 120, 255}
	LightGrey  = color.RGBA{175, 175, 175, 255}
)

// series are the colours of series that are neither methods nor Z values (Series).
var series = []color.Color{Blue, Vermillion, BluishGreen, Orange, ReddishPurple, SkyBlue, Black, DarkYellow}

// Series returns the colours of series that are neither methods nor Z values (e.g. the
// true G of a nuisance fit), in the order they are given out.
func Series() []color.Color { return slices.Clone(series) }

// Roles: colours of things that are not methods. They are kept apart from the methods'
// meaning within a figure: a figure coloured by method draws the paper's values and the
// reference lines in these neutral colours, and the figures coloured by Z draw no method.
var (
	// PaperColor draws the paper's reported values (open diamonds) next to ours, which
	// take their method's colour.
	PaperColor color.Color = color.RGBA{60, 60, 60, 255}
	// KeyColor draws the legend key of a mark that takes each method's colour in the plot
	// (our mean ± sd), so that the key names no method.
	KeyColor color.Color = color.RGBA{90, 90, 90, 255}
	// ReferenceColor draws reference lines: chance accuracy, the zero line, a true value.
	ReferenceColor color.Color = LightGrey
	// CeilingColor draws the best accuracy an invariant model can reach.
	CeilingColor color.Color = Black
	// CaveatColor shades the parts of a figure whose values rest on a guard of the
	// estimators (the batch sizes of the variance study with a floored normaliser): light
	// enough for every mark to stay legible over it.
	CaveatColor color.Color = color.RGBA{228, 228, 228, 255}
	// ZColors are the colours of the nuisance's two values, Z = 0 and Z = 1.
	ZColors = [2]color.Color{Blue, Vermillion}
	// CellColors are the colours of the four (Y, Z) cells, indexed [Y][Z]: blue for Y = 0,
	// red for Y = 1, the lighter shade for Z = 1.
	CellColors = [2][2]color.Color{{Blue, SkyBlue}, {Vermillion, Orange}}
)

// MethodColor returns the colour of a method named as method.Names() spells it (and
// whether it is one): the colour it has in every figure of the project.
func MethodColor(name string) (color.Color, bool) {
	m, err := method.Parse(name)
	if err != nil || m.String() != name {
		return nil, false
	}
	return m.Colour(), true
}

// methodColorOr is MethodColor(name), or other when name is no method.
func methodColorOr(name string, other color.Color) color.Color {
	if c, ok := MethodColor(name); ok {
		return c
	}
	return other
}

// methodOf finds the method a series label names: the whole label ("dr"), its first word
// or line ("ip+\ntrue G", "dr trained"), or the text of its last parentheses ("h (dr)", as
// the training curves are named).
func methodOf(label string) (string, bool) {
	label = strings.TrimSpace(label)
	cands := []string{label}
	if f := strings.Fields(label); len(f) > 0 {
		cands = append(cands, strings.TrimRight(f[0], ",:;"))
	}
	if i, j := strings.LastIndex(label, "("), strings.LastIndex(label, ")"); i >= 0 && j > i {
		cands = append(cands, strings.TrimSpace(label[i+1:j]))
	}
	for _, c := range cands {
		if slices.Contains(method.Names(), c) {
			return c, true
		}
	}
	return "", false
}

// zOf finds the Z value a series label names when it starts with "Z = 0" or "Z = 1" (as the
// notebooks' histograms by Z are named), or "Z < 0" or "Z ≥ 0" for a continuous Z.
func zOf(label string) (int, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(label), " ", "")
	switch {
	case strings.HasPrefix(s, "Z=0"), strings.HasPrefix(s, "Z<0"):
		return 0, true
	case strings.HasPrefix(s, "Z=1"), strings.HasPrefix(s, "Z≥0"):
		return 1, true
	}
	return 0, false
}

// seriesColor is the colour of the k-th series of a figure labelled label: its method's
// colour when the label names a method, its Z value's when it names one, else the k-th of
// series.
func seriesColor(label string, k int) color.Color {
	if m, ok := methodOf(label); ok {
		c, _ := MethodColor(m)
		return c
	}
	if z, ok := zOf(label); ok {
		return ZColors[z]
	}
	return series[k%len(series)]
}
