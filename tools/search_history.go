package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/claudemem"
	"bottle/ident"
	"bottle/locate"
	"bottle/pointer"
	"bottle/search"
)

const searchHistoryDesc = `Searches the whole record of a session, or of every session of the project, for words: the user's prompts and mid-turn words, your replies, every tool call's input and result (verbatim, not digests), and claude-mem's observations and session summaries. Use it after a compaction to find one exact thing — an error text, a path a search found, what the user said about X — instead of reading the whole bottle.

query: words that must all occur (any case), "quoted phrases", -word to exclude. Every character is literal (no regular expressions, no wildcards). Private text is never searched or shown.

scope: "session" (default: session_id, else the current session), "project" (every session of this project, transcripts and claude-mem-only sessions) or "all" (every project). kinds: any of prompt, assistant, tool, observation, summary. file: only tool calls whose path input is that file (relative or absolute, inside the project).

Each hit is one line: the [#id] to expand (t17 a tool call, u3 the user's words of turn 3, a3 your reply, 102401 an observation, s12 a summary), the session (project and all scope), time, kind and a snippet with the match between « and ». Hits are ranked best first (BM25), ties newest first; the footer names the next offset. Expand a hit with expand_observation and its session_id.

Example: {"query": "\"go test\" -flaky", "scope": "project", "kinds": ["tool"], "limit": 10}`

// SearchHistory returns the search_history tool: ranked hits over the
// privacy-stripped record of one session, the project or every project.
func SearchHistory(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	kindNames := make([]string, len(search.Kinds))
	for i, k := range search.Kinds {
		kindNames[i] = string(k)
	}
	tool := mcp.NewTool("search_history",
		mcp.WithDescription(searchHistoryDesc),
		mcp.WithTitleAnnotation("Search session history"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(search.MaxQueryChars), mcp.Description(
			`Words that must all occur (case-insensitive), "quoted phrases", -word to exclude; every character is literal.`)),
		mcp.WithString("session_id", mcp.Description(sessionIDDesc+" Only for scope session."), mcp.Pattern(ident.SessionPattern), mcp.MaxLength(128)),
		mcp.WithString("scope", mcp.Enum("session", "project", "all"), mcp.DefaultString("session"), mcp.Description(
			`"session" (default), "project" (every session of this project) or "all" (every project).`)),
		mcp.WithArray("kinds", mcp.WithStringEnumItems(kindNames), mcp.Description(
			"Only these kinds of record (default: all): prompt (the user's words), assistant (your replies), tool (calls: input and result), "+
				"observation and summary (claude-mem's).")),
		mcp.WithString("file", mcp.MaxLength(4096), mcp.Description(
			"Only tool calls whose path input is this file: relative to the project (it matches the end of a path) or absolute inside it.")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(search.MaxLimit), mcp.DefaultNumber(search.DefaultLimit),
			mcp.Description("Most hits on the page (default 20, at most 200).")),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0), mcp.Description(
			"Hits to skip (the footer of the previous page names the next offset).")),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "query", "session_id", "scope", "kinds", "file", "limit", "offset"); bad != nil {
			return bad, nil
		}
		var sa searchArgs
		if msg := sa.read(args, d.Cwd); msg != "" {
			return mcp.NewToolResultError(msg), nil
		}
		return d.searchHistory(ctx, sa), nil
	}
}

// searchArgs are search_history's arguments, checked.
type searchArgs struct {
	raw, id, scope, file string
	q                    search.Query
	kinds                []search.Kind
	limit, offset        int
}

