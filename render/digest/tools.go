package digest

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	"bottle/privacy"
)

// description is what a tool's describer reads from a call.
type description struct {
	// salient is the salient input, bounded to salientMax; a describer
	// whose salient part has parts (kind, subject, rng, scope, note)
	// leaves it to describe, which composes it.
	salient string
	kind    Kind
	subject string // the path, command or pattern
	rng     string // a path's line range, as the input asks for it
	note    string // what follows the rest: " (12 lines)", " (*.go)"
	success string // the outcome of a normal (not error, not interrupted) result
	// seenRng stands for rng in a Line with a normal result: the lines a
	// Read returned.
	seenRng string
	// paths are the first distinct paths a normal result names (Grep,
	// Glob), shown as showPath does, of total matched files.
	paths  [maxPaths]string
	npaths int
	total  int
	// compactSubject, when set, is a shorter subject for a line that
	// cannot show all of its paths: a shorter pattern, the folder searched
	// (scope) left out when every path shows it.
	compactSubject string
	compact        bool
	scope          string
	// userWords marks a success that holds the user's words (the answers
	// to AskUserQuestion): it may take an error line's room.
	userWords bool
	// detail, when set, is the call's detail in at most room runes, its
	// label included ("names: a, b"; "" when nothing fits): Line.Detail.
	detail func(room int) string
}

// shownScope is the folder searched as the salient part shows it: not
// the working directory itself.
func (d *description) shownScope() string {
	if d.scope == "." {
		return ""
	}
	return d.scope
}

// describer reads one tool's call. ok reports whether c has a normal
// result to read; describers look at the result and c.Structured only then.
type describer func(c *Call, cwd string, ok bool) description

// describers maps a tool name to its describer: every family's, each in
// the file of its family. Tools not listed, MCP tools included, use
// describeGeneric.
var describers = union(fileTools, shellTools, searchTools, agentTools, webTools, interactionTools, otherTools)

// union is one map of the families' describers; a tool listed twice is a
// mistake TestDescribersOnce catches.
func union(families ...map[string]describer) map[string]describer {
	all := map[string]describer{}
	for _, f := range families {
		maps.Copy(all, f)
	}
	return all
}

func describe(c *Call, cwd string, withResult bool) description {
	ok := withResult && c.HasResult && !c.IsError
	f := describers[c.Name]
	if f == nil {
		f = describeGeneric
	}
	d := f(c, cwd, ok)
	if d.subject == "" {
		d.kind = KindText
	}
	if d.salient == "" {
		d.salient = compose(d.subject, d.rng, d.shownScope(), d.note)
	}
	d.salient = bound(strings.TrimSpace(d.salient), salientMax)
	return d
}

// decode fills v from a JSON text that may be malformed, such as
// c.Structured, leaving fields of a wrong type or a malformed input at
// their zero values. Inputs go through decodeInput.
func decode(in json.RawMessage, v any) {
	if len(in) > 0 {
		_ = json.Unmarshal(in, v)
	}
}

// head is the start of a result, for reading markers and first lines.
func head(c *Call) string {
	return strings.TrimLeft(c.resultPrefix(512), " \t\r\n")
}

func describeNothing(*Call, string, bool) description { return description{} }

// showPath is a path for display: stripped, relative to cwd when inside it,
// and cut from the left when long so the file name stays.
func showPath(p, cwd string) string {
	p = Rel(privacy.Strip(p), cwd)
	return boundTail(flatten(prefix(p, 4096)), pathMax)
}

// Rel makes p relative to cwd when p is cwd or inside it, as digests show
// paths. Either may use '/' or '\' separators; a cwd with a drive letter
// compares case-insensitively.
func Rel(p, cwd string) string {
	dir := trimSeparators(cwd)
	if dir == "" || len(p) < len(dir) {
		return p
	}
	// Most paths spell cwd as cwd does; others may differ in separators
	// and, with a drive letter, in case.
	if !strings.HasPrefix(p, dir) {
		windows := len(dir) >= 2 && dir[1] == ':'
		for i := 0; i < len(dir); i++ {
			a, b := p[i], dir[i]
			if a == '\\' {
				a = '/'
			}
			if b == '\\' {
				b = '/'
			}
			if windows {
				a, b = lowerASCII(a), lowerASCII(b)
			}
			if a != b {
				return p
			}
		}
	}
	rest := p[len(dir):]
	if rest != "" && rest[0] != '/' && rest[0] != '\\' {
		return p
	}
	if rest = strings.TrimLeft(rest, `/\`); rest == "" {
		return "."
	}
	return rest
}

// trimSeparators is dir without its trailing slashes and backslashes.
func trimSeparators(dir string) string {
	for dir != "" && (dir[len(dir)-1] == '/' || dir[len(dir)-1] == '\\') {
		dir = dir[:len(dir)-1]
	}
	return dir
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return `"` + s + `"`
}

func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
