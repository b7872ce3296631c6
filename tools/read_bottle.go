package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/bottles"
	"bottle/ident"
	"bottle/pointer"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultPageChars is read_bottle's page size: Claude Code warns above
// 10,000 tokens and caps a result at 25,000 (docs/format.md, "MCP names and
// results").
const DefaultPageChars = 25000

// Bounds of max_chars.
const (
	minPageChars = 200
	maxPageChars = 100000
)

const readBottleDesc = `Returns one page of a session's bottle — the session as markdown, messages verbatim — starting at a line offset, with a footer line naming the next offset or saying "end of bottle".

offset counts lines from 0: offset 0 is the first line, offset 412 starts at line 413. A page holds whole lines up to max_chars characters (default 25,000; the footer comes on top). A single line longer than max_chars is cut at a character boundary (never between a backslash and the character after it) and continues on the next page, which starts with "…(continued) ": the footer then gives an offset and a char_offset to pass back. Concatenating the pages in order, without their footers and that marker, gives the file exactly.

Each footer names the bottle's version in the next call's arguments: pass it back. When the bottle was re-rendered in between (its lines may have moved), the page says so and where the new render's turns start.

The first page (offset 0) renders the bottle first when it is missing or older than its transcript or claude-mem's database, so it is current; an existing file is left as it is until the turn ends (the hooks rewrite it between turns), so reading it beside this call is never disturbed. Later pages continue the render of the first without rendering again, so their offsets stay valid; start again at offset 0 for a fresh render.

Use it when the bottle is too long for one Read; otherwise the Read tool on the bottle's path does the same. Several sessions can run in one project: pass the session_id you were given.

Example: {"session_id": "3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f", "offset": 412}`

// ReadBottle returns the read_bottle tool: a page of a session's bottle,
// read only from bottles.Path(d.Env.BottlesDir(), id).
func ReadBottle(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("read_bottle",
		mcp.WithDescription(readBottleDesc),
		mcp.WithTitleAnnotation("Read session bottle"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("session_id", mcp.Description(sessionIDDesc), mcp.Pattern(ident.SessionPattern), mcp.MaxLength(128)),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description(
			"Line to start at, counted from 0 (the footer of the previous page names it).")),
		mcp.WithInteger("char_offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description(
			"Characters of the line at offset already read; only to continue a line longer than a page, "+
				"as the previous footer says.")),
		mcp.WithInteger("max_chars", mcp.Min(minPageChars), mcp.Max(maxPageChars), mcp.DefaultNumber(DefaultPageChars),
			mcp.Description("Most characters of bottle text on the page (default 25,000).")),
		mcp.WithString("version", mcp.MaxLength(64), mcp.Description(
			"The bottle's version the previous footer named; the page then says whether the bottle changed since.")),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "session_id", "offset", "char_offset", "max_chars", "version"); bad != nil {
			return bad, nil
		}
		id, err := stringArg(args, "session_id")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		var n [3]int
		for i, k := range []string{"offset", "char_offset", "max_chars"} {
			v, _, err := intArg(args, k)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			n[i] = v
		}
		offset, charOffset, maxChars := n[0], n[1], n[2]
		version := ""
		if v, ok := args["version"].(string); ok {
			version = v
		} else if args["version"] != nil {
			return mcp.NewToolResultError("version must be a string: pass back the one the previous footer named"), nil
		}
		if _, given, _ := intArg(args, "max_chars"); !given {
			maxChars = DefaultPageChars
		}
		switch {
		case offset < 0 || charOffset < 0:
			return mcp.NewToolResultError("offset and char_offset count from 0; start at offset 0"), nil
		case maxChars < minPageChars || maxChars > maxPageChars:
			return mcp.NewToolResultError(fmt.Sprintf("max_chars must be between %s and %s (default %s)",
				commas(minPageChars), commas(maxPageChars), commas(DefaultPageChars))), nil
		}
		s, bad := d.resolveSession(ctx, id, "")
		if bad != nil {
			return bad, nil
		}
		return d.readBottle(ctx, s, offset, charOffset, maxChars, version), nil
	}
}

// What a page's footer says of how current the bottle is.
const (
	statusRendered   = "rendered now"
	statusReRendered = "re-rendered now: its sources had changed (these pages are that render; the file is rewritten between turns)"
	statusOlder      = "older than its sources; read from offset 0 to re-render"
)

