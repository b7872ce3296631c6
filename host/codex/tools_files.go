package codex

import (
	"cmp"
	"encoding/json"
	"strings"

	"bottle/render/digest"
)

// PatchFiles are the files a patch in Codex's apply_patch format adds,
// updates (a move names its new path) and deletes, in order.
type PatchFiles struct{ Added, Updated, Deleted []string }

// ParsePatch reads the file operations of an apply_patch patch
// ("*** Add File: <path>", "*** Update File: <path>", "*** Move to:
// <path>", "*** Delete File: <path>").
func ParsePatch(patch string) PatchFiles {
	var f PatchFiles
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			f.Added = append(f.Added, strings.TrimSpace(line[len("*** Add File: "):]))
		case strings.HasPrefix(line, "*** Update File: "):
			f.Updated = append(f.Updated, strings.TrimSpace(line[len("*** Update File: "):]))
		case strings.HasPrefix(line, "*** Move to: ") && len(f.Updated) > 0:
			f.Updated[len(f.Updated)-1] = strings.TrimSpace(line[len("*** Move to: "):])
		case strings.HasPrefix(line, "*** Delete File: "):
			f.Deleted = append(f.Deleted, strings.TrimSpace(line[len("*** Delete File: "):]))
		}
	}
	return f
}

// patch is the call's patch text: a custom tool's raw input, or a
// function call's "input" (or "patch") argument.
func (c *Call) patch() string {
	if c.Input != "" {
		return c.Input
	}
	var in struct {
		Input string `json:"input"`
		Patch string `json:"patch"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	return cmp.Or(in.Input, in.Patch)
}

func describePatch(c *Call, cwd string) digest.Parts {
	f := ParsePatch(c.patch())
	var parts []string
	add := func(verb string, paths []string) {
		if len(paths) == 0 {
			return
		}
		shownPaths := make([]string, 0, len(paths))
		for _, p := range paths {
			shownPaths = append(shownPaths, digest.Rel(text(p, 300), cwd))
		}
		parts = append(parts, verb+" "+strings.Join(shownPaths, ", "))
	}
	add("update", f.Updated)
	add("add", f.Added)
	add("delete", f.Deleted)
	p := digest.Parts{Subject: text(strings.Join(parts, "; "), 150)}
	if c.HasResult {
		if code, ok := exitCodeOf(c.Output); ok && code != 0 || strings.HasPrefix(strings.TrimSpace(outputBody(c.Output)), "apply_patch verification failed") {
			p.Status = "failed"
			p.Outcome = "failed"
			if e := text(firstError(c.Output), 100); e != "" {
				p.Outcome += ": " + e
			}
		} else {
			p.Outcome = "ok"
		}
	}
	return p
}

func describeImage(c *Call, cwd string) digest.Parts {
	var in struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	return digest.Parts{Kind: digest.KindPath, Subject: digest.Rel(text(in.Path, 300), cwd)}
}
