package digest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"bottle/internal/jsonscan"
)

// searchTools are the describers of the search tools.
var searchTools = map[string]describer{
	"Grep": describeGrep,
	"Glob": describeGlob,
}

func describeGrep(c *Call, cwd string, ok bool) description {
	var in struct {
		Pattern    string          `json:"pattern"`
		Path       string          `json:"path"`
		Glob       string          `json:"glob"`
		Type       string          `json:"type"`
		OutputMode string          `json:"output_mode"`
		A          json.RawMessage `json:"-A"`
		B          json.RawMessage `json:"-B"`
		C          json.RawMessage `json:"-C"`
		Context    json.RawMessage `json:"context"`
	}
	decodeInput(c, &in)
	scope := showPath(in.Path, cwd)
	d := description{kind: KindPattern, subject: quoted(clean(in.Pattern, 60)), scope: scope}
	if filter := clean(firstNonEmpty(in.Glob, in.Type), 30); filter != "" {
		d.note = " (" + filter + ")"
	}
	d.compactSubject, d.compact = quoted(clean(in.Pattern, compactPattern)), true
	if ok {
		context := nonZero(in.A) || nonZero(in.B) || nonZero(in.C) || nonZero(in.Context)
		grepOutcome(c, cwd, in.OutputMode, context, &d)
	}
	return d
}

func nonZero(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "0" && s != "null" && s != "false"
}

// grepOutcome reads a Grep result into d: the count its mode gives and the
// first matched paths.
func grepOutcome(c *Call, cwd, mode string, context bool, d *description) {
	switch {
	case c.headHasPrefix(512, PersistedTag):
		d.success = persistedCount(c)
		return
	case c.headHasPrefix(512, "No matches found"), c.headHasPrefix(512, "No files found"):
		d.success = "no matches"
		return
	}
	switch mode {
	case "content":
		// ripgrep prints a file's lines together, so a file is a run of
		// match lines with one path.
		n, files, prev := 0, 0, ""
		c.forResultLines(func(line string, raw bool) {
			if line == "--" || strings.HasPrefix(line, "[Showing results") {
				return
			}
			n++
			if len(line) > len(prev) && line[len(prev)] == ':' && prev != "" && strings.HasPrefix(line, prev) {
				return // a line of the same file, as matchPath would find
			}
			if p, ok := matchPath(line, prev, raw); ok && p != prev {
				files++
				prev = p
			}
		})
		noun := "matching line"
		if context {
			noun = "line"
		}
		if files > 0 {
			d.success = plural(n, noun) + " in " + plural(files, "file")
			d.total = files
			d.firstPaths(c, cwd, matchPath)
		} else {
			d.success = plural(n, noun)
		}
	case "count":
		// "Found 12 total occurrences across 3 files." closes the result.
		res := c.result()
		tail := res[max(0, len(res)-256):]
		if i := strings.LastIndex(tail, "Found "); i >= 0 {
			d.success = found(tail[i:])
		}
		c.forResultLines(func(line string, raw bool) {
			if _, ok := countPath(line, "", raw); ok {
				d.total++
			}
		})
		d.firstPaths(c, cwd, countPath)
	default: // files_with_matches
		d.success = found(head(c))
		if n := leadingDigits(d.success); n != "" {
			d.total, _ = strconv.Atoi(n)
			d.firstPaths(c, cwd, filePath)
		}
	}
}

// matchPath is the path of a content-mode match line "path:12:text", raw
// when the line is still JSON-escaped. Context lines ("path-12-text"),
// separators and the lines of a search in one file ("12:text", no path)
// have none; prev, the path of the match line before, tells a context line
// whose text holds ":12:" ("path-11-a:12:b"). A path with a blank in it
// is not told from text, and is not read.
func matchPath(line, prev string, raw bool) (string, bool) {
	from := 0
	if len(line) > 2 && line[1] == ':' && (line[2] == '/' || line[2] == '\\') && isAlnum(line[0]) {
		from = 2 // a drive letter
	}
	i := strings.IndexByte(line[from:], ':')
	if i <= 0 {
		return "", false
	}
	i += from
	rest := line[i+1:]
	n := leadingDigits(rest)
	if n == "" || !strings.HasPrefix(rest[len(n):], ":") {
		return "", false
	}
	p := line[:i]
	if leadingDigits(p) == p {
		return "", false // a line number, in a search of one file
	}
	if raw && strings.IndexByte(p, '\\') < 0 {
		// Still escaped, a tab would show as "\t".
		if strings.IndexByte(p, ' ') >= 0 {
			return "", false
		}
	} else if p = unescaped(p, raw); strings.IndexByte(p, ' ') >= 0 || strings.IndexByte(p, '\t') >= 0 {
		return "", false
	}
	if prev != "" && len(p) > len(prev) && p[len(prev)] == '-' && strings.HasPrefix(p, prev) {
		rest := p[len(prev)+1:]
		if n := leadingDigits(rest); n != "" && strings.HasPrefix(rest[len(n):], "-") {
			return "", false
		}
	}
	return p, true
}

