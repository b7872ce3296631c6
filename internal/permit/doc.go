// Package permit decides which tool calls bottle lets through without a
// permission prompt, as Claude Code's PreToolUse hook: a Read of a regular
// file inside the bottles folder (symlinks and ".." resolved) and bottle's
// own MCP tools. Every other call gets no decision, so the user's own
// permission rules apply.
//
// It reads the payload, resolves paths and writes the one-line answer; it
// renders nothing and opens no database. It imports only what links no
// SQLite and no renderer (folders, hookio, hooklog, ident, and pointer for
// bottle's tool names), so that the hook's own binary (./pretooluse) starts
// in about the time of an empty Go program: it runs on every Read.
package permit
