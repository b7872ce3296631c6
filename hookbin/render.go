package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"bottle/bottles"
	"bottle/host/codex"
	"bottle/ident"
	"bottle/locate"
	"bottle/pointer"
	"bottle/privacy"
	"bottle/render"
)

func runRender(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stdout)
	transcript := fs.String("transcript", "", "transcript `path` (default: found by session id under $CLAUDE_CONFIG_DIR or ~/.claude)")
	out := fs.String("out", "", "write the bottle to `path` instead of the bottles dir; - prints it")
	db := fs.String("db", "", "claude-mem database `path` (default: <claude-mem data>/claude-mem.db when it exists)")
	budget := fs.Int("budget", render.DefaultBudgetTokens, "fold the oldest turns to fit `N` estimated tokens; 0 renders everything")
	example := fs.Bool("example", false, "print the bottle of the example session embedded in hookbin")
	verbose := fs.Bool("verbose", false, "say on stderr how many transcript lines were read, and how many skipped and why")
	force := fs.Bool("force", false, "render a --transcript in which no entry carries the session id given")
	withPointer := fs.Bool("pointer", false, "print, instead of the path, the pointer that picks the session up in a fresh conversation")
	host := fs.String("host", "", "word the --pointer for `host` codex (default: Claude Code)")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: hookbin render [SESSION_ID|FILE.jsonl] [--transcript P] [--db P] [--out P|-] [--budget N] [--verbose] [--force] [--example] [--pointer [--host codex]]")
		fmt.Fprintln(stdout, "\nRenders a session's bottle into the bottles dir ($BOTTLE_DIR, else <claude-mem data>/bottles) and prints its path.")
		fmt.Fprintln(stdout, "A Codex thread id renders its rollout under $CODEX_HOME when no Claude Code transcript has the id.")
		printFlags(stdout, fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagError(err)
	}
	if *example {
		md, err := render.Example()
		if err != nil {
			return err
		}
		if *out != "" && *out != "-" {
			return writeOut(*out, md, stdout)
		}
		_, err = stdout.Write(md)
		return err
	}
	if len(pos) > 1 {
		return exitError{code: 2, msg: "render takes one session id or transcript file (run hookbin render --help)"}
	}
	if *budget < 0 {
		return exitError{code: 2, msg: "--budget must be 0 (everything) or a positive token count"}
	}
	var wording pointer.Host
	switch {
	case *host == "codex":
		wording = codex.Wording
	case *host != "":
		return exitError{code: 2, msg: fmt.Sprintf("unknown --host %q: codex, or none for Claude Code", *host)}
	}
	if *withPointer && *out != "" {
		return exitError{code: 2, msg: "--pointer names the bottle in the bottles dir: drop --out"}
	}
	o := render.Options{TranscriptPath: *transcript, DBPath: *db, BudgetTokens: *budget, NoBudget: *budget == 0}
	if len(pos) == 1 {
		arg := pos[0]
		if strings.HasSuffix(arg, ".jsonl") || strings.HasSuffix(arg, ".jsonl.zst") || strings.ContainsAny(arg, `/\`) {
			if o.TranscriptPath != "" {
				return exitError{code: 2, msg: "give the transcript either as FILE.jsonl or with --transcript, not both"}
			}
			o.TranscriptPath = arg
		} else {
			o.SessionID = arg
		}
	}
	if o.SessionID == "" && o.TranscriptPath == "" {
		return exitError{code: 2, msg: "render needs a session id, a FILE.jsonl or --example (run hookbin render --help)"}
	}
	// A file named here is meant to be a transcript, of the session named if
	// one is; one found by id must be a transcript too, as junk in the
	// projects folder is no session. (The hooks render a session's file
	// while it may still be empty.)
	o.RequireEntries = true
	o.RequireSession = o.TranscriptPath != "" && !*force
	if *db != "" {
		// The default database may be absent (standalone mode); one named
		// on the command line is meant to be read.
		if _, err := os.Stat(*db); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("claude-mem database %s does not exist", *db)
		}
	}
	if o.TranscriptPath == "" {
		if err := needConfig(env); err != nil {
			return err
		}
	}
	src, err := locate.Find(env, o.SessionID, o.TranscriptPath, o.DBPath)
	if err != nil {
		return err
	}
	if o.SessionID != "" && ident.ValidSession(o.SessionID) {
		if err := checkSession(ctx, env, o.SessionID, src.Transcript, src.DB); err != nil {
			return err
		}
	}
	o.TranscriptPath, o.TranscriptErr, o.DBPath = src.Transcript, src.TranscriptErr, src.DB
	o.Reader = locate.ReaderFor(o.TranscriptPath)
	fitMemory(o.TranscriptPath)
	res, err := render.Render(ctx, o)
	if err != nil {
		switch {
		case errors.Is(err, locate.ErrNoTranscript):
			return fmt.Errorf("%w (pass the file with --transcript)", err)
		case errors.Is(err, render.ErrOtherSession):
			return fmt.Errorf("%w (--force renders it anyway)", err)
		}
		return err
	}
	switch *out {
	case "-":
		_, err = stdout.Write(res.Markdown)
	case "":
		var path string
		if path, err = bottles.Write(env.BottlesDir(), res.SessionID, res.Markdown); err == nil && *withPointer {
			// The pointer says which host recorded the session when it is
			// not the one it is worded for.
			ptr := res.PointerFor(path, time.Now(), true, pointer.NamesFor(env.Get(pluginRootEnv)), wording)
			_, err = io.WriteString(stdout, privacy.Redact(ptr))
		} else if err == nil {
			fmt.Fprintln(stdout, path)
		}
	default:
		err = writeOut(*out, res.Markdown, stdout)
	}
	if err != nil {
		return err
	}
	// What the bottle alone does not tell, on stderr: stdout holds only
	// the bottle or its path.
	if res.IDFromEntries {
		fmt.Fprintf(stderr, "hookbin: session id %s taken from the transcript's entries (its name is not a session id)\n", res.SessionID)
	}
	if *verbose && res.TranscriptPath != "" {
		fmt.Fprintf(stderr, "hookbin: read %s: %s\n", res.TranscriptPath, res.Diag)
	}
	if res.OverBudget != "" {
		fmt.Fprintln(stderr, "hookbin: "+res.OverBudget)
	}
	return nil
}

// writeOut writes a bottle to an explicit --out path.
func writeOut(path string, data []byte, stdout io.Writer) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(abs, data, 0o600); err != nil {
		return fmt.Errorf("write bottle: %w", err)
	}
	fmt.Fprintln(stdout, abs)
	return nil
}
