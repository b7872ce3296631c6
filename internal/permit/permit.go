package permit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"bottle/host/claudecode/toolnames"
	"bottle/ident"
	"bottle/internal/folders"
	"bottle/internal/hookio"
	"bottle/internal/hooklog"
)

// The switches of the PreToolUse hook: the environment variable, and the
// plugin's userConfig option allow_bottle_reads as Claude Code passes it to
// the plugin's hooks.
const (
	Env       = "BOTTLE_ALLOW_READS"
	Option    = "allow_bottle_reads"
	OptionEnv = "CLAUDE_PLUGIN_OPTION_ALLOW_BOTTLE_READS"
)

// Deadline bounds the PreToolUse hook: Claude Code holds the tool
// call until it answers, on every Read.
const Deadline = time.Second

const usage = `usage: hookbin pre-tool-use < payload.json

A Claude Code hook (PreToolUse, matcher Read and bottle's MCP tools). It lets
the model read bottle's own record without a permission prompt: it answers
permissionDecision "allow" for a Read of a regular file inside the bottles
folder (symlinks and ".." resolved, a relative path against the payload's cwd)
and for bottle's MCP tools (` + "mcp__bottle__<tool>, mcp__plugin_bottle_bottle__<tool>" + `).
For every other call, and for a malformed payload, it prints nothing: Claude
Code's own permission rules decide. Off with ` + Env + `=0 or the
plugin option ` + Option + `=false.

It always exits 0, and logs to <claude-mem data>/logs/bottle.log only when it
fails (it runs on every Read).
`

// Call is the part of a PreToolUse payload the hook reads.
type Call struct {
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Parse decodes a PreToolUse payload.
func Parse(data []byte) (Call, error) {
	var c Call
	if len(bytes.TrimSpace(data)) == 0 {
		return c, errors.New("empty payload on stdin")
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, hookio.PayloadError(err)
	}
	if c.ToolName == "" {
		return c, errors.New("payload has no tool_name")
	}
	return c, nil
}

// ReadPath is the file a Read call names ("" when it names none).
func (c Call) ReadPath() string {
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(c.ToolInput, &in) != nil {
		return ""
	}
	return in.FilePath
}

// Hook runs the PreToolUse hook: the payload on stdin, the answer (or
// nothing) on stdout. It always returns nil: a hook must not fail Claude
// Code; failures go to the log. The decision runs on a goroutine of its own,
// abandoned at the deadline or when ctx ends, so that a process doing more
// than this hook (hookbin) returns on time.
func Hook(ctx context.Context, args []string, env folders.Env, stdin io.Reader, stdout io.Writer) error {
	if help(args, stdout) || Off(env) != "" {
		return nil
	}
	start := time.Now()
	// A closed stdout would otherwise kill the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()
	var sid string
	answer, finished, err := hookio.Bounded(ctx, func() ([]byte, error) {
		a, s, err := decide(env, stdin)
		sid = s
		return a, err
	})
	if !finished {
		err = fmt.Errorf("deadline exceeded (%v)", Deadline)
		if context.Cause(ctx) != context.DeadlineExceeded {
			err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
		}
		sid = "" // abandoned work may still write it
	}
	finish(env, start, sid, answer, err, stdout)
	return nil
}

// Run is [Hook] for a process that does nothing else, as the pretooluse
// binary: the decision runs on the calling goroutine and a timer calls exit
// at the deadline, so that no second goroutine, context or signal watcher
// has to start (each can cost a thread's start, on every Read). exit must
// end the process; Run returns after calling it only in tests.
func Run(args []string, env folders.Env, stdin io.Reader, stdout io.Writer, deadline time.Duration, exit func(code int)) {
	if help(args, stdout) || Off(env) != "" {
		return
	}
	start := time.Now()
	signal.Ignore(syscall.SIGPIPE)
	expired := make(chan struct{})
	timer := time.AfterFunc(deadline, func() {
		finish(env, start, "", nil, fmt.Errorf("deadline exceeded (%v)", deadline), stdout)
		close(expired)
		exit(0)
	})
	answer, sid, err := decide(env, stdin)
	if !timer.Stop() {
		<-expired // the timer's exit ends the process; say nothing after it
		return
	}
	finish(env, start, sid, answer, err, stdout)
}

func help(args []string, stdout io.Writer) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, usage)
			return true
		}
	}
	return false
}

