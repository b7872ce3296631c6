package digest

import (
	"bytes"
	"strings"

	"bottle/privacy"
)

// shellTools are the describers of the shell tools.
var shellTools = map[string]describer{
	"Bash":       describeBash,
	"BashOutput": describeShellOutput,
	"KillShell":  describeShellID,
	"KillBash":   describeShellID,
	"TaskStop":   describeShellID,
}

func describeBash(c *Call, cwd string, ok bool) description {
	var in struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	decodeInput(c, &in)
	d := description{kind: KindCommand, subject: command(in.Command, cwd)}
	if d.subject == "" {
		d.salient = clean(in.Description, salientMax)
	}
	if ok {
		d.success = bashOutcome(c)
		d.detail = func(room int) string { return citedFiles(c, cwd, room) }
	}
	return d
}

// command is a shell command on one line, without a leading "cd <cwd> &&
// ": its lines joined by " ⏎ " (a script's second line, after a comment
// or a variable, is often the command itself), bounded.
func command(cmd, cwd string) string {
	cmd = strings.TrimSpace(privacy.Strip(cmd))
	if dir := trimSeparators(cwd); dir != "" {
		if rest, ok := cutCd(cmd, dir); ok {
			cmd = strings.TrimSpace(rest)
		}
	}
	if !strings.Contains(cmd, "\n") {
		return clean(cmd, salientMax)
	}
	var b strings.Builder
	for line := range strings.Lines(prefix(cmd, 4*salientMax+16)) {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" ⏎ ")
		}
		b.WriteString(line)
	}
	return clean(b.String(), salientMax)
}

// cutCd cuts a leading "cd <dir> && " from cmd, dir bare or quoted.
func cutCd(cmd, dir string) (string, bool) {
	rest, ok := strings.CutPrefix(cmd, "cd ")
	if !ok {
		return cmd, false
	}
	for _, q := range [...]string{"", `"`, "'"} {
		r, ok := strings.CutPrefix(rest, q)
		if !ok {
			continue
		}
		if r, ok = strings.CutPrefix(r, dir); !ok {
			continue
		}
		if r, ok = strings.CutPrefix(r, q+" && "); ok {
			return r, true
		}
	}
	return cmd, false
}

func bashOutcome(c *Call) string {
	if c.headHasPrefix(512, "Command running in background") {
		return "running in background"
	}
	st := c.Structured
	if len(st) > 0 && (bytes.Contains(st, []byte(`"returnCodeInterpretation"`)) ||
		bytes.Contains(st, []byte(`"interrupted":true`)) || bytes.Contains(st, []byte(`"interrupted": true`))) {
		var s struct {
			Interrupted              bool   `json:"interrupted"`
			ReturnCodeInterpretation string `json:"returnCodeInterpretation"`
		}
		decode(st, &s)
		if s.Interrupted {
			return "interrupted"
		}
		if r := clean(s.ReturnCodeInterpretation, 40); r != "" {
			return lowerFirst(r)
		}
	}
	return "ok"
}

func describeShellID(c *Call, _ string, _ bool) description {
	var in struct {
		ShellID string `json:"shell_id"`
		TaskID  string `json:"task_id"`
		BashID  string `json:"bash_id"`
	}
	decodeInput(c, &in)
	return description{salient: clean(firstNonEmpty(in.ShellID, in.TaskID, in.BashID), 40)}
}

// describeShellOutput covers BashOutput and TaskOutput, whose results open
// with status tags: "<retrieval_status>timeout</retrieval_status> …
// <status>running</status>".
func describeShellOutput(c *Call, cwd string, ok bool) description {
	d := describeShellID(c, cwd, false)
	if ok {
		h := c.resultPrefix(headBytes)
		var parts []string
		retrieval, status := tag(h, "retrieval_status"), tag(h, "status")
		if retrieval != "" && retrieval != "success" {
			parts = append(parts, retrieval)
		}
		if status != "" {
			parts = append(parts, status)
		} else if retrieval == "success" {
			parts = append(parts, retrieval)
		}
		if code := tag(h, "exit_code"); code != "" {
			parts = append(parts, "exit "+code)
		}
		d.success = strings.Join(parts, ", ")
	}
	return d
}

// tag is the short text of the first <name>…</name> element in s.
func tag(s, name string) string {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "</"+name+">")
	if !ok || len(v) > 40 {
		return ""
	}
	return clean(v, 20)
}
