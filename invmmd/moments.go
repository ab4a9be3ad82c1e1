package invmmd

// moments are, for F features of the kernel (Fourier terms or random frequencies) and the
// P factor columns, the per-feature sums S_fp = Σ_i V_ip·e^{iθ_fi}: re holds their cosine
// parts, im their sine parts, index f·P + p. FourierSums and RFFSums accumulate them per
// worker, add them up (sum) and assemble the kernel sums from them (pairs).
type moments struct{ re, im []float64 }

// newMoments returns zero moments of f features and p columns.
func newMoments(f, p int) moments { return moments{make([]float64, f*p), make([]float64, f*p)} }

// sumMoments adds the workers' moments into the first and returns it.
func sumMoments(parts []moments) moments {
	total := parts[0]
	for _, mo := range parts[1:] {
		for x := range total.re {
			total.re[x] += mo.re[x]
			total.im[x] += mo.im[x]
		}
	}
	return total
}

// pairs returns Q_ab = Σ_f w_f (re_fa re_fb + im_fa im_fb) over the F features, each
// feature's weight w_f from weight.
func (mo moments) pairs(F, P int, weight func(f int) float64) [][]float64 {
	q := make([][]float64, P)
	for a := range q {
		q[a] = make([]float64, P)
	}
	for f := 0; f < F; f++ {
		w := weight(f)
		r, s := mo.re[f*P:(f+1)*P], mo.im[f*P:(f+1)*P]
		for a := 0; a < P; a++ {
			for b := 0; b < P; b++ {
				q[a][b] += w * (r[a]*r[b] + s[a]*s[b])
			}
		}
	}
	return q
}

// removeDiagonal subtracts k0·Σ_i V_ia V_ib over rows from q: the i = j terms that the
// features' sums hold and the U-statistics leave out (k0 the features' kernel at 0).
func removeDiagonal(q [][]float64, k0 float64, rows []int, cols [][]float64) {
	for _, i := range rows {
		for a := range cols {
			if cols[a][i] == 0 {
				continue
			}
			for b := range cols {
				q[a][b] -= k0 * cols[a][i] * cols[b][i]
			}
		}
	}
}
