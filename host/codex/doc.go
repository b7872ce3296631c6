// Package codex reads OpenAI Codex CLI rollouts: the append-only JSONL
// record of one thread that Codex writes under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl (and
// compresses to .jsonl.zst once cold, or moves under archived_sessions/).
//
// [Find] finds a thread's rollout by thread id; [Read] and [ReadFrom] turn
// it into a typed stream of [Record]s in file order: session_meta,
// response_item (messages by role, tool calls and their outputs,
// reasoning, compaction items), event_msg, turn_context and compacted.
// Messages that Codex injects as context — developer messages (the base
// and permissions instructions, skills, hook context such as bottle's own
// pointer), the environment context, AGENTS.md text — are marked
// [Item.Injected] with the reason, so that nothing built on the stream takes
// them for the user's or the assistant's words.
//
// Every problem inside the data (malformed or oversized lines, unknown
// record types, a torn final line) is skipped and counted in
// [Diagnostics]; only a failing file is an error. Text is returned raw:
// privacy stripping is the renderer's job.
//
// This is the Codex host's reader, beside the Claude Code one
// (host/claudecode/transcript); turning records into bottle's session model
// is not its job. It does no output and no logging, and imports no other
// package of the module.
package codex
