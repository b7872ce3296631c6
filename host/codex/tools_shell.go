package codex

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"bottle/privacy"
	"bottle/render/digest"
)

// shellInput is what the shell tools' arguments hold, across versions:
// exec_command's cmd, shell's argv, a local shell's action.
type shellInput struct {
	Cmd       string          `json:"cmd"`
	Command   json.RawMessage `json:"command"`
	SessionID json.RawMessage `json:"session_id"`
	Chars     string          `json:"chars"`
}

// command is the command line a shell call ran: exec_command's cmd, or
// the script of an argv that runs one ("bash -lc <script>"), else the argv
// joined.
func (in *shellInput) command() string {
	if in.Cmd != "" {
		return in.Cmd
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[len(argv)-1]
	}
	return strings.Join(argv, " ")
}

func (c *Call) shellInput() shellInput {
	var in shellInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	return in
}

// exitLine finds the exit code a shell output reports: exec_command's
// "Process exited with code N", shell's "Exit code: N".
var exitLine = regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:?) (-?\d+)\s*$`)

// exitCodeOf is the exit code the output reports, from its text or from an
// older version's JSON ({"output": …, "metadata": {"exit_code": N}}).
func exitCodeOf(out string) (int, bool) {
	if strings.HasPrefix(strings.TrimSpace(out), "{") {
		var o struct {
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(out), &o) == nil && o.Metadata.ExitCode != nil {
			return *o.Metadata.ExitCode, true
		}
	}
	m := exitLine.FindStringSubmatch(prefix(out, 4096))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// outputBody is what the command printed: after exec_command's "Output:"
// line, or an older version's JSON "output".
func outputBody(out string) string {
	if strings.HasPrefix(strings.TrimSpace(out), "{") {
		var o struct {
			Output *string `json:"output"`
		}
		if json.Unmarshal([]byte(out), &o) == nil && o.Output != nil {
			return *o.Output
		}
	}
	if _, body, ok := strings.Cut(out, "\nOutput:\n"); ok {
		return body
	}
	return strings.TrimPrefix(out, "Output:\n")
}

// failureWords mark the line of a failed command's output that tells why.
var failureWords = []string{"error", "fail", "fatal", "panic", "cannot", "not found", "no such", "denied", "invalid"}

// firstError is the line of a failed output that tells why: the first that
// names a failure, else the first line.
func firstError(out string) string {
	body := privacy.Strip(prefix(outputBody(out), 16<<10))
	first := ""
	for n, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		lower := strings.ToLower(line)
		for _, w := range failureWords {
			if strings.Contains(lower, w) {
				return line
			}
		}
		if n > 40 {
			break
		}
	}
	return first
}

func describeExec(c *Call, cwd string) digest.Parts {
	in := c.shellInput()
	cmd := in.command()
	cmd = strings.TrimSpace(privacy.Strip(cmd))
	p := digest.Parts{Kind: digest.KindCommand, Subject: text(strings.ReplaceAll(cmd, "\n", " ⏎ "), 150)}
	if !c.HasResult {
		return p
	}
	if strings.Contains(prefix(c.Output, 512), "Process running with session ID") {
		p.Outcome = "running"
		return p
	}
	code, ok := exitCodeOf(c.Output)
	switch {
	case ok && code != 0:
		p.Status, p.Outcome = failedOutcome(code, outputBody(c.Output), cwd)
	case ok:
		p.Outcome = "ok"
	}
	return p
}

// failedOutcome is the outcome of a command that exited with code: "exit
// N: <the line of body that says why>", found as digest finds it in the
// output of a failed command of Claude Code's (test names, a compiler's
// file:line, an error word), to which Codex's output is handed in that
// shape.
func failedOutcome(code int, body, cwd string) (status, outcome string) {
	status = "exit " + strconv.Itoa(code)
	l := digest.Describe(digest.Call{Name: "Bash", Input: json.RawMessage(`{}`), HasResult: true, IsError: true,
		Result: "Exit code " + strconv.Itoa(code) + "\n" + body}, cwd)
	if out := l.Outcome(); strings.HasPrefix(out, status) {
		return status, out
	}
	outcome = status
	if e := text(firstError(body), 100); e != "" {
		outcome += ": " + e
	}
	return status, outcome
}

func describeStdin(c *Call, _ string) digest.Parts {
	in := c.shellInput()
	sal := "session " + text(strings.Trim(string(in.SessionID), `"`), 20)
	if in.Chars != "" {
		sal += " " + strconv.Quote(text(in.Chars, 40))
	}
	p := digest.Parts{Subject: sal}
	if code, ok := exitCodeOf(c.Output); ok && c.HasResult {
		p.Outcome = "exit " + strconv.Itoa(code)
	}
	return p
}
