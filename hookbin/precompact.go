package main

import (
	"context"
	"io"
	"strings"
	"time"

	"bottle/locate"
	"bottle/pointer"
)

// preCompactDeadline bounds the PreCompact hook: a compaction waits for it.
const preCompactDeadline = 2 * time.Second

// Steering switches: the environment variable, and the plugin's userConfig
// option steer_compact as Claude Code passes it to the plugin's hooks.
const (
	steerEnv       = "BOTTLE_STEER_COMPACT"
	steerOptionEnv = "CLAUDE_PLUGIN_OPTION_STEER_COMPACT"
)

var preCompactHook = hook{
	name: "pre-compact",
	about: "Before a compaction (trigger manual or auto), renders the session's bottle and prints one line\n" +
		"that Claude Code merges into the summariser's custom instructions: the verbatim record will be\n" +
		"re-attached, so the summary should carry the task, decisions, open problems and next step.\n" +
		"Prints nothing on any failure, or with " + steerEnv + "=0 (or the plugin option steer_compact off).",
	deadline: preCompactDeadline,
	key:      "trigger",
	work:     preCompact,
}

func runPreCompact(ctx context.Context, d deps, args []string, env locate.Env, stdin io.Reader, stdout io.Writer) error {
	return runHook(ctx, d, preCompactHook, args, env, stdin, stdout)
}

// preCompact renders and writes the bottle, then answers with the
// instruction that steers the summary (docs/format.md, "The PreCompact
// instruction"). A user's own /compact
// text is Claude Code's to keep: the hook's stdout is added to it.
func preCompact(ctx context.Context, h hookEnv, p hookPayload) (hookResult, error) {
	if off := steeringOff(h.env); off != "" {
		return hookResult{}, skipped("steering off (" + off + ")")
	}
	res, bottle, err := renderToFile(ctx, h, p)
	if err != nil {
		return res, err
	}
	text := pointer.SteerInstruction(bottle)
	if text == "" {
		return res, skipped("bottle path too long for the instruction")
	}
	res.answer = []byte(text + "\n")
	return res, nil
}

// steeringOff names the setting that turns steering off, or returns "".
func steeringOff(env locate.Env) string {
	for _, k := range []string{steerEnv, steerOptionEnv} {
		switch strings.ToLower(strings.TrimSpace(env.Get(k))) {
		case "0", "false", "off", "no":
			return k + "=" + env.Get(k)
		}
	}
	return ""
}
