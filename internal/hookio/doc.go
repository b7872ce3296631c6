// Package hookio is the input and output every Claude Code hook of bottle
// shares: the payload's size bound and the words for a payload that does
// not decode, work bounded by the hook's deadline, and the one-line JSON
// answer.
//
// It knows no hook and no folder; it reads and writes nothing itself, and
// imports the standard library alone, so that the PreToolUse hook's own
// binary starts fast.
package hookio
