// Package codexconfig edits the OpenAI Codex CLI's configuration for
// bottle: its hooks in $CODEX_HOME/hooks.json and its MCP server (and, when
// asked, the trust of its hooks) in $CODEX_HOME/config.toml.
//
// The edits are pure functions from a file's bytes to new bytes and notes.
// hooks.json keeps every foreign event, group and handler (in order);
// config.toml is edited as text: only bottle's own tables
// ([mcp_servers.bottle] with its sub-tables, and [hooks.state."<key>"] of
// bottle's hooks) are replaced, added or removed, and every other byte —
// comments, formatting, foreign tables, CRLF line ends — stays as it was.
// Each TOML edit parses the file before and after (go-toml/v2) and refuses a
// file it cannot parse, or one that defines bottle's server outside its own
// table, with one line.
//
// It reads and writes no files itself, and does no output. It imports
// internal/claudesettings for its order-keeping JSON object.
package codexconfig
