// Command mcpserver serves session bottles over MCP on stdio: the tools
// render_bottle, read_bottle and expand_observation (package tools) for the
// Claude Code session running in its working directory.
//
// stdout carries JSON-RPC only and stderr stays quiet in normal operation
// (Claude Code shows every stderr line as an error); problems go to the log
// file <claude-mem data>/logs/bottle.log (package hooklog's format).
//
// It only wires the tools (package tools) to mcp-go's stdio server; it may
// import tools, render/locate and internal/hooklog.
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
	var u usageError
	switch {
	case err == nil:
		return
	case errors.As(err, &u):
		fmt.Fprintln(os.Stderr, "mcpserver: "+err.Error())
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "mcpserver: "+err.Error())
	os.Exit(1)
}
