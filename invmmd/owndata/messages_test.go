package owndata

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestEstimateWithoutFeaturesSaysWhere: methods that need G or m, with neither the
// features to fit them on (X) nor columns of them (G, M), are refused naming only those
// methods (not obs), saying where G and m come from and that obs runs alone.
func TestEstimateWithoutFeaturesSaysWhere(t *testing.T) {
	ms := func(names ...method.Method) []method.Method { return names }
	const obs = "; obs, which needs neither G nor m, can run alone with Methods obs"
	for _, tc := range []struct {
		name    string
		methods []method.Method
		g       string
		field   string
		want    string
	}{
		{"the default methods", nil, "", "G", "methods ip,reg,dr,dr-po need G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y): they are fitted on the features named by X, or read from columns of fitted probabilities named by G and M" + obs},
		{"obs and ip", ms(method.Obs, method.IP), "", "G", "methods ip need G = P(Δ = 1 | X, Y): it is fitted on the features named by X, or read from a column of fitted probabilities named by G" + obs},
		{"dr with G given", ms(method.Obs, method.DR), "x1", "M", "methods dr need m = P(Z = 1 | X, Y): it is fitted on the features named by X, or read from a column of fitted probabilities named by M" + obs},
		{"reg and ip with G given", ms(method.Reg, method.IP), "x1", "M", "methods reg need m = P(Z = 1 | X, Y): it is fitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultEstimateConfig()
			c.Data, c.Y, c.Z, c.H, c.G = tinyCSV, "y", "z", "x2", tc.g
			if tc.methods != nil {
				c.Methods = tc.methods
			}
			_, err := Estimate(context.Background(), c)
			var fe *FieldError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &fe) || fe.Field != tc.field {
				t.Errorf("error %v\nwant a FieldError of %s containing %q", err, tc.field, tc.want)
			}
		})
	}
}

// TestStrataReadable: lists of strata (unreliable ones in the tables, warnings and runs)
// read as words, with a K-class label's names, where they were "Y=[0 1]".
func TestStrataReadable(t *testing.T) {
	classes := []string{"A", "N", "U", "Y"}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"binary", strataList([]float64{0, 1}, nil), "Y = 0 and Y = 1"},
		{"one stratum", strataList([]float64{1}, nil), "Y = 1"},
		{"K classes", strataList([]float64{0, 2, 3}, classes), "Y = A, Y = U and Y = Y"},
		{"the estimators' text of K classes", classText("dr: MMD² = 1  [Y=0: 0.1]  [Y=3: 0.2]  UNRELIABLE in Y = 0 and Y = 3\n  Y=2: 40 rows", classes),
			"dr: MMD² = 1  [Y=A: 0.1]  [Y=Y: 0.2]  UNRELIABLE in Y = A and Y = Y\n  Y=U: 40 rows"},
		{"a warning of one stratum", unreliableWarning("dr", []float64{1}, nil), "dr: stratum Y = 1 is unreliable"},
		{"a warning of two", unreliableWarning("dr", []float64{0, 1}, nil), "dr: strata Y = 0 and Y = 1 are unreliable"},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s: %q, want one containing %q", tc.name, tc.got, tc.want)
		}
	}
}
