package digest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"bottle/privacy"
)

// otherTools are the describers of the tools of no family.
var otherTools = map[string]describer{
	"LSP":                  describeLSP,
	"ListMcpResourcesTool": describeMcpResources,
	"ReadMcpResourceTool":  describeMcpResources,
}

// Files.

// Shell.

// Search.

// Agents and tasks.

// The web.

// Claude Code itself.

func describeLSP(c *Call, cwd string, ok bool) description {
	var in struct {
		Operation string `json:"operation"`
		FilePath  string `json:"filePath"`
		Line      int64  `json:"line"`
	}
	decodeInput(c, &in)
	sal := showPath(in.FilePath, cwd)
	if sal != "" && in.Line > 0 {
		sal += ":" + strconv.FormatInt(in.Line, 10)
	}
	if op := clean(in.Operation, 32); op != "" {
		sal = strings.TrimSpace(op + " " + sal)
	}
	d := description{salient: sal}
	if ok {
		d.success = found(head(c))
	}
	return d
}

func describeMcpResources(c *Call, _ string, _ bool) description {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	decodeInput(c, &in)
	sal := clean(in.Server, 40)
	if u := clean(in.URI, 80); u != "" {
		sal = strings.TrimSpace(sal + " " + u)
	}
	return description{salient: sal}
}

// Anything else.

// preferred ranks the input fields describeGeneric shows, best first; a
// field not listed ranks below all of them, and among those the first in
// the input wins.
var preferred = [...]string{
	"file_path", "notebook_path", "filePath", "path", "url", "uri", "command",
	"query", "pattern", "skill", "subject", "title", "name", "description",
	"id", "issue_id", "identifier",
}

// isPathKey reports whether a field names a path to show relative to cwd.
func isPathKey(k string) bool {
	return k == "file_path" || k == "notebook_path" || k == "filePath" || k == "path"
}

// describeGeneric covers MCP and unknown tools: it shows the best-ranked
// string field of the input, preferring short strings over long texts.
func describeGeneric(c *Call, cwd string, _ bool) description {
	dec := json.NewDecoder(bytes.NewReader(c.Input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return description{}
	}
	const short = 400 // bytes; longer strings are texts, shown only as a last resort
	var best, bestKey, long string
	bestRank := len(preferred) + 1
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		if len(raw) == 0 || raw[0] != '"' {
			continue
		}
		rank := len(preferred)
		for i, p := range preferred {
			if key == p {
				rank = i
				break
			}
		}
		if rank >= bestRank {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
			continue
		}
		if len(s) > short && rank == len(preferred) {
			if long == "" {
				long = s
			}
			continue
		}
		best, bestKey, bestRank = s, key, rank
	}
	switch {
	case best == "":
		return description{salient: clean(firstLine(privacy.Strip(long)), salientMax)}
	case isPathKey(bestKey):
		return description{kind: KindPath, subject: showPath(best, cwd)}
	case bestKey == "url" || bestKey == "uri":
		return description{salient: showURL(best)}
	}
	return description{salient: clean(best, salientMax)}
}

// Helpers.
