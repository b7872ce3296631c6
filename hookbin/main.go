// Command hookbin is bottle's hook and command-line binary: Claude Code hooks
// (session-start, stop, session-end, pre-compact, pre-tool-use) and the commands render,
// list, expand, search, install, uninstall and doctor. main only maps run's
// error to an exit code.
//
// The hooks' contract with Claude Code (docs/format.md, "The hooks"): read one JSON payload on
// stdin, exit 0 whatever happens, print nothing on stdout but the JSON
// answer (session-start's pointer, pre-compact's instruction, pre-tool-use's
// permission decision) and nothing on stderr, and write one line to the hook
// log per run instead (package hooklog); pre-tool-use, which runs on every
// Read, logs only its failures. Each hook gives up at its own deadline, well
// inside the timeout install registers.
//
// The commands print results on stdout and one error line on stderr, and
// exit 1 on failure, 2 on a usage error.
//
// hookbin is an adapter: it finds things with locate, renders and
// expands with render, stores with bottles and edits Claude Code's
// settings with internal/claudesettings. It may import those, claudemem
// (doctor's database check), search (search), privacy (what
// the hook log quotes of a failure is stripped), internal/hooklog and
// internal/version.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	setMemoryPolicy()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}
