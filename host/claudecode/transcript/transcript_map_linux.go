//go:build linux

package transcript

import (
	"os"
	"syscall"
)

func mapFile(f *os.File, size int) ([]byte, error) {
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = syscall.Madvise(m, syscall.MADV_SEQUENTIAL)
	return m, nil
}

func unmapFile(m []byte) { _ = syscall.Munmap(m) }

// dropPages takes page-aligned pages of the map out of the process.
func dropPages(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// populate maps the pages of b ahead of use (MADV_POPULATE_READ, Linux
// 5.14); on older kernels it does nothing and the pages fault in.
func populate(b []byte) {
	const madvPopulateRead = 22
	if len(b) > 0 {
		_ = syscall.Madvise(b, madvPopulateRead)
	}
}
