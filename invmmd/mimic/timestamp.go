package mimic

import (
	"fmt"
	"time"
)

// MIMIC-III writes timestamps as "YYYY-MM-DD HH:MM:SS" (dates shifted into 2100–2200; the
// dates of birth of patients older than 89 shifted a further ~300 years back). The parser
// below reads that form (and a bare "YYYY-MM-DD") into seconds since 1970 without the
// time package's general layout machinery: CHARTEVENTS holds hundreds of millions of them.
// Seconds, not time.Duration, because a time.Duration overflows past 292 years.

// parseTimestamp returns the Unix seconds of "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD" (UTC).
func parseTimestamp(s string) (int64, error) {
	if len(s) != 19 && len(s) != 10 {
		return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
	}
	num := func(i, n int) int {
		v := 0
		for k := i; k < i+n; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := 0, 0, 0
	if s[4] != '-' || s[7] != '-' {
		year = -1
	}
	if len(s) == 19 {
		if s[10] != ' ' && s[10] != 'T' || s[13] != ':' || s[16] != ':' {
			year = -1
		}
		hour, minute, sec = num(11, 2), num(14, 2), num(17, 2)
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, fmt.Errorf("timestamp %q: not a valid YYYY-MM-DD HH:MM:SS", s)
	}
	return daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec), nil
}

// toTime converts Unix seconds to a time.Time in UTC.
func toTime(u int64) time.Time { return time.Unix(u, 0).UTC() }

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian date
// (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
