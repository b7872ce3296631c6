package render

import (
	"bytes"
	"testing"
)

func BenchmarkBlockMasks(b *testing.B) {
	data := genTranscript(b, 4<<20)[:1<<20]
	out := make([]uint64, 4*(len(data)/64))
	b.Run("avx2", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			blockMasks(data, out)
		}
	})
	b.Run("generic", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			blockMasksGeneric(data, out)
		}
	})
	var s jsonScanner
	b.Run("index", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			s.index(data)
		}
	})
}

// BenchmarkScanChunk scans one chunk of a synthetic transcript, hot in
// cache: the scanner's own cost without the memory it waits for.
func BenchmarkScanChunk(b *testing.B) {
	data := genTranscript(b, 4<<20)
	data = data[:bytes.LastIndexByte(data[:chunkSize], '\n')+1]
	c := &chunk{data: data}
	var s jsonScanner
	p := newParser(defaultDigester)
	p.speculate = true
	sp := p.newSpeculator()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c.scan(&s, sp)
	}
}

// BenchmarkParseLines parses the lines of one chunk, hot in cache, without
// decoding tool results or digesting.
func BenchmarkParseLines(b *testing.B) {
	data := genTranscript(b, 4<<20)
	data = data[:bytes.LastIndexByte(data[:chunkSize], '\n')+1]
	var lines [][]byte
	for _, l := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		lines = append(lines, l)
	}
	var s jsonScanner
	var r lineRec
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for _, l := range lines {
			s.parseLine(l, false, &r)
		}
	}
}