// countPath is the path of a count-mode line "path:12", raw when the line
// is still JSON-escaped.
func countPath(line, _ string, raw bool) (string, bool) {
	i := strings.LastIndexByte(line, ':')
	if i <= 0 || i == len(line)-1 || leadingDigits(line[i+1:]) != line[i+1:] {
		return "", false
	}
	return unescaped(line[:i], raw), true
}

// filePath is the path of a files_with_matches or Glob line, raw when the
// line is still JSON-escaped: any line but the "Found N files" header and
// notes.
func filePath(line, _ string, raw bool) (string, bool) {
	if strings.HasPrefix(line, "Found ") || strings.HasPrefix(line, "[Showing results") ||
		strings.HasPrefix(line, "(Results are truncated") {
		return "", false
	}
	return unescaped(line, raw), true
}

// unescaped is s decoded when raw and holding an escape.
func unescaped(s string, raw bool) string {
	if raw && strings.IndexByte(s, '\\') >= 0 {
		return jsonscan.Decode([]byte(s))
	}
	return s
}

// pathLines bounds the lines of a result read for the paths it names.
const pathLines = 200

// firstPaths fills d.paths with the first distinct paths parse finds in
// the first pathLines lines of c's result, at most d.total, read as
// scanLines reads them (stripped of private text: a path's line may sit
// inside a private block). parse is handed the path of the line before
// that had one.
func (d *description) firstPaths(c *Call, cwd string, parse func(line, prev string, raw bool) (string, bool)) {
	want := min(d.total, maxPaths)
	d.npaths = 0
	if want == 0 {
		return
	}
	prev := ""
	reset := func() { d.npaths, prev = 0, "" }
	c.scanLines(pathLines, reset, func(line string, raw bool) bool {
		p, ok := parse(line, prev, raw)
		if !ok {
			return false
		}
		prev = p
		if s := showPath(p, cwd); s != "" && !slices.Contains(d.paths[:d.npaths], s) {
			d.paths[d.npaths] = s
			d.npaths++
		}
		return d.npaths == want
	})
}

// found reads a tool's own summary line "Found 16 files" or "Found 7
// references across 3 files:" as "16 files", "7 references across 3
// files".
func found(s string) string {
	rest, ok := strings.CutPrefix(firstLine(s), "Found ")
	if !ok || leadingDigits(rest) == "" {
		return ""
	}
	return clean(strings.TrimRight(rest, ".: "), 48)
}

func describeGlob(c *Call, cwd string, ok bool) description {
	var in struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	decodeInput(c, &in)
	scope := showPath(in.Path, cwd)
	d := description{kind: KindPattern, subject: clean(in.Pattern, 60), scope: scope}
	d.compactSubject, d.compact = clean(in.Pattern, compactPattern), true
	if ok {
		switch {
		case c.headHasPrefix(512, "No files found"):
			d.success = "no files"
		case c.headHasPrefix(512, PersistedTag):
			d.success = persistedCount(c)
		default:
			n, truncated := 0, false
			c.forResultLines(func(line string, _ bool) {
				if strings.HasPrefix(line, "(Results are truncated") {
					truncated = true
				} else {
					n++
				}
			})
			d.success = plural(n, "file")
			if truncated {
				d.success += ", truncated"
			}
			d.total = n
			d.firstPaths(c, cwd, filePath)
		}
	}
	return d
}

// compactPattern is the runes of a search pattern a compact salient part
// keeps.
const compactPattern = 24

// under reports whether every one of paths (at least one) lies in the
// folder dir, as showPath shows both.
func under(paths []string, dir string) bool {
	if len(paths) == 0 || dir == "" || dir == "." {
		return false
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, dir) || !strings.HasPrefix(p[len(dir):], "/") && !strings.HasSuffix(dir, "/") {
			return false
		}
	}
	return true
}

// forLines calls f with each non-blank line of s, trimmed.
func forLines(s string, f func(string)) {
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			f(line)
		}
	}
}
