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

	"bottle/render"
	"bottle/render/bottles"
	"bottle/render/locate"
)

func runRender(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stdout)
	transcript := fs.String("transcript", "", "transcript `path` (default: found by session id under $CLAUDE_CONFIG_DIR or ~/.claude)")
	out := fs.String("out", "", "write the bottle to `path` instead of the bottles dir; - prints it")
	db := fs.String("db", "", "claude-mem database `path` (default: <claude-mem data>/claude-mem.db when it exists)")
	budget := fs.Int("budget", render.DefaultBudgetTokens, "fold the oldest turns to fit `N` estimated tokens; 0 renders everything")
	example := fs.Bool("example", false, "print the bottle of the example session embedded in hookbin")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: hookbin render [SESSION_ID|FILE.jsonl] [--transcript P] [--db P] [--out P|-] [--budget N] [--example]")
		fmt.Fprintln(stdout, "\nRenders a session's bottle into the bottles dir ($BOTTLE_DIR, else <claude-mem data>/bottles) and prints its path.")
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
	o := render.Options{TranscriptPath: *transcript, DBPath: *db, BudgetTokens: *budget, NoBudget: *budget <= 0}
	if len(pos) == 1 {
		arg := pos[0]
		if strings.HasSuffix(arg, ".jsonl") || strings.ContainsAny(arg, `/\`) {
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
	src, err := locate.Find(env, o.SessionID, o.TranscriptPath, o.DBPath)
	if err != nil {
		return err
	}
	o.TranscriptPath, o.TranscriptErr, o.DBPath = src.Transcript, src.TranscriptErr, src.DB
	fitMemory(o.TranscriptPath)
	res, err := render.Render(ctx, o)
	if err != nil {
		if errors.Is(err, locate.ErrNoTranscript) {
			return fmt.Errorf("%w (pass the file with --transcript)", err)
		}
		return err
	}
	switch *out {
	case "-":
		_, err = stdout.Write(res.Markdown)
		return err
	case "":
		path, err := bottles.Write(env.BottlesDir(), res.SessionID, res.Markdown)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
		return nil
	default:
		return writeOut(*out, res.Markdown, stdout)
	}
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
