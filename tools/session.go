package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"bottle/ident"
	"bottle/locate"
	"bottle/search"

	"github.com/mark3labs/mcp-go/mcp"
)

// session is the session a call works on, and how it was chosen.
type session struct {
	id string
	// transcript is the confined, symlink-resolved transcript path; "" when
	// none was found (a session claude-mem alone holds, or an unknown one).
	transcript string
	// how says how the session was chosen, for the result text.
	how string
}

func (s session) String() string {
	if s.id == "" {
		return fmt.Sprintf("(%s)", s.how)
	}
	return fmt.Sprintf("%s (%s)", s.id, s.how)
}

// resolveSession picks the session of a call: the transcript_path when given
// (confined to the projects folder), else session_id, else the current
// session of d.Cwd. A non-nil result is the tool error to return.
func (d Deps) resolveSession(ctx context.Context, id, transcript string) (session, *mcp.CallToolResult) {
	if id != "" && !ident.ValidSession(id) {
		return session{}, badID(id)
	}
	if transcript != "" {
		p, msg := confineTranscript(d.Env, transcript)
		if msg != "" {
			return session{}, mcp.NewToolResultError(msg)
		}
		return session{id: id, transcript: p, how: "transcript " + p}, nil
	}
	if id != "" {
		s := session{id: id, how: "given"}
		p, err := locate.Transcript(d.Env, id)
		switch {
		case err == nil:
			cp, msg := confineTranscript(d.Env, p)
			if msg != "" {
				return session{}, mcp.NewToolResultError(msg)
			}
			s.transcript = cp
		case !errors.Is(err, locate.ErrNoTranscript):
			return session{}, mcp.NewToolResultError(fmt.Sprintf("find the transcript of session %s: %v", id, err))
		}
		return s, nil
	}
	cid, p, how, err := d.current(ctx)
	if err != nil {
		return session{}, mcp.NewToolResultError(fmt.Sprintf(
			"No session_id given and no current session for %s: %v.\n"+
				"Pass session_id (the pointer that sent you here names it).%s", d.Cwd, err, d.knownSessions(ctx)))
	}
	s := session{id: cid, how: how}
	if p == "" {
		return s, nil
	}
	cp, msg := confineTranscript(d.Env, p)
	if msg != "" {
		return session{}, mcp.NewToolResultError(msg)
	}
	s.transcript = cp
	return s, nil
}

// current is the session a call means when it names none, its transcript
// ("" when only claude-mem holds it) and how it was chosen: the newest
// transcript of the server's folder, or for a server Codex started
// (Deps.Host) the newest Codex thread of it first.
func (d Deps) current(ctx context.Context) (id, transcript, how string, err error) {
	find := locate.Current
	if d.Host.Name != "" {
		find = locate.CurrentCodex
	}
	id, transcript, err = find(ctx, d.Env, d.Cwd)
	switch {
	case err != nil:
		return "", "", "", err
	case transcript == "":
		how = "current session: the newest claude-mem session of project " + locate.ClaudeMemProject(d.Cwd)
	case locate.IsCodex(transcript):
		how = "current session: the newest Codex thread of " + d.Cwd
	default:
		how = "current session: the newest transcript of " + d.Cwd
		if d.Host.Name != "" {
			how += " (Claude Code's: no Codex thread there)"
		}
	}
	return id, transcript, how, nil
}

