package jsonscan

import (
	"syscall"
	"testing"
)

// TestIndexGuardPages checks that index reads no byte outside the memory
// pages of its line: lines of every length up to 300 sit against an
// inaccessible page, before them or after them.
func TestIndexGuardPages(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 4*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(mem)
	// Pages 0 and 3 are guards; 1 and 2 hold the lines.
	for _, g := range [][]byte{mem[:page], mem[3*page:]} {
		if err := syscall.Mprotect(g, syscall.PROT_NONE); err != nil {
			t.Skip(err)
		}
	}
	lo, hi := page, 3*page
	for n := 1; n <= 300; n++ {
		for _, at := range []int{lo, lo + 1, lo + 63, hi - n, hi - n - 1, hi - n - 63} {
			b := mem[at : at+n : at+n]
			for i := range b {
				b[i] = "ab\"\\n"[i%5]
			}
			b[0] = '"'
			checkIndex(t, b)
			b[n-1] = '\\'
			checkIndex(t, b)
		}
	}
}