// read checks the arguments; msg says what is wrong and what to do.
func (a *searchArgs) read(args map[string]any, cwd string) (msg string) {
	var err error
	if v, ok := args["query"].(string); ok {
		a.raw = v // not trimmed: a phrase may hold spaces
	} else if args["query"] != nil {
		return "query must be a string of words to look for, e.g. {\"query\": \"go test\"}"
	}
	if a.q, err = search.Parse(a.raw); err != nil {
		return err.Error()
	}
	if a.id, err = stringArg(args, "session_id"); err != nil {
		return err.Error()
	}
	if a.id != "" && !ident.ValidSession(a.id) {
		return resultText(badID(a.id))
	}
	if a.scope, err = stringArg(args, "scope"); err != nil {
		return err.Error()
	}
	switch a.scope = strings.ToLower(a.scope); a.scope {
	case "":
		a.scope = "session"
	case "session", "project", "all":
	default:
		return fmt.Sprintf("unknown scope %q: use \"session\" (default), \"project\" or \"all\"", cut(a.scope, 40))
	}
	if a.id != "" && a.scope != "session" {
		return fmt.Sprintf("session_id names one session, but scope is %q: omit session_id, or use scope \"session\"", a.scope)
	}
	if a.kinds, msg = kindsArg(args["kinds"]); msg != "" {
		return msg
	}
	if a.file, err = stringArg(args, "file"); err != nil {
		return err.Error()
	}
	if a.file != "" {
		if msg := checkFile(a.file, cwd); msg != "" {
			return msg
		}
	}
	limit, given, err := intArg(args, "limit")
	switch {
	case err != nil:
		return err.Error()
	case !given:
		limit = search.DefaultLimit
	case limit < 1 || limit > search.MaxLimit:
		return fmt.Sprintf("limit must be between 1 and %d (default %d); page with offset for more", search.MaxLimit, search.DefaultLimit)
	}
	a.limit = limit
	if a.offset, _, err = intArg(args, "offset"); err != nil {
		return err.Error()
	}
	if a.offset < 0 {
		return "offset counts hits from 0; start at offset 0"
	}
	return ""
}

// kindsArg reads kinds: a list of kind names, or one string of them
// separated by commas or spaces.
func kindsArg(v any) ([]search.Kind, string) {
	var names []string
	switch x := v.(type) {
	case nil:
		return nil, ""
	case string:
		names = strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ' ' })
	case []any:
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Sprintf("kinds must be a list of kind names, not %s", jsonText(it))
			}
			names = append(names, s)
		}
	default:
		return nil, fmt.Sprintf("kinds must be a list of kind names, not %s", jsonType(v))
	}
	var out []search.Kind
	for _, n := range names {
		k, ok := search.ParseKind(n)
		if !ok {
			return nil, fmt.Sprintf("unknown kind %q: kinds are %s", cut(n, 40), kindList())
		}
		out = append(out, k)
	}
	return out, ""
}

func kindList() string {
	var s []string
	for _, k := range search.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// checkFile refuses a file filter outside the project at cwd.
func checkFile(file, cwd string) string {
	if strings.ContainsRune(file, 0) {
		return "file must be a path, without NUL bytes"
	}
	clean := filepath.Clean(file)
	if !filepath.IsAbs(clean) {
		if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return fmt.Sprintf("file %q is outside the project %s: name a file inside it, relative to it or absolute", cut(file, 200), cwd)
		}
		return ""
	}
	if cwd == "" || (clean != cwd && !inside(cwd, clean)) {
		return fmt.Sprintf("file %q is outside the project %s: name a file inside it, relative to it or absolute", cut(file, 200), cwd)
	}
	return ""
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:runeCut(s, n)] + "…"
	}
	return s
}