// decide reads the payload and returns the answer, nil for no decision,
// and the payload's session id for the log.
func decide(env folders.Env, stdin io.Reader) (answer []byte, sid string, err error) {
	data, err := io.ReadAll(io.LimitReader(stdin, hookio.MaxPayload+1))
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("read payload: %w", err)
	case len(data) > hookio.MaxPayload:
		return nil, "", fmt.Errorf("payload over %d bytes", hookio.MaxPayload)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, c.SessionID, err
	}
	if reason := Reason(env, c); reason != "" {
		answer, err = Answer(reason)
		return answer, c.SessionID, err
	}
	return nil, c.SessionID, nil
}

// finish writes the answer and logs a failure: the hook logs only then,
// as it runs on every Read.
func finish(env folders.Env, start time.Time, sid string, answer []byte, err error, stdout io.Writer) {
	if err == nil && answer != nil {
		_, err = stdout.Write(answer)
	}
	if err != nil && filepath.IsAbs(env.LogPath()) {
		if !ident.ValidSession(sid) {
			sid = ""
		}
		_ = hooklog.Append(env.LogPath(), hooklog.Entry{Time: start, Hook: "pre-tool-use", Session: sid,
			Duration: time.Since(start), Outcome: "error: " + err.Error()})
	}
}

// Off names the setting that turns the PreToolUse hook off, or
// returns "".
func Off(env folders.Env) string {
	for _, k := range []string{Env, OptionEnv} {
		if IsOff(env.Get(k)) {
			return k + "=" + env.Get(k)
		}
	}
	return ""
}

// IsOff reports whether a switch's value turns it off.
func IsOff(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// Reason is why bottle lets c through without asking, or "" when bottle
// decides nothing about it.
func Reason(env folders.Env, c Call) string {
	if tool := toolnames.OwnTool(c.ToolName); tool != "" {
		return "bottle: " + tool + " is one of bottle's own MCP tools (reading the session record)"
	}
	if c.ToolName != "Read" {
		return ""
	}
	dir, ok := bottleFile(env, c.Cwd, c.ReadPath())
	if !ok {
		return ""
	}
	return "bottle: reading a session record in bottle's bottles folder " + dir
}

// bottleFile reports whether path (relative paths against cwd) is a regular
// file inside the bottles folder, both resolved, and returns the folder.
// The path must resolve inside it both as the system reads it and as it
// reads once ".." is taken lexically, since a Read may be resolved either
// way. A bottles folder that is the root, the home folder or above it
// (a BOTTLE_DIR set too wide) allows nothing.
func bottleFile(env folders.Env, cwd, path string) (string, bool) {
	if path == "" || strings.ContainsRune(path, 0) {
		return "", false
	}
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(cwd) {
			return "", false
		}
		path = cwd + string(filepath.Separator) + path
	}
	dir := env.BottlesDir()
	if !filepath.IsAbs(dir) {
		return "", false
	}
	rdir, err := filepath.EvalSymlinks(dir)
	if err != nil || tooWide(rdir, env.Home) {
		return "", false
	}
	paths := []string{path}
	if clean := filepath.Clean(path); clean != path {
		paths = append(paths, clean)
	}
	for _, p := range paths {
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", false
		}
		fi, err := os.Stat(rp)
		if err != nil || !fi.Mode().IsRegular() || !Inside(rp, rdir) {
			return "", false
		}
	}
	return rdir, true
}

// Inside reports whether path lies strictly under dir (both clean and
// absolute).
func Inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// tooWide reports whether the bottles folder dir (resolved) is the root of
// its file system, or home or one of its ancestors.
func tooWide(dir, home string) bool {
	if filepath.Dir(dir) == dir {
		return true
	}
	if home == "" {
		return false
	}
	if rh, err := filepath.EvalSymlinks(home); err == nil {
		home = rh
	}
	return dir == home || Inside(home, dir)
}

// Answer is the PreToolUse hook's JSON answer allowing the call,
// one line.
func Answer(reason string) ([]byte, error) {
	type specific struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	return hookio.EncodeAnswer(specific{HookEventName: "PreToolUse", PermissionDecision: "allow", PermissionDecisionReason: reason})
}
