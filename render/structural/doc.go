// Package structural owns which lines read as a bottle's structure and
// escapes message text so that none can forge one. The openings it
// protects are derived: the bottle's own (its headings, speaker lines,
// activity bullets), the working state's (package workstate), and those of
// the text around a bottle in the model's context (package pointer: the
// pointer, the PreCompact instruction, the tools' footers, the headings of
// expanded records), plus the headings of other parties' messages (the
// sender words of package transcript). A line is compared as spelled out
// (spelling.go): the many spellings that read or render the same as an
// opening are escaped too.
//
// [Escape] changes only structural lines, and only by a backslash Markdown
// hides ("---" becomes "- - -"); [At] is the check itself. It is pure
// string work: it reads no file, cleans no text (package render passes
// text through the privacy stripper and shown.Clean first) and writes
// nothing.
package structural
