package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"bottle/locate"
	"bottle/search"
)

func runList(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stdout)
	project := fs.String("project", "", "list only the sessions of the project at `dir`")
	db := fs.String("db", "", "claude-mem database `path` (default: <claude-mem data>/claude-mem.db)")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: hookbin list [--project DIR] [--db P]")
		fmt.Fprintln(stdout, "\nLists every session with a transcript, a Codex rollout and/or claude-mem records: the host that recorded it, the mode it renders in,\nlast activity, counts and first prompt; the project too when the sessions are of more than one. Files of the projects folder that are not transcripts are skipped.")
		printFlags(stdout, fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return exitError{code: 2, msg: "list takes no arguments (run hookbin list --help)"}
	}
	if err := needConfig(env); err != nil {
		return err
	}
	dir := *project
	if dir != "" {
		if dir, err = existingProject(dir); err != nil {
			return err
		}
	}
	// The search index's catalogue spares reading the transcripts that
	// did not change since the last listing.
	var cat locate.Catalogue
	var c *search.Catalogue
	var st *search.Store
	if p := env.SearchIndexPath(); p != "" {
		st = search.NewStore(p)
		st.Log = func(line string) { fmt.Fprintln(stderr, "hookbin: "+line) }
		defer st.Close()
		c = st.Catalogue(ctx)
		cat = c
	}
	list, notes, err := locate.ListWith(ctx, env, *db, dir, cat)
	prompts := st.PromptCounts(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	if c != nil {
		c.Save(ctx) // a busy or unusable index only costs the next listing time
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "hookbin: "+n)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no sessions found (transcripts under "+env.ProjectsDir()+", claude-mem database "+orNone(*db, env.DBPath())+")")
		return nil
	}
	// A project column only when there is more than one project to tell
	// apart.
	projects := map[string]bool{}
	for _, l := range list {
		projects[projectOf(l)] = true
	}
	head := "SESSION\tHOST\tMODE\tLAST ACTIVITY\tPROMPTS\tOBS\tSUMMARIES\tTRANSCRIPT\tFIRST PROMPT"
	if len(projects) > 1 {
		head = "SESSION\tPROJECT\tHOST\tMODE\tLAST ACTIVITY\tPROMPTS\tOBS\tSUMMARIES\tTRANSCRIPT\tFIRST PROMPT"
	}
	// tabwriter writes each cell on its own: one write(2) for the lot.
	bw := bufio.NewWriterSize(stdout, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, l := range list {
		counts := "-\t-\t-"
		switch {
		case l.Host == locate.HostCodex:
			counts = fmt.Sprintf("%d\t-\t-", l.Prompts)
		case l.Stored:
			counts = fmt.Sprintf("%d\t%d\t%d", l.Prompts, l.Observations, l.Summaries)
		case l.TranscriptPath != "":
			// Prompts counted in the transcript (by the search index when
			// it holds the file as it is); claude-mem holds nothing.
			n, ok := 0, false
			if prompts != nil {
				n, ok = prompts(l.ID, l.TranscriptPath, l.TranscriptBytes, l.Modified)
			}
			if !ok {
				var err error
				n, err = noIndex.Prompts(ctx, l.TranscriptPath)
				ok = err == nil
			}
			if ok {
				counts = fmt.Sprintf("%d\t-\t-", n)
			}
		}
		id := l.ID
		if len(projects) > 1 {
			id += "\t" + projectOf(l)
		}
		id += "\t" + l.Host
		size := "-"
		if l.TranscriptPath != "" {
			size = fmt.Sprintf("%d KB", (l.TranscriptBytes+1023)/1024)
		}
		when := "-"
		if !l.LastActivity.IsZero() {
			when = l.LastActivity.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", id, l.Mode, when, counts, size, l.FirstPrompt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func orNone(a, b string) string {
	if a != "" {
		return a
	}
	if b != "" {
		return b
	}
	return "none"
}

// projectOf names a listed session's project as a user knows it: its
// working directory, else claude-mem's project name, else the transcript's
// folder under the projects folder.
func projectOf(l locate.Listing) string {
	if l.Cwd != "" {
		return l.Cwd
	}
	return l.Project
}