// confineTranscript resolves p (absolute, or relative to the projects folder)
// with symlinks and returns it when it is a regular .jsonl file inside the
// symlink-resolved projects folder; otherwise msg says why it is refused.
func confineTranscript(env locate.Env, p string) (resolved, msg string) {
	projects, folder := env.ProjectsDir(), "Claude Code's projects folder"
	if locate.IsCodex(p) && filepath.IsAbs(p) {
		// A Codex rollout, confined to Codex's home the same way.
		projects, folder = locate.CodexHome(env), "Codex's home folder"
	} else if !strings.HasSuffix(p, ".jsonl") {
		return "", fmt.Sprintf("transcript_path %q refused: a transcript is a .jsonl file under %s", p, projects)
	}
	root, err := filepath.EvalSymlinks(projects)
	if err != nil {
		return "", fmt.Sprintf("transcript_path refused: %s %s is missing (%v)", folder, projects, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(projects, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Sprintf("transcript_path %q not found: omit it to use the current session, or pass session_id", p)
		}
		return "", fmt.Sprintf("transcript_path %q: %v", p, err)
	}
	if !inside(root, real) {
		return "", fmt.Sprintf("transcript_path %q refused: it resolves outside %s %s; "+
			"tools read only transcripts under it", p, folder, projects)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Sprintf("transcript_path %q: %v", p, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Sprintf("transcript_path %q refused: not a regular file", p)
	}
	return real, ""
}

// confiner confines the transcripts of a scope's listing: each folder is
// resolved once, not each transcript's whole path (some fifteen system
// calls a transcript, a thousand transcripts a search).
type confiner struct {
	env   locate.Env
	root  string
	dirs  map[string]string // a folder -> its resolved path
	ready bool
}

// listed confines src's transcript, which the scope's listing found. A
// Claude Code transcript (src.Read nil) was listed as a regular file
// directly in its folder, never a symlink (locate.AllSessions and
// locate.SessionsWith): its resolved path is its folder's and its name.
// Another one is confined as a path of its own.
func (c *confiner) listed(src search.Source) (resolved, msg string) {
	p := src.Transcript
	if src.Read != nil || !filepath.IsAbs(p) || !strings.HasSuffix(p, ".jsonl") {
		return confineTranscript(c.env, p)
	}
	if !c.ready {
		c.ready, c.dirs = true, map[string]string{}
		c.root, _ = filepath.EvalSymlinks(c.env.ProjectsDir())
	}
	dir := filepath.Dir(p)
	real, ok := c.dirs[dir]
	if !ok {
		real, _ = filepath.EvalSymlinks(dir)
		c.dirs[dir] = real
	}
	if c.root == "" || real == "" {
		return confineTranscript(c.env, p) // says why
	}
	if r := filepath.Join(real, filepath.Base(p)); inside(c.root, r) {
		return r, ""
	}
	return "", fmt.Sprintf("transcript_path %q refused: it resolves outside Claude Code's projects folder %s; "+
		"tools read only transcripts under it", p, c.env.ProjectsDir())
}

// inside reports whether path lies strictly inside dir (both cleaned and
// absolute).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func badID(id string) *mcp.CallToolResult {
	if len(id) > 80 {
		id = id[:80] + "…"
	}
	return mcp.NewToolResultError(fmt.Sprintf("invalid session_id %q: a session id is 1–128 letters, digits, '.', '_' or '-' "+
		"(a UUID such as 3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f), with no \"..\". Omit session_id to use the current session.", id))
}

// maxKnown is how many sessions an error message lists.
const maxKnown = 10

// knownSessions lists the project's sessions for an error message, newest
// first, starting with a newline; "" when there are none.
func (d Deps) knownSessions(ctx context.Context) string {
	refs := locate.Sessions(ctx, d.Env, d.Cwd)
	if len(refs) == 0 {
		return fmt.Sprintf("\nNo sessions of this project (%s) were found.", d.Cwd)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nKnown sessions of this project (%s), newest first:", d.Cwd)
	for i, r := range refs {
		if i == maxKnown {
			fmt.Fprintf(&b, "\n- … and %d more", len(refs)-maxKnown)
			break
		}
		// Last activity as list_sessions and hookbin list show it.
		when := r.LastActivity().In(d.loc()).Format("2006-01-02 15:04")
		switch {
		case r.Transcript != "" && r.Stored:
			fmt.Fprintf(&b, "\n- %s (transcript and claude-mem, last activity %s)", r.ID, when)
		case r.Transcript != "":
			fmt.Fprintf(&b, "\n- %s (transcript, last activity %s)", r.ID, when)
		default:
			fmt.Fprintf(&b, "\n- %s (claude-mem only, last activity %s)", r.ID, when)
		}
	}
	return b.String()
}

// stringArg returns the string argument key ("" when absent or null).
func stringArg(args map[string]any, key string) (string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, not %s", key, jsonType(v))
	}
	return strings.TrimSpace(s), nil
}

// intArg returns the integer argument key; present is false when it is
// absent or null. Integral numbers and decimal strings are accepted.
func intArg(args map[string]any, key string) (n int, present bool, err error) {
	v, ok := args[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		return x, true, nil
	case int64:
		f = float64(x)
	case json.Number:
		f, err = x.Float64()
	case string:
		f, err = strconv.ParseFloat(strings.TrimSpace(x), 64)
	default:
		err = errors.New("not a number")
	}
	// Up to 2^53: every integer a JSON number carries exactly.
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, true, fmt.Errorf("%s must be an integer, not %s", key, jsonText(v))
	}
	return int(f), true, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, int, int64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return jsonType(v)
	}
	return string(b)
}

// argsOf returns the call's arguments as an object; a non-object is an error.
func argsOf(req mcp.CallToolRequest) (map[string]any, *mcp.CallToolResult) {
	raw := req.Params.Arguments
	if raw == nil {
		return map[string]any{}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, mcp.NewToolResultError(fmt.Sprintf("arguments must be a JSON object, not %s", jsonType(raw)))
	}
	return m, nil
}

// unknownArgs names arguments the tool does not take.
func unknownArgs(args map[string]any, known ...string) *mcp.CallToolResult {
	var extra []string
	for k := range args {
		if !slices.Contains(known, k) {
			extra = append(extra, strconv.Quote(k))
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return mcp.NewToolResultError(fmt.Sprintf("unknown argument(s) %s; this tool takes %s",
		strings.Join(extra, ", "), strings.Join(known, ", ")))
}
