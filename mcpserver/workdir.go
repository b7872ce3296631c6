package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sessionDir is the folder whose sessions the server serves. It is the
// server's own working directory, but for a server a Codex plugin starts:
// Codex runs a plugin's server in the plugin's folder (its arguments name
// the launcher relative to it), so there the session's folder is the
// working directory of the process that started the server — Codex, the
// nearest ancestor in another folder (Linux's /proc) — else $PWD, the
// folder Codex was started in, inherited. how says which, for the log.
func sessionDir(cwd string) (dir, how string) {
	if cwd == "" || !isPluginRoot(cwd) {
		return cwd, ""
	}
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			break
		}
		if d, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && d != cwd && filepath.IsAbs(d) {
			return d, fmt.Sprintf("the working directory of process %d (the server runs in the plugin's folder %s)", pid, cwd)
		}
		pid = parentOf(pid)
	}
	if d := os.Getenv("PWD"); filepath.IsAbs(d) && d != cwd && isDir(d) {
		return d, fmt.Sprintf("$PWD (the server runs in the plugin's folder %s)", cwd)
	}
	return cwd, ""
}

// isPluginRoot reports whether dir is a Codex plugin's folder.
func isPluginRoot(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".codex-plugin", "plugin.json"))
	return err == nil && fi.Mode().IsRegular()
}

// parentOf is process pid's parent from /proc/<pid>/stat, 0 when unknown.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
