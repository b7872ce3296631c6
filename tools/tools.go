// Package tools defines bottle's MCP tools — render_bottle, read_bottle,
// expand_observation, search_history and list_sessions — and the prompt
// continue_session, over package render, and the server that offers them.
//
// Each tool lives in its own file as a constructor that closes over [Deps] and
// returns the tool's definition and handler. Handlers are safe for concurrent
// use (mcp-go runs tool calls on a worker pool): they share nothing but the
// read-only Deps. A failure the model can act on (unknown session, bad id, bad
// offset, nothing to render) is a tool result with isError set and a message
// that says what to do next; a Go error from a handler means a bug.
//
// No tool reads an arbitrary path: transcripts must resolve inside
// <config>/projects/, bottles are read only from the bottles folder, and
// session ids are validated before they touch a path.
//
// Tools are adapters: they resolve sessions and paths with locate,
// render and expand with render, store with bottles, and lay out
// results; they hold no rendering logic of their own. The package may
// import render, locate, bottles, claudemem (the
// shared database handle), privacy and search, and mcp-go.
package tools

import (
	"context"
	_ "embed"
	"maps"
	"strings"
	"time"

	"bottle/locate"
	"bottle/pointer"
	"bottle/privacy"
	"bottle/search"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Instructions are the server instructions sent to the client at
// initialization (Claude Code truncates them at 2 KB).
//
//go:embed instructions.md
var Instructions string

// Deps are what the tools need from the process. The zero values of Now and
// Location mean time.Now and time.Local.
type Deps struct {
	// Env resolves the config, data and bottles folders.
	Env locate.Env
	// Cwd is the server's working directory: its project's newest session is
	// the current session.
	Cwd string
	// Now is the clock written into rendered bottles.
	Now func() time.Time
	// Location is the zone of the times shown (nil = time.Local).
	Location *time.Location
	// DB, when set, keeps claude-mem's database open across calls
	// (expand_observation); nil opens it per call.
	DB *DBCache
	// Index, when set, keeps search records between calls
	// (search_history, list_sessions); nil reads the sources per call.
	Index *search.Index
	// Renders, when set, keeps the bottles read_bottle rendered without
	// writing them, so that later pages continue the same render (nil:
	// later pages are read from the file).
	Renders *Renders
	// Store, when set, is the persistent search index search_history
	// answers from (nil: it scans the sources).
	Store *search.Store
	// Names are the names under which the model sees the server and its
	// tools in this install; the zero value means: as Env's
	// $CLAUDE_PLUGIN_ROOT says (pointer.NamesFor).
	Names pointer.MCPNames
	// Host words the pointers the server returns for the host it serves:
	// the zero Host is Claude Code; a server Codex starts (mcpserver
	// --host codex) gets Codex's wording.
	Host pointer.Host
}

func (d Deps) names() pointer.MCPNames {
	if d.Names != (pointer.MCPNames{}) {
		return d.Names
	}
	return pointer.NamesFor(d.Env.Get("CLAUDE_PLUGIN_ROOT"))
}

func (d Deps) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

func (d Deps) loc() *time.Location {
	if d.Location == nil {
		return time.Local
	}
	return d.Location
}

// All returns every tool, in the order tools/list shows them. A host
// other than Claude Code also gets continue_session as a tool: Claude Code
// offers the prompt to its user as a slash command, Codex offers MCP
// prompts to no one.
func All(d Deps) []server.ServerTool {
	all := []server.ServerTool{
		d.serverTool(RenderBottle(d)),
		d.serverTool(ReadBottle(d)),
		d.serverTool(ExpandObservation(d)),
		d.serverTool(SearchHistory(d)),
		d.serverTool(ListSessions(d)),
	}
	if d.Host.Name != "" {
		all = append(all, d.serverTool(ContinueSessionTool(d)))
	}
	return all
}

// serverTool is the tool t, its texts worded for the host d serves, with
// handler h.
func (d Deps) serverTool(t mcp.Tool, h server.ToolHandlerFunc) server.ServerTool {
	if d.Host.Name != "" {
		t.Description = d.worded(t.Description)
		props := make(map[string]any, len(t.InputSchema.Properties))
		for name, p := range t.InputSchema.Properties {
			if m, ok := p.(map[string]any); ok {
				if desc, ok := m["description"].(string); ok {
					m = maps.Clone(m)
					m["description"] = d.worded(desc)
					p = m
				}
			}
			props[name] = p
		}
		t.InputSchema.Properties = props
	}
	return server.ServerTool{Tool: t, Handler: redacted(h)}
}

// redacted is h with the credentials in its result's text replaced
// (privacy.Redact): the one place every tool's answer passes, whatever
// source its text came from.
func redacted(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		if res != nil {
			for i, c := range res.Content {
				switch c := c.(type) {
				case mcp.TextContent:
					c.Text = privacy.Redact(c.Text)
					res.Content[i] = c
				case *mcp.TextContent:
					c.Text = privacy.Redact(c.Text)
				}
			}
		}
		return res, err
	}
}

// ServerInstructions are [Instructions] with a last line that names the
// tools as the model sees them in the install names describes.
func ServerInstructions(names pointer.MCPNames) string {
	return strings.TrimSpace(Instructions) + "\n\nIn this install Claude Code names the tools " + names.Tool("<tool>") +
		" (e.g. " + names.Tool("read_bottle") + ", " + names.Tool("expand_observation") + ")."
}

// NewServer returns the bottle MCP server with every tool and the
// continue_session prompt registered: tools and prompts capabilities
// without list changes, panics in handlers recovered, and the
// instructions ([ServerInstructions] for Claude Code), all worded for the
// host d serves.
func NewServer(d Deps, version string) *server.MCPServer {
	s := server.NewMCPServer("bottle", version,
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(d.instructions()),
	)
	s.AddTools(All(d)...)
	s.AddPrompt(ContinueSession(d))
	return s
}