// searchHistory runs a checked search and lays out the page.
func (d Deps) searchHistory(ctx context.Context, a searchArgs) *mcp.CallToolResult {
	o := search.Options{Query: a.q, Kinds: a.kinds, File: a.file, Limit: a.limit, Offset: a.offset, DBPath: d.Env.DBPath(),
		Own: search.Own{BottlesDir: d.Env.BottlesDir(), Tools: pointer.AllToolNames()}, Store: d.Store}
	var notes []string
	if o.DBPath != "" {
		if _, err := os.Stat(o.DBPath); err == nil {
			db, release, err := d.openDB(ctx, o.DBPath)
			if err != nil {
				notes = append(notes, fmt.Sprintf("claude-mem's database %s could not be opened (%v): its observations and summaries were not searched", o.DBPath, err))
			} else {
				defer release()
				o.DB = db
			}
		}
	}
	var where string
	switch a.scope {
	case "session":
		s, bad := d.resolveSession(ctx, a.id, "")
		if bad != nil {
			return bad
		}
		if s.transcript == "" && len(notes) == 0 && !d.stored(ctx, o.DB, s.id) {
			return mcp.NewToolResultError(fmt.Sprintf(
				"Nothing to search for session %s: no transcript under %s and no records in claude-mem's database (%s).\n"+
					"Check the session id; omit session_id for the current session, or search with scope \"project\".%s",
				s, d.Env.ProjectsDir(), d.Env.DBPath(), d.knownSessions(ctx)))
		}
		o.Sources = []search.Source{{ID: s.id, Transcript: s.transcript, Read: locate.ReaderFor(s.transcript)}}
		where = "session " + s.String()
	default:
		where = "every project"
		if a.scope == "project" {
			where = "every session of the project " + d.Cwd
		}
		c := confiner{env: d.Env}
		for _, src := range d.Index.ScopeSources(ctx, d.Env, o.DB, o.DBPath, a.scope, d.Cwd) {
			if src.Transcript != "" {
				p, msg := c.listed(src)
				if msg != "" {
					notes = append(notes, msg)
					continue
				}
				src.Transcript = p
			}
			o.Sources = append(o.Sources, src)
		}
	}
	res, err := search.Search(ctx, d.Index, o)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return mcp.NewToolResultError("The search was cancelled: " + err.Error())
		}
		return mcp.NewToolResultError("The search failed: " + err.Error())
	}
	return mcp.NewToolResultText(searchReport(a, where, res, append(notes, res.Notes...), d.loc()))
}

// stored reports whether claude-mem's database db (nil: none) holds
// session id. A database that cannot say counts as holding it: the search
// then reports what it could not read.
func (d Deps) stored(ctx context.Context, db *claudemem.DB, id string) bool {
	if db == nil {
		return false
	}
	_, err := db.MemorySessionID(ctx, id)
	return !errors.Is(err, claudemem.ErrNoSession)
}

// searchReport is the page: a heading line, one line per hit, notes, and
// the footer.
func searchReport(a searchArgs, where string, res *search.Result, notes []string, loc *time.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search %s in %s: %s of %s records matched.\n", strconv.Quote(oneLine(a.q.String())), oneLine(where),
		commas(res.Total), commas(res.Records))
	shown, size := 0, b.Len()
	for _, h := range res.Hits {
		line := search.Line(h, a.scope != "session", loc) + "\n"
		if size+len(line) > DefaultPageChars-2000 && shown > 0 {
			break
		}
		b.WriteString(line)
		size += len(line)
		shown++
	}
	writeNotes(&b, notes)
	b.WriteString(searchFooter(a, res, shown))
	return b.String()
}

// maxNotes is how many notes a result shows.
const maxNotes = 5

// writeNotes writes the first maxNotes notes, a line each, and how many
// more there were.
func writeNotes(b *strings.Builder, notes []string) {
	for i, n := range notes {
		if i == maxNotes {
			fmt.Fprintf(b, "note: … and %d more\n", len(notes)-maxNotes)
			break
		}
		fmt.Fprintf(b, "note: %s\n", cut(oneLine(n), 400))
	}
}

// searchFooter is the last line: the hits shown, the next page's arguments
// and how to expand a hit.
func searchFooter(a searchArgs, res *search.Result, shown int) string {
	var b strings.Builder
	b.WriteString(pointer.SearchFooter)
	switch {
	case res.Total == 0:
		b.WriteString("· no hits: try fewer or other words, another scope or fewer filters")
	case shown == 0:
		fmt.Fprintf(&b, "· offset %s is past the last hit (%s hits); start at offset 0", commas(a.offset), commas(res.Total))
	default:
		fmt.Fprintf(&b, "· hits %s–%s of %s", commas(a.offset+1), commas(a.offset+shown), commas(res.Total))
		if next := a.offset + shown; next < res.Total {
			fmt.Fprintf(&b, " · more: next search_history with \"offset\": %d and the same arguments", next)
		} else {
			b.WriteString(" · end of hits")
		}
		h := res.Hits[0]
		fmt.Fprintf(&b, " · expand a hit: expand_observation {\"ids\":[%s],\"session_id\":%s}", strconv.Quote(h.ID), strconv.Quote(h.Session))
	}
	b.WriteString("]\n")
	return strings.NewReplacer("\r", " ").Replace(b.String())
}
