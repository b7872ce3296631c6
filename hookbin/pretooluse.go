package main

import (
	"context"
	"io"

	"bottle/ident"
	"bottle/internal/permit"
	"bottle/locate"
	"bottle/pointer"
)

// The switches of the PreToolUse hook (see package permit).
const (
	allowReadsEnv       = permit.Env
	allowReadsOption    = permit.Option
	allowReadsOptionEnv = permit.OptionEnv
)

// preToolUseRules are the PreToolUse hook's rules in env.
func preToolUseRules(env locate.Env) permit.Rules {
	return permit.Rules{Env: env, OwnTool: pointer.OwnTool, ValidID: ident.ValidSession}
}

// runPreToolUse is `hookbin pre-tool-use`. The plugin's launcher runs the
// same hook from its own binary (./pretooluse), which starts faster.
func runPreToolUse(ctx context.Context, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return permit.Hook(ctx, args, preToolUseRules(env), stdin, stdout)
}
