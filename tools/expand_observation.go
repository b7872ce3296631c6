package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/ident"
	"bottle/locate"
	"bottle/pointer"
	"bottle/render"
)

// maxIDs is how many ids one expand_observation call takes.
const maxIDs = 50

const expandObservationDesc = `Returns the full records behind [#id] lines of a bottle.

An observation id (102401 or #102401) expands to claude-mem's record: type, title, subtitle, narrative, facts, concepts, files read and modified, prompt number and time. A tool-call id (t17) expands to the call's input and result from the transcript (capped, with a note of the cut); a turn id expands to that turn's user words (u3) or assistant reply (a3), verbatim — this is how folded turns are read; a summary id (s12, from search_history) to claude-mem's generated session summary. Record text is indented by two spaces.

Only observations of the session are returned: ids of other sessions, unknown ids and malformed ids are named with the reason, and the records that were found are returned (partial success). Private text is removed. At most 50 ids per call; a result is kept under 25,000 characters, and ids left out for size are named so you can ask again.

Several sessions can run in one project: pass the session_id you were given.

Example: {"ids": ["#102401", "102405", "t17"], "session_id": "3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f"}`

// ExpandObservation returns the expand_observation tool: claude-mem's
// observation records for bottle ids, privacy-stripped.
func ExpandObservation(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("expand_observation",
		mcp.WithDescription(expandObservationDesc),
		mcp.WithTitleAnnotation("Expand bottle ids"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithArray("ids", mcp.Required(), mcp.MinItems(1), mcp.MaxItems(maxIDs),
			mcp.WithStringItems(mcp.Pattern(ident.Pattern)),
			mcp.Description(`Ids from the bottle's [#id] tags and folded lines: observations ("102401" or "#102401"), `+
				`tool calls ("t17": input and result), a turn's user words ("u3") or assistant reply ("a3"), verbatim, claude-mem summaries ("s12").`)),
		mcp.WithString("session_id", mcp.Description(sessionIDDesc), mcp.Pattern(ident.SessionPattern), mcp.MaxLength(128)),
		mcp.WithSchemaAdditionalProperties(false),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, bad := argsOf(req)
		if bad != nil {
			return bad, nil
		}
		if bad := unknownArgs(args, "ids", "session_id"); bad != nil {
			return bad, nil
		}
		ids, err := idsArg(args)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		id, err := stringArg(args, "session_id")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if id != "" && !ident.ValidSession(id) {
			return badID(id), nil
		}
		return d.expand(ctx, id, ids), nil
	}
}

// idsArg reads ids: an array of strings or numbers; a single string of ids
// separated by commas or spaces is accepted too.
func idsArg(args map[string]any) ([]string, error) {
	const usage = `ids must be a list of bottle ids, e.g. {"ids": ["#102401", "t17"]}`
	var raw []any
	switch v := args["ids"].(type) {
	case nil:
		return nil, errors.New("ids is required: " + usage)
	case []any:
		raw = v
	case string:
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
			raw = append(raw, f)
		}
	case float64:
		raw = []any{v}
	default:
		return nil, fmt.Errorf("%s, not %s", usage, jsonType(v))
	}
	var out []string
	for _, r := range raw {
		switch x := r.(type) {
		case string:
			out = append(out, strings.TrimSpace(x))
		case float64:
			out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
		default:
			return nil, fmt.Errorf("%s; %s is not an id", usage, jsonText(r))
		}
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("ids is empty: " + usage)
	case len(out) > maxIDs:
		return nil, fmt.Errorf("too many ids (%d): at most %d per call; split them over several calls", len(out), maxIDs)
	}
	return out, nil
}

// expansion collects the outcome of one call, in request order.
type expansion struct {
	records  []string // formatted records
	shown    []string // ids of records
	deferred []string // found but left out for size
	missing  []string // "#id: reason"
	size     int
}

