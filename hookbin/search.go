package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"bottle/claudemem"
	"bottle/ident"
	"bottle/locate"
	"bottle/pointer"
	"bottle/search"
)

func runSearch(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stdout)
	session := fs.String("session", "", "search session `id` (default: the current session of the working directory)")
	project := fs.String("project", "", "search every session of the project at `dir`")
	all := fs.Bool("all", false, "search every session of every project")
	kind := fs.String("kind", "", "only records of these `kinds`, separated by commas: prompt, assistant, tool, observation, summary")
	file := fs.String("file", "", "only tool calls whose path input is `path` (or ends with it)")
	limit := fs.Int("limit", search.DefaultLimit, "show at most `n` hits (1 to 200)")
	offset := fs.Int("offset", 0, "skip the first `n` hits")
	asJSON := fs.Bool("json", false, "print one JSON object per hit")
	db := fs.String("db", "", "claude-mem database `path` (default: <claude-mem data>/claude-mem.db)")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: hookbin search QUERY [--session S | --project DIR | --all] [--kind K] [--file P] [--limit N] [--offset N] [--json] [--db P]")
		fmt.Fprintln(stdout, "\nSearches sessions' whole records (prompts, replies, tool inputs and results, claude-mem's observations")
		fmt.Fprintln(stdout, "and summaries; private text excluded) as search_history does. QUERY: words that must all occur (any")
		fmt.Fprintln(stdout, "case), \"quoted phrases\", -word to exclude; every character is literal. Hits are ranked best first.")
		fmt.Fprintln(stdout, "After the first word, a -word that is not one of the flags below belongs to the query; -- ends the flags\n(hookbin search -- widget -json excludes json).")
		printFlags(stdout, fs)
	}
	pos, err := parseSearchArgs(fs, args)
	if err != nil {
		return flagError(err)
	}
	usage := func(msg string) error { return exitError{code: 2, msg: msg + " (run hookbin search --help)"} }
	q, err := search.Parse(strings.Join(pos, " "))
	if err != nil {
		return usage(err.Error())
	}
	scopes := 0
	for _, set := range []bool{*session != "", *project != "", *all} {
		if set {
			scopes++
		}
	}
	switch {
	case scopes > 1:
		return usage("give one of --session, --project and --all")
	case *limit < 1 || *limit > search.MaxLimit:
		return usage(fmt.Sprintf("--limit must be between 1 and %d", search.MaxLimit))
	case *offset < 0:
		return usage("--offset counts hits from 0")
	case *session != "" && !ident.ValidSession(*session):
		return usage(fmt.Sprintf("invalid session id %q", *session))
	}
	var kinds []search.Kind
	for _, k := range strings.FieldsFunc(*kind, func(r rune) bool { return r == ',' || r == ' ' }) {
		sk, ok := search.ParseKind(k)
		if !ok {
			return usage(fmt.Sprintf("unknown kind %q: kinds are prompt, assistant, tool, observation, summary", k))
		}
		kinds = append(kinds, sk)
	}
	if err := needConfig(env); err != nil {
		return err
	}
	o := search.Options{Query: q, Kinds: kinds, File: *file, Limit: *limit, Offset: *offset, DBPath: *db,
		Own: search.Own{BottlesDir: env.BottlesDir(), Tools: pointer.AllToolNames()}}
	searchMemory()
	if p := env.SearchIndexPath(); p != "" {
		o.Store = search.NewStore(p)
		o.Store.Log = func(line string) { fmt.Fprintln(stderr, "hookbin: "+line) }
		defer o.Store.Close()
	}
	if o.DBPath == "" {
		o.DBPath = env.DBPath()
	}
	if o.DBPath != "" {
		h, err := claudemem.Open(ctx, o.DBPath)
		switch {
		case err == nil:
			defer h.Close()
			o.DB = h
		case *db != "" || !errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(stderr, "hookbin: claude-mem's database not searched: %v\n", err)
		}
	}
	cwd, _ := os.Getwd()
	var sources []search.Source
	scope := "session"
	switch {
	case *all:
		scope = "all"
		sources = noIndex.ScopeSources(ctx, env, o.DB, o.DBPath, "all", cwd)
	case *project != "":
		scope = "project"
		dir, err := existingProject(*project)
		if err != nil {
			return err
		}
		sources = noIndex.ScopeSources(ctx, env, o.DB, o.DBPath, "project", dir)
	default:
		id := *session
		if id == "" {
			cid, _, err := locate.Current(ctx, env, cwd)
			if err != nil {
				return fmt.Errorf("no --session given and no current session: %w", err)
			}
			id = cid
			if !*asJSON { // --json prints hits only
				fmt.Fprintf(stdout, "session: %s (none given: the newest of %s; --session, --project or --all for others)\n", id, cwd)
			}
		}
		src, err := locate.Find(env, id, "", "")
		if err != nil {
			return err
		}
		if err := checkSession(ctx, env, id, src.Transcript, o.DBPath); err != nil {
			return err
		}
		sources = []search.Source{{ID: id, Transcript: src.Transcript, Read: locate.ReaderFor(src.Transcript)}}
	}
	o.Sources = sources
	res, err := search.Search(ctx, noIndex, o)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(stderr, "hookbin: "+n)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, h := range res.Hits {
			if err := enc.Encode(jsonHit{h.Session, h.ID, string(h.Kind), h.Label, h.Time, h.Snippet, h.Score}); err != nil {
				return err
			}
		}
		return nil
	}
	for _, h := range res.Hits {
		fmt.Fprintln(stdout, search.Line(h, scope != "session", time.Local))
	}
	switch {
	case res.Total == 0:
		fmt.Fprintf(stdout, "no hits in %s of %s\n", plural(res.Records, "record"), plural(res.Sessions, "session"))
	case len(res.Hits) == 0:
		fmt.Fprintf(stdout, "offset %d is past the last of %d hits\n", *offset, res.Total)
	default:
		more := ""
		if next := *offset + len(res.Hits); next < res.Total {
			more = fmt.Sprintf("; --offset %d for more", next)
		}
		fmt.Fprintf(stdout, "hits %d–%d of %d in %s of %s%s; hookbin expand ID --session S shows a hit's record\n",
			*offset+1, *offset+len(res.Hits), res.Total, plural(res.Records, "record"), plural(res.Sessions, "session"), more)
	}
	return nil
}

