// Package workstate builds a bottle's working state: a short block that
// tells a resumed model where things stand — open tasks, the latest plan,
// the files changed, the last run of each check, the commits, the last
// push and the pull requests opened. A [Builder] is fed the tool calls a
// transcript read observes ([Builder.ReadOptions]) and keeps only what the
// block shows: Claude Code's calls by their tool names, any other host's
// by the session.Action its reader says they did (a command run, files
// changed, the plan); [Builder.Lines] words it. Its [Openings] are the starts of
// the lines it writes, which the bottle's escaping protects.
//
// It reads no file and writes nothing: it sees what the transcript reader
// hands it. It may import host/claudecode/transcript (the calls it
// observes), render/digest (paths shown as digests show them),
// internal/shown and privacy; never render.
package workstate
