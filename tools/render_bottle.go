package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/bottles"
	"bottle/ident"
	"bottle/locate"
	"bottle/pointer"
	"bottle/render"
)

const sessionIDDesc = "Claude Code session id (the transcript's file name, a UUID). " +
	"Omit it for the current session: the most recently modified transcript of the server's project."

const renderBottleDesc = `Renders the bottle of a Claude Code session and writes it to the bottles folder, replacing the previous bottle atomically.

A bottle is the session as one markdown file: user and assistant messages verbatim, each tool activity as one line tagged [#id] (expand it with expand_observation). Call this when the bottle you were pointed at looks stale (the last few minutes missing), or to change its budget.

Returns the bottle's path, its mode (full; or reconstructed, from claude-mem alone, when the transcript is gone), how many turns, observations, tool digests and folded turns it holds, its size in bytes, its estimated tokens (bytes ÷ 3) and which session it used. Read the file with the Read tool once this call has returned (a Read made in the same reply may find the file replaced under it), or page it with read_bottle.

Several sessions can run in one project: pass the session_id you were given rather than relying on the current session.

Example: {"session_id": "3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f", "budget_tokens": 0}`

// RenderBottle returns the render_bottle tool: render a session's bottle and
// write it into d.Env.BottlesDir().
func RenderBottle(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("render_bottle",
		mcp.WithDescription(renderBottleDesc),
		mcp.WithTitleAnnotation("Render session bottle"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("session_id", mcp.Description(sessionIDDesc), mcp.Pattern(ident.SessionPattern), mcp.MaxLength(128)),
		mcp.WithString("transcript_path", mcp.Description(
			"Transcript to render instead of looking it up by session_id: a .jsonl file inside Claude Code's "+
				"projects folder (~/.claude/projects/ or $CLAUDE_CONFIG_DIR/projects/), absolute or relative to it. "+
				"Paths resolving outside that folder are refused.")),
		mcp.WithInteger("budget_tokens", mcp.Min(0), mcp.Description(
			"Token budget of the bottle (estimated as bytes ÷ 3); over it the oldest turns are folded into one line "+
				"each. Omitted: the default budget (about 20,000 tokens, one Read). 0: everything, no folding.")),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "session_id", "transcript_path", "budget_tokens"); bad != nil {
			return bad, nil
		}
		id, err := stringArg(args, "session_id")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		transcript, err := stringArg(args, "transcript_path")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		budget, given, err := intArg(args, "budget_tokens")
		switch {
		case err != nil:
			return mcp.NewToolResultError(err.Error()), nil
		case budget < 0:
			return mcp.NewToolResultError("budget_tokens must be 0 (everything) or a positive token count; omit it for the default budget"), nil
		}
		everything := given && budget == 0
		s, bad := d.resolveSession(ctx, id, transcript)
		if bad != nil {
			return bad, nil
		}
		res, path, bad := d.renderAndWrite(ctx, s, budget, everything)
		if bad != nil {
			return bad, nil
		}
		s.id = res.SessionID
		return mcp.NewToolResultText(renderReport(s, res, path, d.Host)), nil
	}
}

// renderAndWrite renders session s and writes its bottle. A non-nil result
// is the tool error to return.
func (d Deps) renderAndWrite(ctx context.Context, s session, budget int, everything bool) (*render.Result, string, *mcp.CallToolResult) {
	res, bad := d.render(ctx, s, budget, everything)
	if bad != nil {
		return nil, "", bad
	}
	dir := d.Env.BottlesDir()
	if !filepath.IsAbs(dir) {
		// No home folder: a relative bottles folder would resolve against the
		// server's working directory, the user's project.
		return nil, "", mcp.NewToolResultError(fmt.Sprintf(
			"Rendered session %s but there is no bottles folder to write it to (%q is not absolute): "+
				"the server runs without HOME; set HOME, CLAUDE_MEM_DATA_DIR or BOTTLE_DIR.", res.SessionID, dir))
	}
	path, err := bottles.Write(dir, res.SessionID, res.Markdown)
	if err != nil {
		return nil, "", mcp.NewToolResultError(fmt.Sprintf(
			"Rendered session %s but could not write its bottle: %v.\n"+
				"The bottles folder must be writable (set BOTTLE_DIR to move it).", res.SessionID, err))
	}
	return res, path, nil
}