// parseSearchArgs parses search's flags, wherever they stand, and returns
// the query's words. The flags are fs's own only: after the query's first
// word any other "-word" is a word of the query (an excluded word: hookbin
// search "go test" -flaky), while before it, or spelled "--word", an
// unknown flag is a usage error (a mistyped flag is not searched for).
// "--" ends the flags: everything after it is the query's.
func parseSearchArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		name, hasValue := flagName(a)
		f := fs.Lookup(name)
		known := f != nil || name == "h" || name == "help"
		switch {
		case name == "" || !known && len(words) > 0 && !strings.HasPrefix(a, "--"):
			words = append(words, a)
		default:
			flags = append(flags, a)
			if f != nil && !hasValue && !isBool(f) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	if _, err := parseArgs(fs, flags); err != nil {
		return nil, err
	}
	return words, nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagName is the name of a flag argument ("-name", "--name", "-name=v")
// and whether it carries its value; "" when a is no flag.
func flagName(a string) (name string, hasValue bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", false
	}
	name = strings.TrimPrefix(a[1:], "-")
	if name == "" || name[0] == '-' || name[0] == '=' {
		return "", false
	}
	if i := strings.IndexByte(name, '='); i >= 0 {
		return name[:i], true
	}
	return name, false
}

// noIndex: a command searches once, so it keeps nothing.
var noIndex *search.Index

// jsonHit is one hit of --json.
type jsonHit struct {
	Session string    `json:"session"`
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Label   string    `json:"label,omitempty"`
	Time    time.Time `json:"time"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
}
