package main

import (
	"strings"
	"time"

	"bottle/internal/hooklog"
)

// messageMax is how many bytes of a message a log line keeps: more than a
// hook's outcome, as the server's errors are rare and carry no other record.
const messageMax = 1000

// logWriter appends each write as one line to the log at path, as an error
// of the pseudo-hook "mcpserver" in the hooks' format, so that hookbin doctor
// reads the shared file back. The file is opened per line and created only
// when something is logged. Failures are ignored: stderr must stay quiet and
// stdout is the protocol channel.
type logWriter struct{ path string }

func (w logWriter) Write(p []byte) (int, error) {
	const prefix = "error: "
	text := strings.Join(strings.Fields(strings.ToValidUTF8(string(p), "\uFFFD")), " ")
	_ = hooklog.Append(w.path, hooklog.Entry{
		Time:         time.Now(),
		Hook:         "mcpserver",
		Outcome:      prefix + text,
		OutcomeLimit: len(prefix) + messageMax,
	})
	return len(p), nil
}
