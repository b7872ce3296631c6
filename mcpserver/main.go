// Command mcpserver serves session bottles over MCP on stdio: the tools
// render_bottle, read_bottle, expand_observation, search_history and
// list_sessions and the prompt continue_session (package tools) for the
// Claude Code sessions of its working directory's project.
//
// stdout carries JSON-RPC only and stderr stays quiet in normal operation
// (Claude Code shows every stderr line as an error); problems go to the log
// file <claude-mem data>/logs/bottle.log (package hooklog's format).
//
// It only wires the tools (package tools) to mcp-go's stdio server; it may
// import tools, locate, search (the server's index), internal/hooklog and
// internal/version.
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
