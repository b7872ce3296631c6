package codex

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"bottle/internal/shown"
	"bottle/privacy"
	"bottle/render/digest"
	"bottle/session"
)

// Call is one tool call of a rollout and its output, as the digest and the
// working state read it.
type Call struct {
	Name      string   // the function: exec_command, apply_patch, read_bottle, …
	Namespace string   // an MCP server's namespace, mcp__<server>
	Type      ItemType // function_call, custom_tool_call, local_shell_call, web_search_call
	Arguments string   // JSON arguments (a local shell's or a web search's action)
	Input     string   // a custom tool's raw input (apply_patch's patch)
	Status    string
	HasResult bool
	Output    string
}

// ToolName is the call's name as the session model keeps it: an MCP
// tool's is "mcp__<server>__<function>", as Claude Code names them, so
// that both hosts' MCP calls read alike.
func (c *Call) ToolName() string {
	if c.Namespace != "" && c.Name != "" {
		if strings.HasPrefix(c.Namespace, "mcp__") {
			return c.Namespace + "__" + c.Name
		}
		return c.Namespace + "." + c.Name
	}
	return c.Name
}

// describers maps a Codex tool to its describer, one per family below;
// any other tool, MCP tools included, gets digest's generic line.
var describers = map[string]func(c *Call, cwd string) digest.Parts{
	"exec_command":       describeExec,
	"shell":              describeExec,
	"shell_command":      describeExec,
	"local_shell":        describeExec,
	"container.exec":     describeExec,
	"write_stdin":        describeStdin,
	"apply_patch":        describePatch,
	"update_plan":        describePlan,
	"view_image":         describeImage,
	"web_search":         describeWebSearch,
	"request_user_input": describeQuestion,
}

// Line is the call's digest: "<tool>: <salient> — <outcome>", stripped,
// flat and bounded as every digest line.
func (c *Call) Line(cwd string) digest.Line {
	f := describers[c.Name]
	if f == nil || c.Namespace != "" {
		return digest.Describe(digest.Call{Name: c.ToolName(), Input: c.InputJSON(), HasResult: c.HasResult,
			Result: c.Output, IsError: c.Failed()}, cwd)
	}
	p := f(c, cwd)
	p.Tool = c.Name
	if p.Outcome == "" && !c.HasResult && c.Type != ItemWebSearchCall {
		p.Outcome = "no result"
	}
	return p.Line()
}

// Failed reports whether the output says the call failed: a command's
// nonzero exit code, a patch or tool that reports an error.
func (c *Call) Failed() bool {
	if !c.HasResult {
		return false
	}
	if code, ok := exitCodeOf(c.Output); ok {
		return code != 0
	}
	return false
}

// text is a part of a line: stripped, flat, bounded.
func text(s string, max int) string { return shown.Line(privacy.RedactAssignments(s), max) }

// Shell.

// shellInput is what the shell tools' arguments hold, across versions:
// exec_command's cmd, shell's argv, a local shell's action.
type shellInput struct {
	Cmd       string          `json:"cmd"`
	Command   json.RawMessage `json:"command"`
	Workdir   string          `json:"workdir"`
	WorkDir2  string          `json:"working_directory"`
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
		p.Status = "exit " + strconv.Itoa(code)
		p.Outcome = p.Status
		if e := text(firstError(c.Output), 100); e != "" {
			p.Outcome += ": " + e
		}
	case ok:
		p.Outcome = "ok"
	}
	return p
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

// Files.

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
	return firstNonEmpty(in.Input, in.Patch)
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

// Planning and the user.

