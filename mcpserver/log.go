package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// logMax is the size past which the log is rotated to bottle.log.1, as the
// hooks do with the same file.
const logMax = 1 << 20

// logWriter appends each write as one line to the log at path, in the hooks'
// line format ("<time> mcpserver session=- mode=- 0ms error: <text>"), so
// that hookbin reads the shared file back. The file is opened per line and
// created only when something is logged. Failures are ignored: stderr must
// stay quiet and stdout is the protocol channel.
type logWriter struct{ path string }

func (w logWriter) Write(p []byte) (int, error) {
	text := strings.Join(strings.Fields(strings.ToValidUTF8(string(p), "\uFFFD")), " ")
	if len(text) > 1000 {
		text = text[:1000] + "…"
	}
	line := time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + " mcpserver session=- mode=- 0ms error: " + text + "\n"
	if !filepath.IsAbs(w.path) {
		return len(p), nil // no data folder known: never log into the working directory
	}
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		return len(p), nil
	}
	if fi, err := os.Stat(w.path); err == nil && fi.Mode().IsRegular() && fi.Size() > logMax {
		_ = os.Rename(w.path, w.path+".1")
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return len(p), nil
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
	return len(p), nil
}
