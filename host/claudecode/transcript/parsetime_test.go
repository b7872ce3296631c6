package transcript

import (
	"testing"
	"time"
)

// FuzzParseTime pins parseTime's fast path to time.Parse.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2026-01-27T09:00:04.520Z", "2026-01-27T09:00:04Z", "2026-01-27T09:00:04.5Z",
		"2026-01-27T09:00:04.123456789Z", "2026-01-27T09:00:04.1234567891Z",
		"2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z", "0000-01-01T00:00:00.000Z",
		"9999-12-31T23:59:59.999Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
		"2026-01-27T09:00:04.520+01:00", "2026-01-27t09:00:04.520z", "2026-13-01T00:00:00Z",
		"2026-01-27T24:00:00Z", "2026-01-27T23:60:00Z", "2026-01-27T23:59:60Z",
		"2026-01-27T09:00:04.Z", "2026-01-27T09:00:04,5Z", "", "x",
		"0000-01-01T0:00:00+00:01", "2026-01-27T09:00:04.520+00:00", "-001-01-01T00:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			want = time.Time{}
		}
		got := parseTime(s)
		if !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Fatalf("parseTime(%q) = %v (%v), want %v (%v)", s, got, got.Location(), want, want.Location())
		}
		gn, gOff := got.Zone()
		wn, wOff := want.Zone()
		if gn != wn || gOff != wOff {
			t.Fatalf("parseTime(%q) zone = %s %d, want %s %d", s, gn, gOff, wn, wOff)
		}
		// UTC and the zero Time share their Location: the results are
		// identical. (A parsed offset gets a fresh FixedZone each time.)
		if want.Location() == time.UTC && (got != want || got.Location() != want.Location()) {
			t.Fatalf("parseTime(%q) = %#v, want %#v", s, got, want)
		}
		if ft, ok := fastTime(s); ok {
			if err != nil || ft != want {
				t.Fatalf("fastTime(%q) = %v, want %v, %v", s, ft, want, err)
			}
		}
		if ft, ok := fastTime([]byte(s)); ok && ft != want {
			t.Fatalf("fastTime([]byte(%q)) = %v, want %v", s, ft, want)
		}
	})
}

// TestFastTimeDates checks the fast path against time.Parse on every day
// of the years around the calendar's edges, with assorted fractions.
func TestFastTimeDates(t *testing.T) {
	fracs := []string{"", ".0", ".5", ".520", ".000001", ".123456789", ".999999999"}
	var n int
	for _, span := range [][2]int{{0, 4}, {1896, 1904}, {1968, 1972}, {1999, 2001}, {2024, 2030}, {2096, 2104}, {9996, 10000}} {
		for y := span[0]; y < span[1]; y++ {
			for m := 1; m <= 12; m++ {
				for d := 1; d <= 31; d++ {
					n++
					s := time.Date(2000, 1, 1, n%24, n*7%60, n*13%60, 0, time.UTC).Format("T15:04:05")
					s = fmt4(y) + "-" + fmt2(m) + "-" + fmt2(d) + s + fracs[n%len(fracs)] + "Z"
					want, err := time.Parse(time.RFC3339Nano, s)
					got, ok := fastTime(s)
					if ok != (err == nil) || ok && got != want {
						t.Fatalf("fastTime(%q) = %v, %v; time.Parse: %v, %v", s, got, ok, want, err)
					}
				}
			}
		}
	}
}

func fmt2(v int) string { return string([]byte{byte('0' + v/10), byte('0' + v%10)}) }
func fmt4(v int) string { return fmt2(v/100) + fmt2(v%100) }
