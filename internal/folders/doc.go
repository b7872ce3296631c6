// Package folders resolves bottle's folders from the environment: Claude
// Code's configuration and projects folders, claude-mem's data folder and
// database, the bottles folder, the search index and the log ([Env]).
//
// It only computes paths (reading claude-mem's settings file for its data
// folder); it lists, opens and writes nothing else. It imports the standard
// library alone, so that a binary that needs only paths (the PreToolUse
// hook's) starts fast.
package folders
