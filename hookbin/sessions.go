package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"bottle/claudemem"
	"bottle/locate"
)

// needConfig is the check of the commands that read Claude Code's
// transcripts: the folder they are read from must be known, and one named
// by CLAUDE_CONFIG_DIR must exist (else every listing would be silently
// empty). A missing ~/.claude is no error: Claude Code may not have run yet.
func needConfig(env locate.Env) error {
	dir := env.Get("CLAUDE_CONFIG_DIR")
	if dir == "" {
		if env.Home == "" {
			return errors.New("home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)")
		}
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("CLAUDE_CONFIG_DIR %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("CLAUDE_CONFIG_DIR %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("CLAUDE_CONFIG_DIR %s is not a directory", dir)
	}
	return nil
}

// existingProject is a --project folder made absolute; one that does not
// exist is an error naming it.
func existingProject(dir string) (string, error) {
	abs, err := projectDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("--project %s does not exist", dir)
	}
	return abs, err
}

// maxSuggested is how many ids "no such session" suggests.
const maxSuggested = 5

// checkSession returns nil when session id has a transcript (transcript
// != "") or a row in claude-mem's database at dbPath, else an error saying
// there is no such session, with the known ids that start with id.
func checkSession(ctx context.Context, env locate.Env, id, transcript, dbPath string) error {
	if transcript != "" {
		return nil
	}
	var stored []claudemem.SessionInfo
	if dbPath != "" {
		db, err := claudemem.Open(ctx, dbPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil // the database cannot say: let the command report it
		default:
			defer db.Close()
			if _, err := db.MemorySessionID(ctx, id); !errors.Is(err, claudemem.ErrNoSession) {
				return nil // stored, or the database cannot say
			}
			stored, _ = db.Sessions(ctx, "")
		}
	}
	var like []string
	for _, r := range locate.AllSessions(env, stored) {
		if strings.HasPrefix(strings.ToLower(r.ID), strings.ToLower(id)) {
			like = append(like, r.ID)
		}
	}
	slices.Sort(like)
	where := "no transcript under " + env.ProjectsDir()
	if dbPath != "" {
		where += " and none in " + dbPath
	}
	msg := fmt.Sprintf("no such session %s (%s)", strconv.Quote(id), where)
	switch {
	case len(like) == 0:
		msg += "; hookbin list shows the sessions"
	case len(like) <= maxSuggested:
		msg += fmt.Sprintf("; sessions starting with %q: %s", id, strings.Join(like, ", "))
	default:
		msg += fmt.Sprintf("; sessions starting with %q: %s and %d more (hookbin list shows them)", id,
			strings.Join(like[:maxSuggested], ", "), len(like)-maxSuggested)
	}
	return errors.New(msg)
}
