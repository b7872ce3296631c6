package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/bottles"
	"bottle/locate"
	"bottle/pointer"
	"bottle/search"
)

// Page bounds of list_sessions.
const (
	defaultSessionPage = 50
	maxSessionPage     = 200
)

const listSessionsDesc = `Lists the sessions of a project, Claude Code's and Codex's, newest first: each session's id, the host that recorded it (claude-code or codex), the mode its bottle renders in (full: the transcript exists; reconstructed: only claude-mem's records are left), its last activity, turns, claude-mem observations, whether a bottle has been written, and its first prompt (private text removed, at most 100 characters).

Use it to find a past session to search (search_history with its session_id), expand, or pick up (the continue_session prompt). project defaults to the server's working directory; the footer names the next offset when there are more.

Example: {"project": "/home/ada/src/weather", "offset": 0}`

// ListSessions returns the list_sessions tool: a page of a project's
// sessions as locate.List finds them, with turns counted.
func ListSessions(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("list_sessions",
		mcp.WithDescription(listSessionsDesc),
		mcp.WithTitleAnnotation("List project sessions"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("project", mcp.MaxLength(4096), mcp.Description(
			"The project's folder, absolute or relative to the server's working directory (default: the working directory).")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description("Sessions to skip (the footer names the next offset).")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxSessionPage), mcp.DefaultNumber(defaultSessionPage),
			mcp.Description("Most sessions on the page (default 50).")),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "project", "offset", "limit"); bad != nil {
			return bad, nil
		}
		project, err := stringArg(args, "project")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		offset, _, err := intArg(args, "offset")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		limit, given, err := intArg(args, "limit")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if !given {
			limit = defaultSessionPage
		}
		switch {
		case offset < 0:
			return mcp.NewToolResultError("offset counts sessions from 0; start at offset 0"), nil
		case limit < 1 || limit > maxSessionPage:
			return mcp.NewToolResultError(fmt.Sprintf("limit must be between 1 and %d (default %d)", maxSessionPage, defaultSessionPage)), nil
		case strings.ContainsRune(project, 0):
			return mcp.NewToolResultError("project must be a folder path, without NUL bytes"), nil
		}
		dir := project
		switch {
		case dir == "":
			dir = d.Cwd
		case !filepath.IsAbs(dir):
			dir = filepath.Join(d.Cwd, dir)
		}
		if dir == "" {
			return mcp.NewToolResultError("No project given and the server has no working directory: pass project, an absolute folder."), nil
		}
		return d.listSessions(ctx, filepath.Clean(dir), offset, limit), nil
	}
}

func (d Deps) listSessions(ctx context.Context, dir string, offset, limit int) *mcp.CallToolResult {
	var cat locate.Catalogue
	var c *search.Catalogue
	if d.Store != nil {
		c = d.Store.Catalogue(ctx)
		cat = c
	}
	all, notes, err := locate.ListWith(ctx, d.Env, "", dir, cat)
	if c != nil {
		c.Save(ctx) // a busy or unusable index only costs the next listing time
	}
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("Cannot list the sessions of %s: %v.", dir, err))
	}
	// Sessions with no prompt and no tool call (one started for a command
	// alone, this very one before its first prompt) are nothing to pick up.
	list := slices.DeleteFunc(all, func(l locate.Listing) bool { return l.Empty })
	var b strings.Builder
	fmt.Fprintf(&b, "Sessions of the project %s, newest first: %s.\n", dir, commas(len(list)))
	if len(list) == 0 {
		fmt.Fprintf(&b, "No transcripts under %s and no claude-mem sessions of project %q; pass project to list another folder's.\n",
			filepath.Join(d.Env.ProjectsDir(), locate.ProjectDirName(dir)), locate.ClaudeMemProject(dir))
	}
	if offset > len(list) && len(list) > 0 {
		return mcp.NewToolResultError(fmt.Sprintf("offset %d is past the end: the project has %d sessions; start at offset 0", offset, len(list)))
	}
	end := min(offset+limit, len(list))
	for i, l := range list[offset:end] {
		if b.Len() > DefaultPageChars-3000 {
			end = offset + i // the rest on the next page
			break
		}
		turns := "? turns"
		switch {
		case l.Host == locate.HostCodex:
			turns = plural(l.Prompts, "turn")
		case l.TranscriptPath != "":
			if p, msg := confineTranscript(d.Env, l.TranscriptPath); msg == "" {
				if n, ok := d.Store.PromptsNow(ctx, l.ID, p); ok {
					turns = plural(n, "turn")
				} else if n, err := d.Index.Prompts(ctx, p); err == nil {
					turns = plural(n, "turn")
				}
			}
		case l.Stored:
			turns = plural(l.Prompts, "turn")
		}
		when := "last activity unknown"
		if !l.LastActivity.IsZero() {
			when = "last active " + l.LastActivity.In(d.loc()).Format("2006-01-02 15:04")
		}
		obs := "no claude-mem records"
		if l.Stored {
			obs = plural(l.Observations, "observation")
		}
		bottle := "no bottle"
		if p, err := bottles.Path(d.Env.BottlesDir(), l.ID); err == nil {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				bottle = "bottle written"
			}
		}
		first := l.FirstPrompt
		if first == "" {
			first = "(no prompt recorded)"
		}
		fmt.Fprintf(&b, "- %s · %s · %s · %s · %s · %s · %s — %s\n", l.ID, l.Host, l.Mode, when, turns, obs, bottle, oneLine(first))
	}
	writeNotes(&b, notes)
	b.WriteString(sessionsFooter(dir, offset, end, len(list)))
	return mcp.NewToolResultText(b.String())
}

// sessionsFooter is the last line of a listing of sessions offset to end
// of total: the next page's arguments, or the end; "" for no sessions.
func sessionsFooter(dir string, offset, end, total int) string {
	switch {
	case end < total:
		return fmt.Sprintf("%s%d–%d of %d · more: next list_sessions {\"project\":%q,\"offset\":%d}]\n", pointer.SessionsFooter, offset+1, end, total, dir, end)
	case total > 0:
		return fmt.Sprintf("%s%d–%d of %d · end of list · search one with search_history, pick one up with the continue_session prompt]\n", pointer.SessionsFooter, offset+1, end, total)
	}
	return ""
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return commas(n) + " " + what + "s"
}
