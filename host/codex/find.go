package codex

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ErrNoRollout: no rollout file of the thread was found.
var ErrNoRollout = errors.New("no Codex rollout for this thread")

// ErrBadThreadID: the thread id could name a path outside the sessions
// folder, or nothing Codex writes.
var ErrBadThreadID = errors.New("invalid Codex thread id")

// Home is Codex's home folder: $CODEX_HOME when set, else ~/.codex under
// userHome. It returns "" when neither is known.
func Home(getenv func(string) string, userHome string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	if userHome == "" {
		return ""
	}
	return filepath.Join(userHome, ".codex")
}

// validThreadID reports whether id can be a thread id: Codex's are UUIDs,
// but any id of letters, digits, '-' and '_' is looked up.
func validThreadID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Find returns the rollout of thread id under home: a file
// rollout-<time>-<id>.jsonl or .jsonl.zst in sessions/YYYY/MM/DD/, else in
// archived_sessions/ (flat, or dated the same way). When a plain file and
// its compressed copy both exist the plain one wins: Codex writes the
// compressed copy from it, and the plain one may have lines the copy lacks.
// Of several matches in one place the newest name wins.
func Find(home, id string) (string, error) {
	if !validThreadID(id) {
		return "", fmt.Errorf("%w %q", ErrBadThreadID, id)
	}
	if home == "" {
		return "", fmt.Errorf("find rollout of %s: %w (no CODEX_HOME and no home folder)", id, ErrNoRollout)
	}
	suffix := "-" + id + ".jsonl"
	for _, pattern := range []string{
		filepath.Join(home, "sessions", "*", "*", "*", "rollout-*"+suffix+"*"),
		filepath.Join(home, "archived_sessions", "rollout-*"+suffix+"*"),
		filepath.Join(home, "archived_sessions", "*", "*", "*", "rollout-*"+suffix+"*"),
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return "", fmt.Errorf("find rollout of %s: %w", id, err)
		}
		if p := best(matches, suffix); p != "" {
			return p, nil
		}
	}
	return "", fmt.Errorf("find rollout of %s under %s: %w", id, home, ErrNoRollout)
}

// best picks the rollout to read of matches: regular files named exactly
// …<suffix> or …<suffix>.zst, the plain one before its compressed copy,
// the latest name (Codex's names start with the time) first.
func best(matches []string, suffix string) string {
	var plain, zst []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		switch {
		case strings.HasSuffix(m, suffix):
			plain = append(plain, m)
		case strings.HasSuffix(m, suffix+".zst"):
			zst = append(zst, m)
		}
	}
	for _, set := range [][]string{plain, zst} {
		if len(set) > 0 {
			sort.Slice(set, func(i, j int) bool { return filepath.Base(set[i]) > filepath.Base(set[j]) })
			return set[0]
		}
	}
	return ""
}

// IsRollout reports whether path is named as Codex names a rollout:
// rollout-<time>-<thread id>.jsonl, or .jsonl.zst.
func IsRollout(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "rollout-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".jsonl.zst"))
}

// MetaCwd is the working directory a rollout's first line (its
// session_meta) names, read without the rest of the file, so that a listing
// of one project passes over the other projects' threads; "" when the
// first line names none.
func MetaCwd(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read rollout head: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(len(zstdMagic)); bytes.Equal(head, zstdMagic) {
		dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxDecodedBytes))
		if err != nil {
			return "", fmt.Errorf("read rollout head %s: open zstd stream: %w", path, err)
		}
		defer dec.Close()
		br = bufio.NewReaderSize(dec, 64<<10)
	}
	line, err := bufio.NewReader(io.LimitReader(br, MaxLineBytes)).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read rollout head %s: %w", path, err)
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return "", nil
	}
	if rec, _ := parseLine(line); rec.Meta != nil {
		return rec.Meta.Cwd, nil
	}
	return "", nil
}
