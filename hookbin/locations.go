package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"bottle/internal/claudesettings"
	"bottle/locate"
)

// scopeTarget resolves the files of scope from the environment and the
// --project flag.
func scopeTarget(scope string, env locate.Env, projectFlag string) (claudesettings.Target, error) {
	loc := claudesettings.Locations{ConfigDir: configDir(env)}
	if scope != "user" {
		dir, err := projectDir(projectFlag)
		if err != nil {
			return claudesettings.Target{}, err
		}
		loc.Project = dir
	}
	if scope != "project" {
		cj, err := claudeJSON(env)
		if err != nil {
			return claudesettings.Target{}, err
		}
		loc.ClaudeJSON = cj
	}
	return loc.Target(claudesettings.Scope(scope))
}

// configDir is env.ConfigDir made absolute.
func configDir(env locate.Env) string {
	d := env.ConfigDir()
	if abs, err := filepath.Abs(d); err == nil {
		return abs
	}
	return d
}

// claudeJSON is Claude Code's global config file: ~/.claude.json, or
// $CLAUDE_CONFIG_DIR/.claude.json when that variable is set.
func claudeJSON(env locate.Env) (string, error) {
	if env.Get("CLAUDE_CONFIG_DIR") != "" {
		return filepath.Join(configDir(env), ".claude.json"), nil
	}
	if env.Home == "" {
		return "", errors.New("home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)")
	}
	return filepath.Join(env.Home, ".claude.json"), nil
}

// projectDir returns the absolute project folder: the flag's, else the
// working directory. It must be an existing folder.
func projectDir(flagDir string) (string, error) {
	dir := flagDir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("project dir: %w (pass --project DIR)", err)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("project dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("project dir %s is not a directory", dir)
	}
	return dir, nil
}
