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
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"bottle/internal/folders"
	"bottle/internal/permit"
	"bottle/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	_ = run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(0) // a hook never fails Claude Code; failures are in the log
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	if len(args) == 1 && args[0] == "--version" {
		_, err := io.WriteString(stdout, "pretooluse "+version.String()+"\n")
		return err
	}
	return permit.Hook(ctx, args, folders.OSEnv(), stdin, stdout)
}
