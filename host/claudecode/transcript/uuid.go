package transcript

// hexVal maps a hex digit to its value, anything else to 0xff.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// canonicalUUID decodes a canonical 8-4-4-4-12 hex UUID; false for
// anything else. Such raw string content is plain: it decodes to itself.
func canonicalUUID(s []byte) (k [16]byte, ok bool) {
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' && uuidHex((*[36]byte)(s), &k) {
		return k, true
	}
	return k, false
}

// uuidHex decodes a canonical 8-4-4-4-12 UUID (dashes checked by the
// caller) into k; false when a digit is not hex.
func uuidHex(s *[36]byte, k *[16]byte) bool {
	var bad byte
	pair := func(i int) byte {
		hi, lo := hexVal[s[i]], hexVal[s[i+1]]
		bad |= hi | lo
		return hi<<4 | lo
	}
	k[0], k[1], k[2], k[3] = pair(0), pair(2), pair(4), pair(6)
	k[4], k[5] = pair(9), pair(11)
	k[6], k[7] = pair(14), pair(16)
	k[8], k[9] = pair(19), pair(21)
	k[10], k[11], k[12], k[13], k[14], k[15] = pair(24), pair(26), pair(28), pair(30), pair(32), pair(34)
	return bad&0xf0 == 0
}
