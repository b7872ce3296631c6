package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"bottle/locate"
	"bottle/pointer"
	"bottle/render"
)

func runExpand(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("expand", flag.ContinueOnError)
	fs.SetOutput(stdout)
	session := fs.String("session", "", "the `id` of the session the ids belong to (needed for t/u/a ids)")
	transcript := fs.String("transcript", "", "transcript `path` (default: found by --session)")
	db := fs.String("db", "", "claude-mem database `path` (default: <claude-mem data>/claude-mem.db)")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: hookbin expand ID... [--session S] [--transcript P] [--db P]")
		fmt.Fprintln(stdout, "\nPrints the full record behind bottle ids: observations (102401 or #102401), tool calls (t17),")
		fmt.Fprintln(stdout, "a turn's user words (u3) or its assistant reply (a3). Private text is stripped.")
		printFlags(stdout, fs)
	}
	ids, err := parseArgs(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(ids) == 0 {
		return exitError{code: 2, msg: "expand needs at least one id (run hookbin expand --help)"}
	}
	if *transcript == "" {
		if err := needConfig(env); err != nil {
			return err
		}
	}
	// The session: the given one, else the current one of the working
	// directory's project (as the MCP tool guesses it), said either way.
	id, how := *session, "given"
	if id == "" && *transcript != "" {
		how = "none given: the ids are read from the transcript given"
	}
	if id == "" && *transcript == "" {
		cwd, _ := os.Getwd()
		if cid, p, err := locate.Current(ctx, env, cwd); err == nil {
			id, how = cid, "none given: the newest transcript of "+cwd+"; pass --session ID for another"
			if p == "" {
				how = "none given: the newest claude-mem session of " + cwd + "; pass --session ID for another"
			}
		} else {
			how = "none given and none found for " + cwd + ": observations are looked up in every session; pass --session ID"
		}
	}
	src, err := locate.Find(env, id, *transcript, *db)
	if err != nil {
		return err
	}
	if *session != "" {
		if err := checkSession(ctx, env, id, src.Transcript, src.DB); err != nil {
			return err
		}
	}
	shown := id
	if shown == "" {
		shown = "-"
	}
	fmt.Fprintf(stdout, "session: %s (%s)\n\n", shown, how)
	o := render.ExpandOptions{SessionID: id, TranscriptPath: src.Transcript, DBPath: src.DB, Reader: locate.ReaderFor(src.Transcript)}
	exps, err := render.Expand(ctx, o, ids)
	if err != nil {
		return err
	}
	missing := 0
	for i, e := range exps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if !e.Found {
			missing++
			fmt.Fprintf(stdout, "%s%s] not expanded: %s\n", pointer.CLIRecordHeading, e.ID, e.Missing)
			continue
		}
		fmt.Fprintf(stdout, "%s%s]\n%s", pointer.CLIRecordHeading, e.ID, e.Text)
		if len(e.Text) > 0 && e.Text[len(e.Text)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
	}
	if missing > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %s not expanded (the reasons are above)", missing, plural(len(exps), "id"))}
	}
	return nil
}
