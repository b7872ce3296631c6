// Package search finds text in the whole record of sessions: a transcript's
// genuine prompts, mid-turn words, assistant text, tool inputs and tool
// results, and claude-mem's observations and session summaries. The results
// of calls that read bottle's own record ([Own]: a Read of a bottle,
// bottle's tools) are left out: they are copies of the rest.
//
// Every record is stripped by privacy before it is matched, so a
// word that stands only inside a private block matches nothing and no
// snippet shows it; thinking, the compaction summary and injected meta text
// never become records (the transcript reader does not hand them out).
//
// A query is words that must all occur (case-insensitively), "quoted
// phrases" and -excluded words; every character is literal (see [Parse]).
// Hits are ranked by BM25 over the records searched, ties newest first,
// then by session and id, so pages of one query never overlap.
//
// [Index] keeps the records of small sources in memory and rebuilds them
// when a transcript or the database changes (size or modification time); a
// search without an index, or of a source too large to keep, streams the
// records instead. [Store] is the persistent index: each record's folded
// text, its set of byte trigrams and its words' counts (postings, which
// rank a word found in most records without reading them) in SQLite, kept
// up to date at every search and never authoritative. A transcript that
// only grew since the store read it (the same file, longer) is read from
// the resume point that read handed back (the start of its last turn),
// when its reader offers points, the records before it kept; else it keeps
// the records of the tool calls that read handed over with their results.
// A truncated or replaced one is read whole. A Store kept between searches
// holds its sources' stamps and record counts in memory until another
// process writes. A [Source]'s transcript is read by its
// host's reader (Claude Code's when it names none). The package reads
// sources read-only and does no MCP, no output and no logging: tools/ and
// hookbin/ lay out its results.
package search
