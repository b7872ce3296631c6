// Command hookbin is bottle's hook and command-line binary: Claude Code hooks
// (session-start, stop, session-end) and the commands render, list, expand,
// install, uninstall and doctor.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	setMemoryPolicy()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	code := 0
	var ex exitError
	switch {
	case err == nil:
	case errors.As(err, &ex):
		code = ex.code
		if ex.msg != "" {
			fmt.Fprintln(os.Stderr, "hookbin: "+ex.msg)
		}
	default:
		fmt.Fprintln(os.Stderr, "hookbin: "+err.Error())
		code = 1
	}
	os.Exit(code)
}
