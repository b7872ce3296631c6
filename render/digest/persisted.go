package digest

import (
	"strconv"
	"strings"
)

// A result too large to be shown inline is written to a file by Claude
// Code, and the model is shown "<persisted-output>", the file's path and a
// 2 KB preview. The line's toolUseResult (Call.Structured) still holds the
// whole output: Grep's content or file list, Glob's file list, Bash's
// stdout. The digest reads that output as if it had been shown inline, so a
// persisted search names its counts and first paths like any other, and a
// persisted command the files its output cites.

// PersistedTag opens the preview Claude Code shows for a persisted output.
const PersistedTag = "<persisted-output>"

// inlined returns c with its persisted output in place of the preview,
// rebuilt from c.Structured as the tool shows an output inline, or c
// itself when c holds no persisted output or its structured result lacks
// the output.
func inlined(c *Call) *Call {
	if len(c.Structured) == 0 || !c.HasResult || c.IsError || !c.headHasPrefix(512, PersistedTag) {
		return c
	}
	out, ok := persistedOutput(c.Name, c.Structured)
	if !ok {
		return c
	}
	return &Call{Name: c.Name, Input: c.Input, InputValid: c.InputValid, HasResult: true, Result: out, Structured: c.Structured}
}

// persistedOutput is the output a tool's structured result holds, written
// as the tool writes it inline; ok is false for a tool whose output it
// does not know or a structured result without it.
func persistedOutput(tool string, structured []byte) (string, bool) {
	var s struct {
		Mode       string   `json:"mode"`
		Content    *string  `json:"content"`
		Filenames  []string `json:"filenames"`
		NumFiles   *int     `json:"numFiles"`
		NumMatches *int     `json:"numMatches"`
		Truncated  bool     `json:"truncated"`
		Stdout     *string  `json:"stdout"`
		Stderr     string   `json:"stderr"`
	}
	decode(structured, &s)
	switch tool {
	case "Bash":
		if s.Stdout == nil {
			return "", false
		}
		out := *s.Stdout
		if s.Stderr != "" {
			out += "\n" + s.Stderr
		}
		return out, true
	case "Grep":
		switch {
		case s.Mode == "files_with_matches" && len(s.Filenames) > 0:
			return "Found " + plural(len(s.Filenames), "file") + "\n" + strings.Join(s.Filenames, "\n"), true
		case s.Mode == "count" && s.Content != nil && s.NumMatches != nil && s.NumFiles != nil:
			return *s.Content + "\n\nFound " + strconv.Itoa(*s.NumMatches) + " total occurrences across " +
				plural(*s.NumFiles, "file") + ".", true
		case s.Mode == "content" && s.Content != nil && *s.Content != "":
			return *s.Content, true
		}
	case "Glob":
		if len(s.Filenames) > 0 {
			out := strings.Join(s.Filenames, "\n")
			if s.Truncated {
				out += "\n(Results are truncated. Consider using a more specific path or pattern.)"
			}
			return out, true
		}
	}
	return "", false
}

// persistedCount is the outcome of a persisted output that inlined could
// not rebuild: the counts of the structured result when present.
func persistedCount(c *Call) string {
	var s struct {
		NumLines *int `json:"numLines"`
		NumFiles *int `json:"numFiles"`
	}
	decode(c.Structured, &s)
	switch {
	case s.NumLines != nil && *s.NumLines > 0:
		return plural(*s.NumLines, "line")
	case s.NumFiles != nil && *s.NumFiles > 0:
		return plural(*s.NumFiles, "file")
	}
	return "large output"
}
