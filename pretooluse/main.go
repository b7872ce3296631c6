// Command pretooluse is bottle's PreToolUse hook in a binary of its own: the
// same decision as `hookbin pre-tool-use` (package permit), without SQLite
// and the renderer linked in, so that it starts in about the time of an
// empty Go program. Claude Code runs the hook before every Read. The
// plugin's launcher runs it for `hookbin pre-tool-use` when it is installed
// beside hookbin, and hookbin's own otherwise.
//
// Its contract is the hook's: one JSON payload on stdin, the one-line
// answer or nothing on stdout, nothing on stderr, exit 0 whatever happens.
// `pretooluse --version` prints its version.
// A test holds that it links neither SQLite nor the renderer.
package main

import (
	"io"
	"os"

	"bottle/internal/folders"
	"bottle/internal/permit"
	"bottle/internal/version"
)

func main() {
	_ = run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Exit)
	os.Exit(0) // a hook never fails Claude Code; failures are in the log
}

// run answers one payload. It sets up no context and no signal handling:
// the decision runs on main's goroutine, bounded by permit.Run's timer,
// which calls exit; SIGTERM and SIGINT end the process as they would
// without a handler.
func run(args []string, stdin io.Reader, stdout, _ io.Writer, exit func(int)) error {
	if len(args) == 1 && args[0] == "--version" {
		_, err := io.WriteString(stdout, "pretooluse "+version.String()+"\n")
		return err
	}
	permit.Run(args, folders.OSEnv(), stdin, stdout, permit.Deadline, exit)
	return nil
}