// planInput is update_plan's arguments.
type planInput struct {
	Explanation string `json:"explanation"`
	Plan        []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

func describePlan(c *Call, _ string) digest.Parts {
	var in planInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	done, now := 0, ""
	for _, s := range in.Plan {
		switch s.Status {
		case "completed":
			done++
		case "in_progress":
			if now == "" {
				now = s.Step
			}
		}
	}
	sal := strconv.Itoa(done) + " of " + strconv.Itoa(len(in.Plan)) + " done"
	if now = text(now, 100); now != "" {
		sal += "; now: " + now
	}
	return digest.Parts{Subject: sal}
}

func describeWebSearch(c *Call, _ string) digest.Parts {
	var in struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	if q := text(in.Query, 140); q != "" {
		return digest.Parts{Subject: `"` + q + `"`}
	}
	return digest.Parts{Subject: text(in.URL, 140)}
}

// questionInput is request_user_input's arguments.
type questionInput struct {
	Questions []struct {
		ID       string `json:"id"`
		Header   string `json:"header"`
		Question string `json:"question"`
	} `json:"questions"`
}

func describeQuestion(c *Call, _ string) digest.Parts {
	var in questionInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	p := digest.Parts{}
	if len(in.Questions) > 0 {
		p.Subject = text(firstNonEmpty(in.Questions[0].Question, in.Questions[0].Header), 140)
		if len(in.Questions) > 1 {
			p.Note = " (+" + strconv.Itoa(len(in.Questions)-1) + " more)"
		}
	}
	if c.HasResult {
		p.Outcome = "answered"
		if c.Answers() == "" {
			p.Outcome = "no answer"
		}
	}
	return p
}

// Answers is the user's answers to a request_user_input call as they wrote
// them, a "<header or question>: <answer>" paragraph each, from its output
// ({"answers": {"<id>": {"answers": ["…"]}}}); "" when the output holds
// none. Raw: strip before use.
func (c *Call) Answers() string {
	var in questionInput
	_ = json.Unmarshal([]byte(c.Arguments), &in)
	var out struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal([]byte(c.Output), &out) != nil || len(out.Answers) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	label := func(id string) string {
		for _, q := range in.Questions {
			if q.ID == id {
				return firstNonEmpty(strings.TrimSpace(q.Header), strings.TrimSpace(q.Question), id)
			}
		}
		return id
	}
	put := func(id string) {
		a, ok := out.Answers[id]
		if !ok || seen[id] {
			return
		}
		seen[id] = true
		words := strings.TrimSpace(strings.Join(a.Answers, ", "))
		if words != "" {
			parts = append(parts, label(id)+": "+words)
		}
	}
	for _, q := range in.Questions {
		put(q.ID)
	}
	ids := make([]string, 0, len(out.Answers))
	for id := range out.Answers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		put(id)
	}
	return strings.Join(parts, "\n\n")
}

// Action is what the call did in the working state's host-neutral words:
// a command run, files changed, the plan set; nil for any other call.
func (c *Call) Action(cwd string) *session.Action {
	if c.Namespace != "" {
		return nil
	}
	switch c.Name {
	case "exec_command", "shell", "shell_command", "local_shell", "container.exec":
		in := c.shellInput()
		a := &session.Action{Kind: session.ActCommand, Command: in.command()}
		if c.HasResult {
			a.Exit, a.ExitKnown = exitCodeOf(c.Output)
		}
		return a
	case "apply_patch":
		f := ParsePatch(c.patch())
		a := &session.Action{Kind: session.ActEdit}
		for _, group := range [][]string{f.Updated, f.Added, f.Deleted} {
			for _, p := range group {
				if !filepath.IsAbs(p) && cwd != "" {
					p = filepath.Join(cwd, p)
				}
				a.Files = append(a.Files, p)
			}
		}
		if len(a.Files) == 0 {
			return nil
		}
		return a
	case "update_plan":
		var in planInput
		if json.Unmarshal([]byte(c.Arguments), &in) != nil {
			return nil
		}
		a := &session.Action{Kind: session.ActPlan, Plan: make([]session.PlanStep, 0, len(in.Plan))}
		for _, s := range in.Plan {
			a.Plan = append(a.Plan, session.PlanStep{Text: s.Step, Status: s.Status})
		}
		return a
	}
	return nil
}

// prefix is s cut to at most n bytes.
func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
