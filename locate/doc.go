// Package locate knows where things are: Claude Code's configuration and
// projects folders, claude-mem's data folder and database, the bottles
// folder and the log ([Env]); the transcript of a session ([Transcript],
// [Find]); the folder Claude Code
// and the name claude-mem give a project ([ProjectDirName],
// [ClaudeMemProject]); a project's sessions and the current one
// ([Sessions], [Current]); and every session on the machine ([List]); a
// [Watch] keeps the projects' listing for a process that lists them again
// and again, told of changes by the system where it can.
//
// It reads folders, file names and, for listings, the first prompt of a
// transcript and claude-mem's session rows; it writes nothing and renders
// nothing. Paths it returns are resolved for the caller, so the renderer
// never needs to know the folder layout. It may import ident (session ids),
// host/claudecode/transcript, claudemem and privacy.
package locate
