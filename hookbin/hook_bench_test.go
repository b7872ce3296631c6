package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bottle/internal/hookio"
	"bottle/internal/measure/gentranscript"
)

// Benchmarks of the hooks in process: everything but the process start
// (reading the payload, the transcript and claude-mem's database, the
// render, the atomic write with fsync, the pointer and the log line).
// scripts/bench.sh times the binary itself against `hookbin --version`.

const corpusSession = "70d782f7-b303-4e48-9512-6bec16c37abd"

// benchWorld sets up HOME, CLAUDE_CONFIG_DIR and CLAUDE_MEM_DATA_DIR in a
// temp dir and returns the data dir.
func benchWorld(b *testing.B) (config, data string) {
	b.Helper()
	home := b.TempDir()
	config, data = filepath.Join(home, ".claude"), filepath.Join(home, "mem")
	for k, v := range map[string]string{"HOME": home, "USERPROFILE": home, "CLAUDE_CONFIG_DIR": config,
		"CLAUDE_MEM_DATA_DIR": data, "BOTTLE_DIR": "", deadlineEnv: ""} {
		b.Setenv(k, v)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(hookio.Abandoned.Wait)
	return config, data
}

func copyFile(b *testing.B, src, dst string) {
	b.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		b.Skipf("corpus absent: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

func corpusPath(parts ...string) string {
	dir := os.Getenv("BOTTLE_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

func benchSessionStart(b *testing.B, id, transcript string) {
	payload, _ := json.Marshal(map[string]string{"session_id": id, "transcript_path": transcript,
		"cwd": "/tmp", "hook_event_name": "SessionStart", "source": "compact"})
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if err := run(context.Background(), []string{"session-start"}, bytes.NewReader(payload), &out, io.Discard); err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(out.String(), "additionalContext") {
			b.Fatalf("no answer: %q", out.String())
		}
	}
}

// BenchmarkSessionStart runs the SessionStart hook on the largest corpus
// transcript (4 MB) with a copy of the corpus database, and on a 4 MB
// synthetic transcript without a database.
func BenchmarkSessionStart(b *testing.B) {
	b.Run("corpus-70d782f7-with-db", func(b *testing.B) {
		config, data := benchWorld(b)
		tp := filepath.Join(config, "projects", "-bench", corpusSession+".jsonl")
		copyFile(b, corpusPath("transcripts", "entireio-cli", corpusSession+".jsonl"), tp)
		// Never open the shared database in place: SQLite would create
		// its -shm file there.
		copyFile(b, corpusPath("claude-mem", "corpus.db"), filepath.Join(data, "claude-mem.db"))
		benchSessionStart(b, corpusSession, tp)
	})
	b.Run("generated-4MB", func(b *testing.B) {
		config, _ := benchWorld(b)
		tp := filepath.Join(config, "projects", "-bench", gentranscript.DefaultSessionID+".jsonl")
		var buf bytes.Buffer
		if _, err := gentranscript.Write(&buf, gentranscript.Config{Bytes: 4 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(tp), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(tp, buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
		benchSessionStart(b, gentranscript.DefaultSessionID, tp)
	})
}

// BenchmarkVersion is the floor every command pays in process.
func BenchmarkVersion(b *testing.B) {
	for b.Loop() {
		if err := run(context.Background(), []string{"--version"}, nil, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