func (d Deps) expand(ctx context.Context, sessionID string, ids []string) *mcp.CallToolResult {
	// Each id once, in the order given.
	seen := map[string]bool{}
	var unique []string
	for _, raw := range ids {
		_, key, _ := ident.Parse(raw)
		if key == "" {
			key = raw
		}
		if !seen[key] {
			seen[key] = true
			unique = append(unique, raw)
		}
	}

	// The session: the given one, else the current one; with neither, ids
	// are looked up across every session.
	s := session{id: sessionID, how: "given"}
	if s.id == "" {
		if cid, _, how, err := d.current(ctx); err == nil {
			s.id, s.how = cid, how
		} else {
			s.how = "no session given and no current session found: ids looked up in every session"
		}
	}
	var e expansion
	o := render.ExpandOptions{SessionID: s.id, DBPath: d.Env.DBPath(), Location: d.loc()}
	// Turn and tool ids read the transcript, confined to the projects
	// folder.
	if s.id != "" {
		if p, err := locate.Transcript(d.Env, s.id); err == nil {
			cp, msg := confineTranscript(d.Env, p)
			if msg != "" {
				var rest []string
				for _, raw := range unique {
					if kind, id, _ := ident.Parse(raw); kind == ident.Tool || kind == ident.User || kind == ident.Assistant {
						e.missing = append(e.missing, fmt.Sprintf("#%s: %s", id, msg))
						continue
					}
					rest = append(rest, raw)
				}
				unique = rest
			}
			o.TranscriptPath, o.Reader = cp, locate.ReaderFor(cp)
		}
	}
	if o.DBPath != "" {
		db, release, err := d.openDB(ctx, o.DBPath)
		if err == nil {
			defer release()
			o.DB = db
		}
		// Else Expand opens the path itself and says what is wrong.
	}
	exps, err := render.Expand(ctx, o, unique)
	if err != nil {
		for _, raw := range unique {
			e.missing = append(e.missing, fmt.Sprintf("%s: %v", shownID(raw), err))
		}
		return mcp.NewToolResultError(e.report(s))
	}
	for _, x := range exps {
		if !x.Found {
			e.missing = append(e.missing, fmt.Sprintf("%s: %s", shownIDOf(x), x.Missing))
			continue
		}
		var rec string
		if x.Kind == ident.Observation {
			// The expander's one layout of an observation: its first line
			// joins the heading.
			rec = pointer.ToolRecordHeading + x.ID + " · " + x.Text
		} else {
			what := map[ident.Kind]string{ident.Tool: "tool call", ident.User: "user words of turn",
				ident.Assistant: "assistant reply of turn", ident.Summary: "claude-mem session summary"}[x.Kind]
			// Indented like multi-line observation fields, so verbatim text
			// cannot read as another record's heading.
			rec = pointer.ToolRecordHeading + x.ID + " · " + what + "\n" + indent(strings.TrimRight(x.Text, "\n")) + "\n"
		}
		if e.size+len(rec) > DefaultPageChars && len(e.records) > 0 {
			e.deferred = append(e.deferred, "#"+x.ID)
			continue
		}
		if len(rec) > DefaultPageChars {
			rec = rec[:runeCut(rec, DefaultPageChars)] + "\n[cut at " + commas(DefaultPageChars) + " characters: run `hookbin expand " + x.ID + " --session " + s.id + "` for the rest]\n"
		}
		e.records = append(e.records, rec)
		e.shown = append(e.shown, "#"+x.ID)
		e.size += len(rec)
	}
	text := e.report(s)
	if len(e.records) == 0 {
		return mcp.NewToolResultError(text)
	}
	return mcp.NewToolResultText(text)
}

// shownIDOf is how a result names the id of x: "#t17", or the input
// quoted when it is not an id.
func shownIDOf(x render.Expansion) string {
	if x.Kind == ident.Invalid {
		return quoteID(x.ID)
	}
	return "#" + x.ID
}

// shownID is shownIDOf for an id as given.
func shownID(raw string) string {
	if kind, id, _ := ident.Parse(raw); kind != ident.Invalid {
		return "#" + id
	}
	return quoteID(raw)
}

// runeCut is the largest index ≤ n at a rune boundary of s.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// report is the result text.
func (e *expansion) report(s session) string {
	var b strings.Builder
	for _, r := range e.records {
		b.WriteString(r)
		b.WriteString("\n")
	}
	if len(e.records) > 0 {
		b.WriteString("---\n")
	}
	fmt.Fprintf(&b, "session: %s\n", s)
	if len(e.shown) > 0 {
		fmt.Fprintf(&b, "expanded: %s\n", strings.Join(e.shown, ", "))
	}
	if len(e.deferred) > 0 {
		fmt.Fprintf(&b, "left out to keep this result under %s characters: %s — call expand_observation again with them\n",
			commas(DefaultPageChars), strings.Join(e.deferred, ", "))
	}
	if len(e.missing) > 0 {
		b.WriteString("not found:\n")
		for _, m := range e.missing {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	return b.String()
}

func indent(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func quoteID(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
