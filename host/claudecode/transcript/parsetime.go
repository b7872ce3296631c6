package transcript

import "time"

// fastTime parses the timestamps Claude Code writes, such as
// 2026-01-27T09:00:04.520Z (RFC 3339 in UTC, 1 to 9 fraction digits or
// none), building the time directly. ok is false for anything else, even
// valid RFC 3339: the caller falls back to time.Parse. What it accepts,
// time.Parse(time.RFC3339Nano, s) accepts too, with the same Time (UTC,
// no monotonic reading).
func fastTime[T string | []byte](s T) (t time.Time, ok bool) {
	n := len(s)
	if n < 20 || n > 30 {
		return t, false
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[n-1] != 'Z' {
		return t, false
	}
	y0, ok0 := digits2(s[0], s[1])
	y1, ok1 := digits2(s[2], s[3])
	month, ok2 := digits2(s[5], s[6])
	day, ok3 := digits2(s[8], s[9])
	hour, ok4 := digits2(s[11], s[12])
	min, ok5 := digits2(s[14], s[15])
	sec, ok6 := digits2(s[17], s[18])
	if !(ok0 && ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return t, false
	}
	year := y0*100 + y1
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || min > 59 || sec > 59 {
		return t, false
	}
	nsec := 0
	if n > 20 {
		// .d{1,9} between the seconds and the Z.
		if s[19] != '.' || n == 21 {
			return t, false
		}
		scale := 100000000
		for i := 20; i < n-1; i++ {
			c := s[i] - '0'
			if c > 9 {
				return t, false
			}
			nsec += int(c) * scale
			scale /= 10
		}
	}
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+min*60+sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// digits2 returns the value of two decimal digits; false when either is
// not a digit.
func digits2(a, b byte) (int, bool) {
	a, b = a-'0', b-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

// daysIn returns the number of days of month in year (proleptic
// Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch returns the days from 1970-01-01 to the date, for years
// 0 to 9999 (Howard Hinnant's days_from_civil).
func daysSinceEpoch(year, month, day int) int64 {
	y := year
	if month <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := month - 3
	if month <= 2 {
		mp = month + 9
	}
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097 + doe - 719468)
}

// parseTimeRaw is parseTime of a string field's raw content: the usual
// shape is parsed in place, anything else decoded and handed to parseTime.
func (s *lineScanner) parseTimeRaw(f str) time.Time {
	if !f.set {
		return time.Time{}
	}
	raw := s.Raw(f.Span)
	if t, ok := fastTime(raw); ok {
		return t
	}
	return parseTime(s.decode(raw))
}
