package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"bottle/bottles"
	"bottle/ident"
	"bottle/internal/hookio"
	"bottle/internal/hooklog"
	"bottle/locate"
	"bottle/pointer"
	"bottle/privacy"
	"bottle/render"
)

// Default hook deadlines. install registers timeouts of 10 s, 5 s and 2 s,
// and Claude Code gives all SessionEnd hooks 1.5 s together; each hook gives
// up well before, printing nothing.
const (
	sessionStartDeadline = 8 * time.Second
	stopDeadline         = 2 * time.Second
	sessionEndDeadline   = 1 * time.Second
)

// deadlineEnv overrides every hook's deadline: a Go duration ("500ms") or
// a number of seconds. The --deadline flag wins over it.
const deadlineEnv = "BOTTLE_HOOK_DEADLINE"

// pluginRootEnv is set by Claude Code for a plugin's hooks and servers only:
// under bottle's plugin the model sees other tool names (pointer.MCPNames).
const pluginRootEnv = "CLAUDE_PLUGIN_ROOT"

// hookPayload is the part of a hook's stdin JSON the hooks use (Claude
// Code's hook payload); other fields are ignored.
type hookPayload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`           // SessionStart
	Reason         string `json:"reason"`           // SessionEnd
	Trigger        string `json:"trigger"`          // PreCompact: manual or auto
	StopHookActive bool   `json:"stop_hook_active"` // Stop; we never block, so it needs no guard
	// LastAssistant is the text of the turn's last assistant message (Stop,
	// Claude Code 2.1.197 on): its blocks joined by "\n", trimmed.
	LastAssistant string `json:"last_assistant_message"`
}

// hook is one of the hook commands.
type hook struct {
	name     string
	about    string
	deadline time.Duration
	key      string // payload field shown in the log: "source", "reason", "trigger" or ""
	work     func(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error)
}

var (
	sessionStartHook = hook{
		name:     "session-start",
		about:    "After a compaction (source compact, or resume/fork of a compacted session), renders the\nsession's bottle and prints a SessionStart answer that points the model to it.",
		deadline: sessionStartDeadline,
		key:      "source",
		work:     sessionStart,
	}
	stopHook = hook{
		name:     "stop",
		about:    "Re-renders the session's bottle after every turn. Prints nothing.",
		deadline: stopDeadline,
		work:     stopRender,
	}
	sessionEndHook = hook{
		name:     "session-end",
		about:    "On reason clear archives the session's bottle (and prunes archives older than 30 days);\notherwise renders it a last time. Prints nothing.",
		deadline: sessionEndDeadline,
		key:      "reason",
		work:     sessionEnd,
	}
)

// hookEnv is what a hook's work depends on.
type hookEnv struct {
	env    locate.Env
	render func(context.Context, render.Options) (*render.Result, error)
	now    time.Time
	settle time.Duration // the Stop hook's longest wait for its turn (awaitTurn)
}

// hookResult is what a hook did.
type hookResult struct {
	answer []byte // for stdout; nil prints nothing
	mode   ident.Mode
	note   string // logged as "ok: <note>"
}

// skipped is an outcome that is no failure: there was nothing to do.
type skipped string

func (s skipped) Error() string { return string(s) }

func runSessionStart(ctx context.Context, d deps, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return runHook(ctx, d, sessionStartHook, args, env, stdin, stdout)
}

func runStop(ctx context.Context, d deps, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return runHook(ctx, d, stopHook, args, env, stdin, stdout)
}

func runSessionEnd(ctx context.Context, d deps, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return runHook(ctx, d, sessionEndHook, args, env, stdin, stdout)
}

// runHook runs h within its deadline and logs the outcome. It returns nil
// in every case but --help: a hook's failure is logged, never reported.
// The work runs in a goroutine, so a deadline bounds even a blocked read of
// stdin; at the deadline the hook prints nothing and returns while the work
// is abandoned (its context is cancelled, and the process exits).
func runHook(ctx context.Context, d deps, h hook, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) (err error) {
	start := time.Now()
	entry := hooklog.Entry{Time: start, Hook: h.name, Key: h.key}
	logIt := true
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome, err = fmt.Sprintf("error: panic: %v", r), nil
		}
		if logIt {
			entry.Duration = time.Since(start)
			// A hook must not fail, or write to stderr, because its log
			// cannot be written.
			_ = hooklog.Append(env.LogPath(), entry)
		}
	}()

	flags := flag.NewFlagSet(h.name, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flagDeadline := flags.Duration("deadline", 0, "give up after this long, printing nothing (default "+h.deadline.String()+", or $"+deadlineEnv+")")
	flagHost := flags.String("host", "", "the agent that runs the hook: claude-code (default) or codex")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			logIt = false
			fmt.Fprintf(stdout, "usage: hookbin %s [--deadline D] < payload.json\n\n%s\n\n"+
				"A Claude Code hook: reads the hook's JSON payload on stdin, always exits 0, and logs each\n"+
				"run to <claude-mem data>/logs/bottle.log. Flags:\n", h.name, h.about)
			flags.SetOutput(stdout)
			printFlags(stdout, flags)
			return nil
		}
		entry.Outcome = "error: " + err.Error()
		return nil
	}
	if flags.NArg() > 0 {
		entry.Outcome = fmt.Sprintf("error: unexpected argument %q", flags.Arg(0))
		return nil
	}
	if homeless(env) {
		// Nowhere to write, not even the log: a bottle or log written to a
		// relative path would land in the working directory, the user's project.
		logIt = false
		return nil
	}
	deadline, warn := hookDeadline(*flagDeadline, env, h.deadline)
	// A write to a closed stdout pipe would kill the process with SIGPIPE
	// (Go's rule for fds 1 and 2) and break "always exit 0"; ignored, the
	// write fails with EPIPE and is logged.
	signal.Ignore(syscall.SIGPIPE)

	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	he := hookEnv{env: env, render: d.render, now: start, settle: d.settle}
	type outcome struct {
		res hookResult
		err error
	}
	got := make(chan hookPayload, 1)
	var o outcome
	var finished bool
	o.res, finished, o.err = hookio.Bounded(ctx, func() (hookResult, error) {
		p, err := readPayload(stdin)
		if err != nil {
			return hookResult{}, err
		}
		got <- p
		if !ident.ValidSession(p.SessionID) {
			return hookResult{}, fmt.Errorf("%w in payload", ident.ErrBadSession)
		}
		if codexPayload(*flagHost, p) {
			return codexHook(ctx, h, he, p)
		}
		return h.work(ctx, he, p)
	})
	// Work that stopped because the deadline passed, and returned before
	// bounded saw the deadline, gave up all the same.
	gaveUp := !finished || ctx.Err() != nil && (errors.Is(o.err, context.DeadlineExceeded) || errors.Is(o.err, context.Canceled))
	if gaveUp {
		o = outcome{err: fmt.Errorf("deadline exceeded (%v)", deadline)}
		if context.Cause(ctx) != context.DeadlineExceeded {
			o.err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
		}
	}
	select {
	case p := <-got:
		entry.Session = p.SessionID
		switch h.key {
		case "source":
			entry.Value = p.Source
		case "reason":
			entry.Value = p.Reason
		case "trigger":
			entry.Value = p.Trigger
		}
	default:
	}
	entry.Mode = string(o.res.mode)
	var skip skipped
	switch {
	case errors.As(o.err, &skip):
		entry.Outcome = "skipped: " + string(skip)
	case o.err != nil:
		entry.Outcome = "error: " + o.err.Error()
	case o.res.answer != nil:
		entry.Outcome = "ok"
		if _, err := stdout.Write(o.res.answer); err != nil {
			entry.Outcome = "error: write answer: " + err.Error()
		}
	default:
		entry.Outcome = "ok"
	}
	if o.err == nil && o.res.note != "" {
		entry.Outcome += ": " + o.res.note
	}
	entry.Outcome += warn
	return nil
}

// homeless reports whether the folders a hook reads and writes are unknown:
// without HOME (and the variables that stand in for it) Env's defaults are
// relative paths, which would resolve against the hook's working directory.
func homeless(env locate.Env) bool {
	return !filepath.IsAbs(env.ConfigDir()) || !filepath.IsAbs(env.BottlesDir()) || !filepath.IsAbs(env.LogPath())
}

// hookDeadline is the --deadline flag when set, else $BOTTLE_HOOK_DEADLINE,
// else def. warn, when not empty, is appended to the log line.
func hookDeadline(flagValue time.Duration, env locate.Env, def time.Duration) (d time.Duration, warn string) {
	if flagValue > 0 {
		return flagValue, ""
	}
	s := strings.TrimSpace(env.Get(deadlineEnv))
	if s == "" {
		return def, ""
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, ""
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs > 0 && secs < 1e6 {
		return time.Duration(secs * float64(time.Second)), ""
	}
	return def, fmt.Sprintf(" (ignored %s=%q: not a duration)", deadlineEnv, s)
}

// readPayload reads and decodes the hook payload.
func readPayload(r io.Reader) (hookPayload, error) {
	var p hookPayload
	data, err := io.ReadAll(io.LimitReader(r, hookio.MaxPayload+1))
	if err != nil {
		return p, fmt.Errorf("read payload: %w", err)
	}
	if len(data) > hookio.MaxPayload {
		return p, fmt.Errorf("payload over %d bytes", hookio.MaxPayload)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return p, errors.New("empty payload on stdin")
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, hookio.PayloadError(err)
	}
	return p, nil
}

// sessionStart renders the bottle after a compaction and answers with the
// pointer (docs/format.md, "The pointer").
func sessionStart(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error) {
	needCompaction := false
	switch p.Source {
	case "compact":
	case "resume", "fork":
		// Without a compaction, Claude Code reloads the whole conversation: a
		// pointer would only duplicate it.
		needCompaction = true
	case "startup", "clear":
		return hookResult{}, skipped("source " + p.Source)
	default:
		return hookResult{}, skipped(fmt.Sprintf("unknown source %.40q", p.Source))
	}
	path, err := transcriptOf(h.env, p)
	if err != nil {
		return stalePointer(ctx, h, p, "", needCompaction, err)
	}
	if needCompaction && path == "" {
		return hookResult{}, skipped("no transcript, so no compaction")
	}
	fitMemory(path)
	res, err := h.render(ctx, render.Options{SessionID: p.SessionID, TranscriptPath: path, TranscriptErr: missing(path), DBPath: h.env.DBPath()})
	if err != nil {
		return stalePointer(ctx, h, p, path, needCompaction, err)
	}
	if needCompaction && !res.Compacted {
		return hookResult{mode: res.Mode}, skipped("no compaction in the transcript")
	}
	bottle, err := writeBottle(ctx, h, res)
	if err != nil {
		return stalePointer(ctx, h, p, path, needCompaction, err)
	}
	if needCompaction && pointerRestored(ctx, path, bottle, p.SessionID) {
		// The context Claude Code restores already holds the pointer the
		// compaction (or an earlier resume) injected, naming this same file,
		// which now holds everything up to this resume: a second copy, or
		// a "refreshed" notice, would only cost tokens (and invite a Read of
		// what the context already holds verbatim).
		return hookResult{mode: res.Mode, note: "refreshed; the restored context already holds its pointer"}, nil
	}
	ptr := res.PointerFor(bottle, h.now, false, pointer.NamesFor(h.env.Get(pluginRootEnv)), pointer.Host{})
	answer, err := sessionStartAnswer(ptr)
	if err != nil {
		return hookResult{mode: res.Mode}, err
	}
	return hookResult{answer: answer, mode: res.Mode}, nil
}

// stalePointer answers a SessionStart whose render or write failed with
// cause: when the session has a bottle from an earlier render, the pointer
// still names it, saying it could not be refreshed and when it was last
// rendered (the model is better off with the record up to then than with
// the summary alone). On resume or fork that needs a compaction in the
// transcript, and no pointer in the context restored from it. Otherwise,
// or once the hook has given up, the answer is nothing and cause is the
// outcome.
func stalePointer(ctx context.Context, h hookEnv, p hookPayload, transcript string, needCompaction bool, cause error) (hookResult, error) {
	if ctx.Err() != nil {
		return hookResult{}, cause
	}
	bottle, head, written, err := bottles.Written(h.env.BottlesDir(), p.SessionID, 1024)
	if err != nil {
		return hookResult{}, cause
	}
	if needCompaction {
		if transcript == "" {
			return hookResult{}, cause
		}
		held, compacted, err := pointer.InContext(ctx, transcript, bottle, p.SessionID)
		switch {
		case err != nil || !compacted:
			return hookResult{}, cause
		case held:
			return hookResult{note: fmt.Sprintf("not refreshed (%s); the restored context already holds its pointer", logText(cause))}, nil
		}
	}
	mode := render.ModeOf(head)
	ptr := pointer.Text(pointer.Input{BottlePath: bottle, SessionID: p.SessionID, Mode: mode, Now: h.now,
		NotRefreshed: written, MCP: pointer.NamesFor(h.env.Get(pluginRootEnv))})
	answer, err := sessionStartAnswer(ptr)
	if err != nil {
		return hookResult{}, cause
	}
	return hookResult{answer: answer, mode: mode,
		note: fmt.Sprintf("not refreshed (%s); pointed at the bottle rendered %s", logText(cause), written.UTC().Format(time.RFC3339))}, nil
}

// logText is an error as an ok outcome quotes it: private blocks stripped
// (a path or a line of the transcript may hold one).
func logText(err error) string {
	return privacy.Redact(privacy.Strip(err.Error()))
}

// pointerRestored reports whether the transcript at path holds, after its
// last compaction, a SessionStart pointer to the bottle at bottle of session
// id: Claude Code restores that part on resume, pointer included. When the
// transcript cannot be read it says no: a pointer twice is better than none.
func pointerRestored(ctx context.Context, path, bottle, id string) bool {
	held, _, err := pointer.InContext(ctx, path, bottle, id)
	return err == nil && held
}

// sessionStartAnswer is the SessionStart hook's JSON answer, one line.
func sessionStartAnswer(additionalContext string) ([]byte, error) {
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return hookio.EncodeAnswer(specific{HookEventName: "SessionStart", AdditionalContext: privacy.Redact(additionalContext)})
}

// stopRender re-renders the bottle after a turn: a live session diary.
func stopRender(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error) {
	waited := awaitTurn(ctx, p, h.settle)
	res, err := renderAndWrite(ctx, h, p)
	if err == nil && waited != "" {
		res.note = waited
	}
	return res, err
}

// renderAndWrite renders the session's bottle and writes it.
func renderAndWrite(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error) {
	res, _, err := renderToFile(ctx, h, p)
	return res, err
}

// renderToFile renders the session's bottle, writes it and returns its
// absolute path.
func renderToFile(ctx context.Context, h hookEnv, p hookPayload) (hookResult, string, error) {
	path, err := transcriptOf(h.env, p)
	if err != nil {
		return hookResult{}, "", err
	}
	fitMemory(path)
	res, err := h.render(ctx, render.Options{SessionID: p.SessionID, TranscriptPath: path, TranscriptErr: missing(path), DBPath: h.env.DBPath()})
	if err != nil {
		return hookResult{}, "", err
	}
	if res.Empty() {
		// A session of a command alone ("claude mcp list", /bottle:doctor)
		// is nothing to continue: no bottle to list or point to.
		return hookResult{mode: res.Mode}, "", skipped("empty session: no prompt and no tool call")
	}
	bottle, err := writeBottle(ctx, h, res)
	if err != nil {
		return hookResult{mode: res.Mode}, "", err
	}
	return hookResult{mode: res.Mode}, bottle, nil
}

// sessionEnd archives the bottle when the user cleared the conversation
// (they asked to forget it) and renders it a last time otherwise. A session
// with nothing recorded (no transcript, nothing in claude-mem) is skipped:
// Claude Code ends such sessions too, "claude mcp list" for one.
func sessionEnd(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error) {
	if p.Reason == "clear" {
		dst, err := bottles.Archive(h.env.BottlesDir(), p.SessionID, h.now, 0)
		if err != nil {
			return hookResult{}, err
		}
		if dst == "" {
			return hookResult{note: "no bottle to archive"}, nil
		}
		return hookResult{note: "archived"}, nil
	}
	res, err := renderAndWrite(ctx, h, p)
	if errors.Is(err, render.ErrNothingToRender) {
		return res, skipped("nothing recorded for this session")
	}
	return res, err
}

// writeBottle writes a rendered bottle into the bottles folder and returns
// its absolute path. Once the hook has given up it writes nothing: the
// previous bottle stays.
func writeBottle(ctx context.Context, h hookEnv, res *render.Result) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	path, err := bottles.Write(h.env.BottlesDir(), res.SessionID, res.Markdown)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// transcriptOf is the session's transcript: the payload's transcript_path
// when it names a file, else the one found by session id under the projects
// folder, else "" (the render then reconstructs the session from claude-mem's
// database, or fails).
func transcriptOf(env locate.Env, p hookPayload) (string, error) {
	if path, err := payloadTranscript(p); path != "" || err != nil {
		return path, err
	}
	path, err := locate.Transcript(env, p.SessionID)
	if errors.Is(err, locate.ErrNoTranscript) {
		return "", nil
	}
	return path, err
}

// payloadTranscript is the payload's transcript_path when it names a
// regular file, "" when it is empty or names nothing.
func payloadTranscript(p hookPayload) (string, error) {
	if p.TranscriptPath == "" {
		return "", nil
	}
	fi, err := os.Stat(p.TranscriptPath)
	switch {
	case err == nil && fi.Mode().IsRegular():
		return p.TranscriptPath, nil
	case err == nil:
		return "", fmt.Errorf("transcript_path %s is not a regular file", p.TranscriptPath)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("transcript_path: %w", err)
	}
	return "", nil
}

// missing is why a render has no transcript when path is "".
func missing(path string) error {
	if path != "" {
		return nil
	}
	return locate.ErrNoTranscript
}
