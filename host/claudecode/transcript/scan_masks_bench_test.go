package transcript

import (
	"bytes"
	"testing"

	"bottle/internal/jsonscan"
)

// BenchmarkIndex runs index, with the AVX2 kernel and the portable code,
// on 1 MB of a synthetic transcript as one line ("block", the per-block
// cost) and on the lines of one chunk ("lines", with per-line costs and
// partial last blocks).
func BenchmarkIndex(b *testing.B) {
	data := genTranscript(b, 4<<20)
	chunk := data[:bytes.LastIndexByte(data[:defaultChunkSize], '\n')+1]
	lines := bytes.Split(chunk[:len(chunk)-1], []byte("\n"))
	data = data[:1<<20]
	for _, avx2 := range []bool{true, false} {
		name := "generic"
		if avx2 {
			if !jsonscan.HasAVX2() {
				continue
			}
			name = "avx2"
		}
		withScanSettings(defaultChunkSize, avx2, func(reader) {
			var s lineScanner
			b.Run(name+"/block", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					s.Index(data)
				}
			})
			b.Run(name+"/lines", func(b *testing.B) {
				b.SetBytes(int64(len(chunk)))
				for b.Loop() {
					for _, l := range lines {
						s.Index(l)
					}
				}
			})
		})
	}
}

// BenchmarkScanChunk scans one chunk of a synthetic transcript, hot in
// cache: the scanner's own cost without the memory it waits for.
func BenchmarkScanChunk(b *testing.B) {
	data := genTranscript(b, 4<<20)
	data = data[:bytes.LastIndexByte(data[:defaultChunkSize], '\n')+1]
	c := &chunk{data: data}
	var s lineScanner
	p := newParser(true)
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
	data = data[:bytes.LastIndexByte(data[:defaultChunkSize], '\n')+1]
	var lines [][]byte
	for _, l := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		lines = append(lines, l)
	}
	var s lineScanner
	var r lineRec
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for _, l := range lines {
			s.parseLine(l, false, &r)
		}
	}
}
