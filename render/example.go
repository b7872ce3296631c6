package render

import (
	"bytes"
	_ "embed"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/workstate"
)

//go:embed example/session.jsonl
var exampleTranscript []byte

// ExampleSessionID is the id of the session embedded in the binary.
const ExampleSessionID = "3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f"

// Example renders the example session embedded in the binary (a short,
// made-up session), so a fresh machine can see a bottle with no Claude Code
// installed. Its render time is the session's last activity, in UTC, so the
// output is the same everywhere.
func Example() ([]byte, error) {
	var state workstate.Builder
	t, err := transcript.ReadFrom(bytes.NewReader(exampleTranscript), state.ReadOptions(""))
	if err != nil {
		return nil, err
	}
	b := fromTranscript(t)
	b.State = state.Lines(t.WorkDir())
	b.SessionID = ExampleSessionID
	b.Rendered = t.Last
	b.LastActive = t.Last
	return markdown(b, time.UTC), nil
}
