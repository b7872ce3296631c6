package render

import (
	"strings"

	"bottle/internal/shown"
	"bottle/render/structural"
)

// clean prepares any source text for output ([shown.Clean]).
func clean(s string) string { return shown.Clean(s) }

// Verbatim is how a message body appears in a bottle: cleaned, then escaped.
// Tests compare source text through it.
func Verbatim(s string) string { return structural.Escape(clean(s)) }

// oneLine flattens s to a single line of at most max runes, for list items
// and headers ([shown.Line]).
func oneLine(s string, max int) string { return shown.Line(s, max) }

// isBlank reports whether s is empty or only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