// readBottle renders the bottle of s when needed and returns one page of
// it; version is the one the previous page's footer named ("" for none).
func (d Deps) readBottle(ctx context.Context, s session, offset, charOffset, maxChars int, version string) *mcp.CallToolResult {
	path, err := bottles.Path(d.Env.BottlesDir(), s.id)
	if err != nil {
		return badID(s.id)
	}
	fi, err := os.Lstat(path)
	missing := errors.Is(err, fs.ErrNotExist)
	switch {
	case err != nil && !missing:
		return mcp.NewToolResultError(fmt.Sprintf("Cannot read the bottle of session %s: %v.", s, err))
	case !missing && !fi.Mode().IsRegular():
		return mcp.NewToolResultError(fmt.Sprintf("Refusing to read %s: not a regular file. "+
			"Call render_bottle to write the bottle of session %s again.", path, s.id))
	}
	var (
		status string
		data   []byte
	)
	first := offset == 0 && charOffset == 0
	if !first {
		// A later page continues the render its first page was cut from.
		data = d.Renders.get(s.id, version)
	}
	switch {
	case data != nil:
	case missing:
		// A new file disturbs no read of an old one.
		if _, _, bad := d.renderAndWrite(ctx, s, 0, false); bad != nil {
			return bad
		}
		status = statusRendered
	case !d.sourcesNewer(fi.ModTime(), s.transcript):
	case !first:
		status = statusOlder
	default:
		// Rendered, not written: see [Renders].
		res, bad := d.render(ctx, s, 0, false)
		if bad != nil {
			status = "could not re-render (" + oneLine(resultText(bad)) + "); showing the previous bottle"
			break
		}
		data = res.Markdown
		status = statusReRendered
	}
	if data == nil {
		if data, err = os.ReadFile(path); err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("Cannot read the bottle of session %s: %v.", s, err))
		}
	}
	cur := bottleVersion(data)
	if status == statusReRendered {
		d.Renders.keep(s.id, cur, data)
	}
	changed := ""
	if version != "" && version != cur {
		changed = changedNotice(data, version, cur, offset)
	}
	p, msg := pageOf(data, offset, charOffset, maxChars)
	if msg != "" {
		if changed != "" {
			msg = "the bottle was re-rendered since the previous page (version " + version + ", now " + cur + "); " + msg
		}
		return mcp.NewToolResultError(fmt.Sprintf("%s. Bottle %s of session %s.", msg, path, s))
	}
	p.version = cur
	return mcp.NewToolResultText(changed + p.body() + "\n" + p.footer(path, s, status))
}

// bottleVersion names the bytes of a bottle: their length and CRC-32C,
// which tells two renders apart at memory speed.
func bottleVersion(data []byte) string {
	return strconv.Itoa(len(data)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(data, castagnoli)), 16)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// changedNotice is the line a page starts with when the bottle is not the
