package mimic

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // RFC 3339 of the expected instant; "" for an error
	}{
		{"2150-06-01 08:00:00", "2150-06-01T08:00:00Z"},
		{"2100-02-28 23:59:59", "2100-02-28T23:59:59Z"},
		{"2104-02-29 00:00:00", "2104-02-29T00:00:00Z"},
		{"1850-03-15 00:00:00", "1850-03-15T00:00:00Z"},
		{"2150-06-01", "2150-06-01T00:00:00Z"},
		{"2150-06-01T08:00:00", "2150-06-01T08:00:00Z"},
		{"2100-02-29 00:00:00", ""}, // 2100 is not a leap year
		{"2000-02-29 00:00:00", "2000-02-29T00:00:00Z"},
		{"2150-04-31 00:00:00", ""},
		{"2150-12-31 23:59:59", "2150-12-31T23:59:59Z"},
		{"2150-12-32 00:00:00", ""},
		{"1851-01-31 00:00:00", "1851-01-31T00:00:00Z"},
		{"2150-13-45 25:00:00", ""},
		{"2150-06-01 8:30", ""},
		{"2150-06-01 24:00:00", ""},
		{"2150/06/01 08:00:00", ""},
		{"", ""},
		{"yesterday at noon!!", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTimestamp(tc.in)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.in) {
					t.Fatalf("parseTimestamp(%q) = %d, %v; want an error naming the value", tc.in, got, err)
				}
				return
			}
			want, _ := time.Parse(time.RFC3339, tc.want)
			if err != nil || got != want.Unix() {
				t.Fatalf("parseTimestamp(%q) = %d, %v; want %d", tc.in, got, err, want.Unix())
			}
		})
	}
}

// TestTimestampRoundTrip parses the time package's rendering of random instants from 1700
// to 2300 (MIMIC's shifted dates of birth reach back to the 1800s) back to the instant.
func TestTimestampRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo, hi := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < 20000; i++ {
		u := lo + rng.Int64N(hi-lo)
		s := time.Unix(u, 0).UTC().Format("2006-01-02 15:04:05")
		back, err := parseTimestamp(s)
		if err != nil || back != u {
			t.Fatalf("parseTimestamp(%q) = %d, %v; want %d", s, back, err, u)
		}
	}
}
