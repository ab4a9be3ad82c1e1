package main

import "testing"

func TestCPUModelOf(t *testing.T) {
	for _, c := range []struct{ info, want string }{
		{"model name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse avx2 avx512f avx512bw\n", "Intel(R) Xeon(R) Processor (AVX-512)"},
		{"model name\t: AMD EPYC\nflags\t\t: fpu sse avx avx2 fma\n", "AMD EPYC (AVX2, no AVX-512)"},
		{"flags\t\t: fpu sse\n", "unknown (no AVX2)"},
	} {
		if got := cpuModelOf(c.info); got != c.want {
			t.Errorf("cpuModelOf(%q) = %q, want %q", c.info, got, c.want)
		}
	}
}
