package transcript

import (
	"crypto/sha256"
	"testing"
)

// uuidKeyRef is uuidKey as it was, digit by digit.
func uuidKeyRef(s []byte) [16]byte {
	var k [16]byte
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		j := 0
		for i := 0; i < 36; i += 2 {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				i--
				continue
			}
			hi, ok1 := unhex(s[i])
			lo, ok2 := unhex(s[i+1])
			if !ok1 || !ok2 {
				j = -1
				break
			}
			k[j] = hi<<4 | lo
			j++
		}
		if j == 16 {
			return k
		}
	}
	sum := sha256.Sum256(s)
	copy(k[:], sum[:16])
	k[6] ^= 0xff
	return k
}

func FuzzUUIDKey(f *testing.F) {
	for _, s := range []string{
		"5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11", "5B1C0E6A-7D1F-4C0E-9A55-3F0B8E2D4C11",
		"5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c1g", "5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c1", "",
		"5b1c0e6a+7d1f-4c0e-9a55-3f0b8e2d4c11", "agent-a1b2c3", "zb1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := uuidKey(s), uuidKeyRef(s); got != want {
			t.Fatalf("uuidKey(%q) = %x, want %x", s, got, want)
		}
		if len(s) == 36 {
			// Every single-byte change of a canonical uuid.
			for i := range s {
				c := s[i]
				for _, d := range []byte{'0', '9', 'a', 'f', 'A', 'F', 'g', 'G', '-', '/', ':', '@', '`'} {
					s[i] = d
					if got, want := uuidKey(s), uuidKeyRef(s); got != want {
						t.Fatalf("uuidKey(%q) = %x, want %x", s, got, want)
					}
				}
				s[i] = c
			}
		}
	})
}
