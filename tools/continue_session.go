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
		if !ident.ValidSession(id) {
			return nil, errors.New(resultText(badID(id)))
		}
		s, bad := d.resolveSession(ctx, id, "")
		if bad != nil {
			return nil, errors.New(resultText(bad))
		}
		res, path, bad := d.renderAndWrite(ctx, s, 0, false)
		if bad != nil {
			return nil, errors.New(resultText(bad))
		}
		ptr := res.PointerFor(path, d.now(), true, d.names(), d.Host)

		return mcp.NewGetPromptResult(fmt.Sprintf("Continue session %s from its bottle", res.SessionID),
			[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(privacy.Redact(ptr)))}), nil
	}
}
