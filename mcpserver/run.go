package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/host/codex"
	"bottle/internal/version"
	"bottle/locate"
	"bottle/pointer"
	"bottle/search"
	"bottle/tools"
)

const usage = `usage: mcpserver [--host codex] [--version] [--help]

Serves bottle's MCP tools on stdin/stdout (JSON-RPC, MCP protocol 2025-11-25)
for the Claude Code sessions of the working directory's project:

  render_bottle       render a session's bottle into the bottles folder
  read_bottle         read a bottle page by page
  expand_observation  full claude-mem records behind [#id] lines
  search_history      ranked search over sessions' whole records
  list_sessions       a project's sessions, newest first

and the prompt continue_session (/mcp__bottle__continue_session ID), which
picks up any past session in a fresh context,

Claude Code starts it: register it with "hookbin install", or use the
repository's .mcp.json. Codex starts it with --host codex ("hookbin install
--host codex" registers it so), which words its instructions, its tools and
the pointers it returns for Codex, and offers continue_session as a tool
(Codex shows no MCP prompts). Nothing is written to stderr in normal
operation; problems are logged to <claude-mem data>/logs/bottle.log.
`

// usageError is a bad command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// legacyVersions are the protocol versions served over stdio: those
// negotiated with initialize. Claude Code sends a server/discover probe
// (protocol 2026-07-28) before initialize; answering it at once with these
// versions makes it go on with initialize, where it asks for 2025-11-25.
var legacyVersions = []string{
	mcp.ProtocolVersion20251125,
	mcp.ProtocolVersion20250618,
	mcp.ProtocolVersion20250326,
	mcp.ProtocolVersion20241105,
}

// run is the whole program; main only maps its error to an exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcpserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	showVersion := fs.Bool("version", false, "print the version and exit")
	hostName := fs.String("host", "", "the host that starts the server: codex, or none for Claude Code")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err = io.WriteString(stdout, usage)
			return err
		}
		return usageError{err.Error() + " (run mcpserver --help)"}
	}
	var host pointer.Host
	switch *hostName {
	case "", "claude-code":
	case "codex":
		host = codex.Wording
	default:
		return usageError{fmt.Sprintf("unknown host %q: codex or claude-code (run mcpserver --help)", *hostName)}
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, "mcpserver "+version.String())
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (run mcpserver --help)", fs.Arg(0))}
	}

	env := locate.OSEnv()
	logger := log.New(logWriter{path: env.LogPath()}, "", 0)
	cwd, err := os.Getwd()
	if err != nil {
		logger.Printf("no working directory, so no current session: %v", err)
	}
	if host.Name != "" {
		var how string
		if cwd, how = sessionDir(cwd); how != "" {
			logger.Printf("sessions of %s: %s", cwd, how)
		}
	}
	dbs := &tools.DBCache{}
	defer dbs.Close()
	// Opened while the client initializes, for the first search or expansion.
	go dbs.Warm(ctx, env.DBPath())
	var store *search.Store
	if p := env.SearchIndexPath(); p != "" {
		store = search.NewStore(p)
		store.Log = func(line string) { logger.Print(line) }
		store.Background = true
		// A scope of a few sessions is answered from the in-memory index.
		store.MemoryBytes = 64 << 20
		defer store.Close()
		go store.Warm(ctx)
	}
	// The server lists every project's transcripts at each search of
	// them: it keeps the listing, told of changes by the system.
	listing := locate.NewWatch(env)
	defer listing.Close()
	s := tools.NewServer(tools.Deps{Env: env, Cwd: cwd, Now: time.Now, DB: dbs, Index: &search.Index{MaxBytes: indexBytes, Listing: listing}, Store: store, Renders: &tools.Renders{}, Host: host}, version.String())
	stdio := server.NewStdioServer(s)
	// mcp-go's default error logger writes to os.Stderr.
	stdio.SetErrorLogger(logger)
	stdio.SetContextFunc(func(ctx context.Context) context.Context {
		return server.WithSupportedProtocolVersions(ctx, legacyVersions)
	})
	err = stdio.Listen(ctx, stdin, stdout)
	if err == nil || ctx.Err() != nil {
		return nil // stdin closed, or a signal: a normal end
	}
	logger.Printf("stopped: %v", err)
	return err
}
