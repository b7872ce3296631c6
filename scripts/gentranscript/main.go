// Command gentranscript writes a synthetic Claude Code transcript of a given
// size for benchmarks (see package bottle/internal/measure/gentranscript):
//
//	go run ./scripts/gentranscript -size 400M -o /tmp/big.jsonl
//	go run ./scripts/gentranscript -calls 20000 -o /tmp/run.jsonl   # one prompt, 20,000 tool calls
//
// It prints what it wrote (bytes, lines, turns, tool calls, text, tool
// results, structured copies and images) on stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"bottle/internal/measure/gentranscript"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gentranscript: "+err.Error())
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gentranscript", flag.ContinueOnError)
	size := fs.String("size", "10M", "approximate `size` of the transcript: bytes, or a number with K, M or G")
	seed := fs.Uint64("seed", 1, "random `seed` (same seed, same bytes)")
	out := fs.String("o", "-", "output `file` (- = stdout)")
	calls := fs.Int64("calls", 0, "when above 0, one prompt and an autonomous run of this many tool calls (-size ignored)")
	session := fs.String("session", "", "sessionId written in the lines (default "+gentranscript.DefaultSessionID+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := parseSize(*size)
	if err != nil {
		return err
	}
	w := stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	st, err := gentranscript.Write(bw, gentranscript.Config{Bytes: n, Seed: *seed, SessionID: *session, ToolCalls: *calls})
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d bytes, %d lines, %d turns, %d tool calls; text %d, tool_result %d, toolUseResult %d, images %d bytes\n",
		st.Bytes, st.Lines, st.Turns, st.ToolCalls, st.Text, st.ToolResult, st.ToolUseResult, st.Images)
	return nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q (want e.g. 400M)", s)
	}
	return int64(v * float64(mult)), nil
}