// render renders session s at budget (everything: no budget). A non-nil
// result is the tool error to return.
func (d Deps) render(ctx context.Context, s session, budget int, everything bool) (*render.Result, *mcp.CallToolResult) {
	src, err := locate.Find(d.Env, s.id, s.transcript, "")
	if err != nil {
		return nil, d.renderError(ctx, s, err)
	}
	res, err := render.Render(ctx, render.Options{
		SessionID:      s.id,
		TranscriptPath: src.Transcript,
		Reader:         locate.ReaderFor(src.Transcript),
		TranscriptErr:  src.TranscriptErr,
		DBPath:         src.DB,
		BudgetTokens:   budget,
		NoBudget:       everything,
		Now:            d.now(),
		Location:       d.loc(),
		// Junk in the projects folder is no session, as for hookbin render.
		RequireEntries: true,
	})
	if err != nil {
		return nil, d.renderError(ctx, s, err)
	}
	return res, nil
}

// renderError explains a failed render.
func (d Deps) renderError(ctx context.Context, s session, err error) *mcp.CallToolResult {
	switch {
	case errors.Is(err, ident.ErrBadSession):
		return mcp.NewToolResultError(fmt.Sprintf("Cannot render %s: %v. Pass a valid session_id.", s, err))
	case errors.Is(err, locate.ErrNoTranscript), errors.Is(err, render.ErrNothingToRender):
		return mcp.NewToolResultError(fmt.Sprintf(
			"Nothing to render for session %s: no transcript under %s and no stored prompts or observations "+
				"in claude-mem's database (%s).\nCheck the session id; omit session_id for the current session.%s",
			s, d.Env.ProjectsDir(), d.Env.DBPath(), d.knownSessions(ctx)))
	case errors.Is(err, render.ErrNotTranscript):
		return mcp.NewToolResultError(fmt.Sprintf("Cannot render %s: %v; nothing to render.\nPass another session_id.%s", s, err, d.knownSessions(ctx)))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return mcp.NewToolResultError(fmt.Sprintf("Rendering session %s was cancelled: %v.", s, err))
	}
	return mcp.NewToolResultError(fmt.Sprintf("Could not render session %s: %v.\n"+
		"The transcript or claude-mem's database may be unreadable; try again, or pass another session_id.", s, err))
}

// renderReport is render_bottle's result text.
func renderReport(s session, res *render.Result, path string, host pointer.Host) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rendered the bottle of session %s.\n", s)
	fmt.Fprintf(&b, "path: %s\n", path)
	fmt.Fprintf(&b, "mode: %s\n", res.Mode)
	fmt.Fprintf(&b, "turns: %s · observations: %s · tool digests: %s · pending: %s · folded turns: %s\n",
		commas(res.Turns), commas(res.Observations), commas(res.Digests), commas(res.Pending), commas(res.Folded))
	fmt.Fprintf(&b, "size: %s bytes · ~%s tokens (bytes ÷ 3) · %s lines\n",
		commas(len(res.Markdown)), commas(render.EstimateTokens(len(res.Markdown))), commas(res.Lines))
	if res.TranscriptPath != "" {
		fmt.Fprintf(&b, "transcript: %s\n", res.TranscriptPath)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "note: %s\n", oneLine(n))
	}
	if host.ReadWith != "" {
		// A host without a Read tool: one Read means nothing to it.
		fmt.Fprintf(&b, "Page it with read_bottle %s, or read it with %s.\n", argsJSON(res.SessionID, 0, 0, ""), host.ReadWith)
	} else if res.NeedsPaging {
		fmt.Fprintf(&b, "It is longer than one Read (%s lines or %s tokens): page it with read_bottle %s.\n",
			commas(render.ReadMaxLines), commas(render.ReadMaxTokens), argsJSON(res.SessionID, 0, 0, ""))
	} else {
		fmt.Fprintf(&b, "Read it with the Read tool, or page it with read_bottle %s.\n", argsJSON(res.SessionID, 0, 0, ""))
	}
	return b.String()
}

// commas formats n with thousands separators: 61234 -> "61,234".
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// oneLine flattens s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