// one the previous page was cut from: a render in between (the Stop hook
// re-renders after every turn) may have folded or moved lines, so the page
// does not continue the previous one. It names where the new render's
// turns start: the line after each "---" separator (a message's own "---"
// is escaped, so these are the bottle's).
func changedNotice(data []byte, was, now string, offset int) string {
	var starts []int
	line, sep := 0, false
	for l := range bytes.Lines(data) {
		l = bytes.TrimRight(l, "\r\n")
		switch {
		case string(l) == "---":
			sep = true
		case sep && len(l) > 0:
			starts = append(starts, line)
			sep = false
		}
		line++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sre-rendered since your previous page (version %s, now %s): its lines may have moved, so this page does not continue that one", pointer.BottleFooter, was, now)
	if len(starts) == 0 {
		b.WriteString("; read it again from offset 0]\n")
		return b.String()
	}
	at := starts[0]
	for _, st := range starts {
		if st <= offset {
			at = st
		}
	}
	fmt.Fprintf(&b, ". The new render's %d turns start at offset %d (the first), %d (the last)", len(starts), starts[0], starts[len(starts)-1])
	if offset > starts[0] {
		fmt.Fprintf(&b, " and %d (the one holding offset %d)", at, offset)
	}
	b.WriteString(": read on from the turn you need]\n")
	return b.String()
}

// sourcesNewer reports whether the transcript or claude-mem's database
// (its main file or its write-ahead log, where recent writes land) changed
// after t.
func (d Deps) sourcesNewer(t time.Time, transcript string) bool {
	db := d.Env.DBPath()
	for _, p := range []string{transcript, db, db + "-wal"} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(t) {
			return true
		}
	}
	return false
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// page is one page of a bottle.
type page struct {
	text string // bytes of the file, unchanged
	// lines is the file's line count; first and last are the 0-based lines
	// the page starts and ends in; startChar is the character of the first
	// line it starts at.
	lines, first, last, startChar int
	// next and nextChar are where the next page starts; next is -1 at the end.
	next, nextChar int
	// version is the bottle's ([bottleVersion]), named in the footer's
	// next arguments.
	version string
}

// continued starts a page that starts inside a line: what follows is the
// rest of a line, not the start of one, however it reads. It is not a
// structural opening in any spelling.
const continued = "…(continued) "

// body is the page as shown: its text, after [continued] when it starts
// inside a line.
func (p page) body() string {
	if p.startChar > 0 {
		return continued + p.text
	}
	return p.text
}

// pageOf cuts the page of data that starts at line offset (0-based) and
// character charOffset of that line and holds at most maxChars characters
// (runes; a byte of invalid UTF-8 counts as one): whole lines, unless the
// first line alone is longer, which is then cut at a character boundary,
// never between an escaping backslash and the character after it (the
// page then holds one character less, or, when it would hold the
// backslash alone, one more). msg explains an offset outside the file.
func pageOf(data []byte, offset, charOffset, maxChars int) (p page, msg string) {
	p.lines = bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		p.lines++
	}
	if p.lines == 0 && offset == 0 && charOffset == 0 {
		return page{next: -1}, ""
	}
	if p.lines == 0 {
		return p, "the bottle is empty; read it from offset 0"
	}
	if offset >= p.lines {
		return p, fmt.Sprintf("offset %d is past the end: the bottle has %s lines (offsets 0 to %d)",
			offset, commas(p.lines), p.lines-1)
	}
	// Find the start of line offset.
	pos := 0
	for range offset {
		pos += bytes.IndexByte(data[pos:], '\n') + 1
	}
	line := data[pos:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	skip := runeBytes(line, charOffset)
	if skip < 0 || skip >= len(line) {
		return p, fmt.Sprintf("char_offset %d is past the end of line %d (offset %d), which has %d characters; "+
			"use char_offset 0 or the one the previous footer named", charOffset, offset+1, offset, utf8.RuneCount(bytes.TrimSuffix(line, []byte("\n"))))
	}
	pos += skip
	start := pos
	p.first, p.startChar, p.next = offset, charOffset, -1
	left := maxChars
	for l := offset; l < p.lines; l++ {
		rest := data[pos:]
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i+1]
		}
		n := utf8.RuneCount(rest)
		if n <= left {
			left -= n
			pos += len(rest)
			p.last = l
			continue
		}
		if pos == start { // the first line alone is too long: cut it
			cut, take := runeBytes(rest, left), left
			if backslashesBefore(data, pos+cut)%2 == 1 {
				// Keep an escape with what it escapes (a backslash
				// after an even run of them escapes the next).
				if take > 1 {
					cut, take = cut-1, take-1
				} else {
					_, size := utf8.DecodeRune(rest[cut:])
					cut, take = cut+size, take+1
				}
			}
			pos += cut
			p.last = l
			if cut == len(rest) {
				// The escaped character ended the line, which went
				// along whole.
				if l+1 < p.lines {
					p.next = l + 1
				}
				break
			}
			p.next = l
			p.nextChar = take
			if l == offset {
				p.nextChar += charOffset
			}
			break
		}
		p.next = l
		break
	}
	p.text = string(data[start:pos])
	return p, ""
}

// backslashesBefore counts the backslashes that end data[:i].
func backslashesBefore(data []byte, i int) int {
	n := 0
	for i-n > 0 && data[i-n-1] == '\\' {
		n++
	}
	return n
}

// runeBytes is the byte length of the first n runes of b (-1 when b has
// fewer than n).
func runeBytes(b []byte, n int) int {
	i := 0
	for ; n > 0; n-- {
		if i >= len(b) {
			return -1
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i
}

// footer is the line after the page text.
func (p page) footer(path string, s session, status string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s · session %s", pointer.BottleFooter, path, s)
	if status != "" {
		b.WriteString(" · " + status)
	}
	switch {
	case p.lines == 0:
		b.WriteString(" · empty")
	case p.startChar > 0:
		fmt.Fprintf(&b, " · lines %s (from character %s)–%s of %s", commas(p.first+1), commas(p.startChar),
			commas(p.last+1), commas(p.lines))
	default:
		fmt.Fprintf(&b, " · lines %s–%s of %s", commas(p.first+1), commas(p.last+1), commas(p.lines))
	}
	switch {
	case p.next < 0:
		b.WriteString(" · end of bottle]")
	case p.nextChar > 0:
		fmt.Fprintf(&b, " · line %s is longer than a page and continues: next read_bottle %s]",
			commas(p.next+1), argsJSON(s.id, p.next, p.nextChar, p.version))
	default:
		fmt.Fprintf(&b, " · more: next read_bottle %s]", argsJSON(s.id, p.next, 0, p.version))
	}
	// One line, whatever a path holds.
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(b.String())
}

// argsJSON is a read_bottle argument object.
func argsJSON(id string, offset, charOffset int, version string) string {
	s := `{"session_id":` + strconv.Quote(id)
	if offset > 0 || charOffset > 0 {
		s += `,"offset":` + strconv.Itoa(offset)
	}
	if charOffset > 0 {
		s += `,"char_offset":` + strconv.Itoa(charOffset)
	}
	if version != "" {
		s += `,"version":` + strconv.Quote(version)
	}
	return s + "}"
}
