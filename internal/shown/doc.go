// Package shown owns how source text is shown on bottle's output lines:
// [Clean] (private blocks stripped, invalid UTF-8 and NUL bytes replaced)
// and [Line] (cleaned, flattened to one line, bounded). The bottle, the
// working state and the pointer all show source text this way.
//
// It reads and writes nothing; it may import privacy.
package shown
