package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"bottle/internal/version"
	"bottle/locate"
	"bottle/privacy"
	"bottle/render"
)

// exitError carries an exit status and a one-line message to main.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

const usage = `usage: hookbin <command> [flags]

Hooks (registered in Claude Code by "hookbin install"; read a JSON payload on stdin):
  session-start   inject a pointer to the session's bottle after a compaction
  stop            re-render the bottle after every turn
  session-end     archive (on /clear) or re-render the bottle
  pre-compact     steer the compaction summary toward what the bottle does not hold
  pre-tool-use    let the model read bottle's own record (Read of a bottle, bottle's MCP tools) without a prompt

Commands:
  render [SESSION|FILE.jsonl]  render a bottle (render --help for flags)
  list [--project DIR]         list sessions with a transcript and/or claude-mem records
  expand ID... [--session S]   print the full record behind [#id]s
  search QUERY [--project DIR | --all]  search sessions' whole records (search --help)
  install / uninstall          register bottle's hooks and MCP server in Claude Code (--host codex: in Codex)
  doctor                       check what is found, registered and working (--host codex: the Codex install)
  trust --host codex           trust bottle's hooks in Codex (installed or from bottle's Codex plugin)
  version (-v, --version)      print the version

Run "hookbin <command> --help" for a command's flags.
`

// deps are what the commands take from the process beyond their
// arguments, stdin and the environment: main runs with defaultDeps, tests
// with their own (a render that blocks, a shorter settle, a fake binary).
type deps struct {
	// render renders a bottle.
	render func(context.Context, render.Options) (*render.Result, error)
	// settle bounds the Stop hook's wait for its turn in the transcript.
	settle time.Duration
	// executable is this binary's path (os.Executable).
	executable func() (string, error)
}

func defaultDeps() deps {
	return deps{render: render.Render, settle: transcriptSettle, executable: os.Executable}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return defaultDeps().run(ctx, args, stdin, stdout, stderr)
}

func (d deps) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return exitError{code: 2, msg: "no command given (run hookbin --help for the commands)"}
	}
	env := locate.OSEnv()
	cmd, rest := args[0], args[1:]
	if f, ok := stdin.(*os.File); ok && hooks[cmd] && isTerminal(f) && !askedForHelp(rest) {
		// Run by hand: a hook would wait its whole deadline for a payload
		// nobody types.
		fmt.Fprintf(stderr, "hookbin %s is a Claude Code hook: it reads the hook's JSON payload on stdin "+
			"(e.g. echo '{\"session_id\":\"ID\",\"source\":\"compact\"}' | hookbin session-start); see hookbin %s --help\n", cmd, cmd)
		return nil
	}
	switch cmd {
	case "-v", "--version", "-version", "version":
		fmt.Fprintln(stdout, "hookbin "+version.String())
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	case "render":
		return runRender(ctx, rest, env, stdout, stderr)
	case "list":
		return runList(ctx, rest, env, stdout, stderr)
	case "expand":
		return runExpand(ctx, rest, env, stdout, stderr)
	case "search":
		return runSearch(ctx, rest, env, stdout, stderr)
	case "install":
		return runInstall(ctx, d, rest, env, stdout, stderr)
	case "uninstall":
		return runUninstall(ctx, rest, env, stdout, stderr)
	case "session-start":
		return runSessionStart(ctx, d, rest, env, stdin, stdout)
	case "stop":
		return runStop(ctx, d, rest, env, stdin, stdout)
	case "session-end":
		return runSessionEnd(ctx, d, rest, env, stdin, stdout)
	case "pre-compact":
		return runPreCompact(ctx, d, rest, env, stdin, stdout)
	case "pre-tool-use":
		return runPreToolUse(ctx, rest, env, stdin, stdout)
	case "doctor":
		return runDoctor(ctx, d, rest, env, stdout)
	case "trust":
		return runTrust(ctx, rest, env, stdout)
	}
	return exitError{code: 2, msg: fmt.Sprintf("unknown command %q (run hookbin --help for the commands)", cmd)}
}

// hooks are the subcommands Claude Code runs as hooks.
var hooks = map[string]bool{"session-start": true, "stop": true, "session-end": true, "pre-compact": true, "pre-tool-use": true}

// askedForHelp reports whether args hold -h or --help.
func askedForHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// exitCode reports err as the process ends: nothing for success, else one
// line on stderr, and the exit status (0 success, 1 failure, 2 usage).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	code, msg := 1, err.Error()
	var ex exitError
	if errors.As(err, &ex) {
		code, msg = ex.code, ex.msg
	}
	if msg != "" {
		fmt.Fprintln(stderr, "hookbin: "+strings.Join(strings.Fields(privacy.Redact(msg)), " "))
	}
	return code
}

// parseArgs parses flags that may stand before or after positional
// arguments, and returns the positional ones. "--" ends flag parsing. A
// parse error comes back as the error alone (the caller prints one line on
// stderr); -h or --help prints fs.Usage and returns flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	help, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = help; fs.SetOutput(out) }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) && help != nil {
				help()
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError turns a flag parse failure into a one-line error; -h is success.
// The flag package names a flag -name; help and usage lines spell it --name.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return exitError{code: 2, msg: dashDash.Replace(strings.TrimSpace(err.Error()))}
}

// dashDash respells the flag package's -name as --name in its messages:
// "flag provided but not defined: -x", "invalid value … for flag -x: …",
// "invalid boolean value … for -x: …", "flag needs an argument: -x".
var dashDash = strings.NewReplacer(": -", ": --", "flag -", "flag --", "for -", "for --")

// printFlags lists fs's flags as the usage lines spell them (--name), each
// with its value's name and its default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "\nFlags:")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	})
}
