// Package fidelity owns the fidelity measurement over the corpus's real
// compactions (docs/fidelity.md): for every compaction of a corpus transcript (a
// main-thread compact_boundary followed by its isCompactSummary entry) it
// renders the bottle from the transcript as it stood just before the
// boundary and counts, per fact class, the share of the session's facts
// found in Claude Code's own summary, in the bottle, and in the two
// together, pooled over the compactions.
//
// The fact classes ([Classes]): prompts (lines of 12 characters or more of
// the genuine user prompts, classified as the transcript reader does),
// edited and read (base names of the files the session edited or wrote,
// and read), commands (the first line of each Bash command, first 40
// characters), code (code spans of 4–80 characters in assistant text), last
// (the last assistant text, first 200 characters) and needed (the tokens of
// the first 40 main-thread tool calls after the compaction that occur
// before it; see [Tokens]). A fact is found when its text occurs in the
// document, case-sensitive, with the document's backslashes removed; a
// needed path under the project folder may also occur project-relative.
// [Extract] takes the facts, [Count] looks for them, [Measure] does both
// for one compaction, and [Report] writes the pooled table.
//
// What it must not do: change what it measures. It reads the transcripts
// in place and never writes beside them; it imports render only to render
// bottles (render.Render with the default budget and no database) and
// host/claudecode/transcript only to classify prompts and merge assistant text as
// the bottle's reader does. The extraction is pinned by a golden
// (testdata/), so the measure cannot drift with the thing measured; the
// corpus is located by internal/measure/corpustest in tests only.
package fidelity
