// Package codex is the OpenAI Codex CLI host. It reads rollouts: the
// append-only JSONL record of one thread that Codex writes under
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
// [ReadSession] is the host's session.Reader: the records turned into
// bottle's host-neutral session model, which the bottle, expansion and the
// working state consume. Each Codex tool has its describer ([Call.Line],
// tools.go: exec_command and the shells, apply_patch, update_plan,
// view_image, web_search, request_user_input; MCP and other tools get
// digest's generic line), built from digest's exported parts so that
// digest names no host; the calls the working state follows say what they
// did as a session.Action (a command and its exit code, the files a patch
// changed, the plan), not by their Codex names.
//
// Every problem inside the data (malformed or oversized lines, unknown
// record types, a torn final line) is skipped and counted in
// [Diagnostics]; only a failing file is an error. Text is returned raw:
// privacy stripping is the renderer's job (digest lines, already stripped,
// excepted).
//
// [Wording] is how bottle words what it tells Codex's model: the pointer's
// host value (package pointer), with the namespace of the server the
// install registers (internal/codexconfig).
//
// It does no output and no logging. It may import session, render/digest,
// internal/shown, privacy, pointer and internal/codexconfig; never render.
package codex
