// Package transcript reads a Claude Code session transcript (JSONL) into
// its main thread: the events a bottle shows, in file order, and one
// [ToolCall] per tool use with its digest worked out as its result arrives.
// It is Claude Code's producer of the host-neutral session model (package
// session; [Read] has the shape of session.Reader, and the model's types
// are named here too), and it keeps what is Claude Code's alone: the entry
// types, the classification of user entries, the wrappers and senders.
//
// [Read] reads a file and [ReadFrom] a stream; [ReadOptions] asks for more
// (tool calls in full, for expansion) or less (up to the first prompt, no
// digests). Every problem inside the data (malformed or oversized lines,
// unknown entry types, duplicates, a torn final line) is skipped and
// counted in [Diagnostics]; only a failing file is an error.
//
// How it reads: the file is cut into chunks of whole lines (1 MB chunks of a
// memory map on Linux for files of 4 MB or more, 256 KB reads otherwise).
// Goroutines take turns taking the next chunk, scanning it into compact
// records with the JSON scanner (package jsonscan: only the fields a bottle
// shows are decoded), and applying finished chunks in file order, so the
// result is that of a line-by-line read; the pages of applied chunks are
// dropped, so memory grows with what the transcript keeps, not with its
// size. A worker that sees a tool call and its result in the same chunk
// digests it there (package digest), reading the result still escaped.
// User entries are classified in the order of Claude Code's own rules
// (classify.go): compaction summary, tool-result carrier, meta, interrupt,
// command and task wrappers, genuine prompt. A message another party sent
// — a teammate of an agent team, another agent or session, a channel,
// Slack, a coordinator (senders.go) — is an input like a prompt, named by
// its sender (Event.From), even in a meta entry.
//
// Digests may read mapped bytes in place, but what reaches a ToolCall is
// always a copy: nothing the reader returns points into the file's map
// (TestDigestsOutliveTheMap faults if it did).
//
// Text is returned raw: privacy stripping is the renderer's job, except
// where classification must look inside a wrapper. The package does no
// output and no logging. It may import session, internal/jsonscan,
// render/digest and privacy.
package transcript
