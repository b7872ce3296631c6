package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/ident"
	"bottle/privacy"
)

const continueSessionDesc = "Picks up a past session (Claude Code's or Codex's) in this fresh conversation: renders the session's bottle " +
	"(its whole record, also for a session whose transcript Claude Code has pruned) and asks you to read it and continue."

// ContinueSession returns the continue_session prompt (Claude Code offers it
// as /mcp__bottle__continue_session <session_id>): it renders the bottle of
// the session and returns, as the user message, the pointer worded for a
// fresh conversation.
func ContinueSession(d Deps) (mcp.Prompt, server.PromptHandlerFunc) {
	prompt := mcp.NewPrompt("continue_session",
		mcp.WithPromptDescription(continueSessionDesc),
		mcp.WithArgument("session_id", mcp.RequiredArgument(),
			mcp.ArgumentDescription("The session to pick up (list_sessions or `hookbin list` shows them).")),
	)
	return prompt, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		id := strings.TrimSpace(req.Params.Arguments["session_id"])
		if id == "" {
			return nil, errors.New("continue_session needs a session_id: /" + d.names().Tool("continue_session") + " <session id> " +
				"(list_sessions or `hookbin list` shows them)")
		}
		ptr, sid, bad := d.continueSession(ctx, id)
		if bad != nil {
			return nil, errors.New(resultText(bad))
		}
		return mcp.NewGetPromptResult(fmt.Sprintf("Continue session %s from its bottle", sid),
			[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(privacy.Redact(ptr)))}), nil
	}
}

// continueSession renders the bottle of session id and returns the pointer
// to it worded for a fresh conversation of the host d serves, and the
// session's id; a non-nil bad is the error to give instead.
func (d Deps) continueSession(ctx context.Context, id string) (ptr, session string, bad *mcp.CallToolResult) {
	if !ident.ValidSession(id) {
		return "", "", badID(id)
	}
	s, bad := d.resolveSession(ctx, id, "")
	if bad != nil {
		return "", "", bad
	}
	res, path, bad := d.renderAndWrite(ctx, s, 0, false)
	if bad != nil {
		return "", "", bad
	}
	return res.PointerFor(path, d.now(), true, d.names(), d.Host), res.SessionID, nil
}

const continueSessionToolDesc = `Picks up a past session (Claude Code's or Codex's) in this conversation: renders the session's bottle (its whole record, also for a session whose transcript Claude Code has pruned) and returns the pointer to it. Read the bottle as the pointer says and continue the session from where it ends. list_sessions lists a project's sessions.

Example: {"session_id": "3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f"}`

// ContinueSessionTool returns the continue_session tool: the prompt's work
// as a tool the model calls, for a host that offers no MCP prompt to its
// user (Codex): the pointer is its result.
func ContinueSessionTool(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("continue_session",
		mcp.WithDescription(continueSessionToolDesc),
		mcp.WithTitleAnnotation("Continue a past session"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("session_id", mcp.Required(), mcp.Description("The session to pick up, a UUID: a Claude Code session id or a thread id "+
			"(list_sessions shows them)."), mcp.Pattern(ident.SessionPattern), mcp.MaxLength(128)),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "session_id"); bad != nil {
			return bad, nil
		}
		id, err := stringArg(args, "session_id")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if id == "" {
			return mcp.NewToolResultError("continue_session needs a session_id (list_sessions shows a project's sessions)"), nil
		}
		ptr, _, bad := d.continueSession(ctx, id)
		if bad != nil {
			return bad, nil
		}
		return mcp.NewToolResultText(ptr), nil
	}
}
