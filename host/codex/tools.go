package codex

import (
	"encoding/json"
	"path/filepath"
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

// describers maps a Codex tool to its describer, each in the file of its
// family (tools_shell.go, tools_files.go, tools_plan.go: plans, the web
// and questions to the user); any other tool, MCP tools included, gets
// digest's generic line. The session goldens pin every form of each.
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
