package main

import (
	"context"
	"io"

	"bottle/internal/permit"
	"bottle/locate"
)

// The switches of the PreToolUse hook (see package permit).
const (
	allowReadsEnv       = permit.Env
	allowReadsOption    = permit.Option
	allowReadsOptionEnv = permit.OptionEnv
)

// runPreToolUse is `hookbin pre-tool-use`. The plugin's launcher runs the
// same hook from its own binary (./pretooluse), which starts faster.
func runPreToolUse(ctx context.Context, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return permit.Hook(ctx, args, env, stdin, stdout)
}
