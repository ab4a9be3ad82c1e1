package mimictest

// formatTimestamp appends the "YYYY-MM-DD HH:MM:SS" form of Unix seconds u to b, MIMIC-III's
// form, without the time package's layout machinery: the streaming test's fixture writes
// millions of them.
func formatTimestamp(b []byte, u int64) []byte {
	days, secs := u/86400, u%86400
	if secs < 0 {
		days--
		secs += 86400
	}
	y, m, d := civilFromDays(days)
	pad := func(b []byte, v, n int) []byte {
		var buf [4]byte
		for k := n - 1; k >= 0; k-- {
			buf[k] = byte('0' + v%10)
			v /= 10
		}
		return append(b, buf[:n]...)
	}
	b = pad(b, y, 4)
	b = append(b, '-')
	b = pad(b, m, 2)
	b = append(b, '-')
	b = pad(b, d, 2)
	b = append(b, ' ')
	b = pad(b, int(secs/3600), 2)
	b = append(b, ':')
	b = pad(b, int(secs/60%60), 2)
	b = append(b, ':')
	return pad(b, int(secs%60), 2)
}

// civilFromDays returns the proleptic Gregorian date of a day counted from 1970-01-01
// (H. Hinnant's algorithm).
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}
